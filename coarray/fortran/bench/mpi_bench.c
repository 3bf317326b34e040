/* The native baseline of bench.f90: MPI_Bcast and MPI_Allreduce (MPI_SUM)
   of n doubles, timed the same way (best of 5 batches of ~0.2 s, mean
   microseconds per call on rank 0). Arguments: sizes. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "timing.h"

static double *a; // the doubles

static double batch(int op, int n, long iters) {
	MPI_Barrier(MPI_COMM_WORLD);
	double t0 = MPI_Wtime();
	for (long k = 0; k < iters; k++) {
		if (op == 1) MPI_Bcast(a, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
		else MPI_Allreduce(MPI_IN_PLACE, a, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	}
	double t = MPI_Wtime() - t0;
	MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	for (int i = 0; i < n; i++) a[i] = 1;
	return t;
}

int main(int argc, char **argv) {
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int sizes[8] = {1, 1000, 131072, 1000000}, ns = 4;
	if (argc > 1) {
		ns = argc - 1;
		for (int i = 0; i < ns && i < 8; i++) sizes[i] = atoi(argv[i + 1]);
	}
	a = calloc(1000000, sizeof(double));
	const char *names[] = {"", "MPI_Bcast", "MPI_Allreduce"};
	if (rank == 0) printf("# op        doubles        us/call   images\n");
	for (int op = 1; op <= 2; op++) {
		for (int i = 0; i < ns; i++) {
			int n = sizes[i];
			double t = best(batch, op, n);
			if (rank == 0) printf("%-13s %11d %14.3f %8d\n", names[op], n, t, size);
		}
	}
	free(a);
	MPI_Finalize();
	return 0;
}
