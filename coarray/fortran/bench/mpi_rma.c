/* The native baseline of rma.f90: MPI_Put and MPI_Get of n doubles from rank
   0 to rank 1's window, contiguous and every other element (a vector
   datatype at the target), each followed by MPI_Win_flush (put) or
   MPI_Win_flush_local (get) inside one MPI_Win_lock_all epoch, timed the
   same way (best of 5 batches of ~0.2 s, mean microseconds per operation on
   rank 0). Arguments: sizes. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "timing.h"

static MPI_Win win;
static double *buf; // the origin's doubles

static double batch(int op, int n, long iters) {
	MPI_Datatype vec;
	MPI_Type_vector(n, 1, 2, MPI_DOUBLE, &vec);
	MPI_Type_commit(&vec);
	int rank;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Barrier(MPI_COMM_WORLD);
	double t0 = MPI_Wtime();
	if (rank == 0) {
		for (long k = 0; k < iters; k++) {
			switch (op) {
			case 1: MPI_Put(buf, n, MPI_DOUBLE, 1, 0, n, MPI_DOUBLE, win); MPI_Win_flush(1, win); break;
			case 2: MPI_Put(buf, n, MPI_DOUBLE, 1, 0, 1, vec, win); MPI_Win_flush(1, win); break;
			case 3: MPI_Get(buf, n, MPI_DOUBLE, 1, 0, n, MPI_DOUBLE, win); MPI_Win_flush_local(1, win); break;
			case 4: MPI_Get(buf, n, MPI_DOUBLE, 1, 0, 1, vec, win); MPI_Win_flush_local(1, win); break;
			}
		}
	}
	double t = MPI_Wtime() - t0;
	MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	MPI_Type_free(&vec);
	return t;
}

int main(int argc, char **argv) {
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size < 2) {
		if (rank == 0) fprintf(stderr, "mpi_rma needs 2 ranks or more\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	int sizes[8] = {1, 1000, 131072}, ns = 3, maxn = 0;
	if (argc > 1) {
		ns = argc - 1;
		for (int i = 0; i < ns && i < 8; i++) sizes[i] = atoi(argv[i + 1]);
	}
	for (int i = 0; i < ns; i++) maxn = sizes[i] > maxn ? sizes[i] : maxn;
	double *mem;
	buf = calloc(maxn, sizeof(double));
	MPI_Win_allocate(2 * maxn * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
	MPI_Win_lock_all(0, win);
	const char *names[] = {"", "MPI_Put", "MPI_Put_vector", "MPI_Get", "MPI_Get_vector"};
	if (rank == 0) printf("# op              doubles        us/call   images\n");
	for (int op = 1; op <= 4; op++) {
		for (int i = 0; i < ns; i++) {
			int n = sizes[i];
			double t = best(batch, op, n);
			if (rank == 0) printf("%-15s %11d %14.3f %8d\n", names[op], n, t, size);
		}
	}
	MPI_Win_unlock_all(win);
	MPI_Win_free(&win);
	free(buf);
	MPI_Finalize();
	return 0;
}
