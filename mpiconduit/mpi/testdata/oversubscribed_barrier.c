// MPI_Barrier with more ranks than cores: does the MPI yield the processor
// while it waits?
//
//   mpicc.mpich -O2 oversubscribed_barrier.c -o ob && mpirun.mpich -bind-to none -np 8 ./ob
//   mpicc.openmpi -O2 oversubscribed_barrier.c -o ob && mpirun.openmpi --oversubscribe --bind-to none -np 8 ./ob
//
// On 2 cores at np 8, MPICH 4.0.2 (ch4:ucx) took 33-50 ms per MPI_Barrier
// (its blocking calls spin, and MPIR_CVAR_POLLS_BEFORE_YIELD changes
// nothing), 1-4 ms when the barrier is MPI_Ibarrier with a loop of MPI_Test
// and sched_yield, and Open MPI 4.1.4 21-46 us (it yields when
// oversubscribed). Hence scripts/mpirun-tests.sh runs MPICH with at most 2
// ranks per core unless told otherwise.
#include <mpi.h>
#include <sched.h>
#include <stdio.h>

int main(int argc, char **argv) {
	int me, p, prov;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &prov);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &p);
	const int n = 100;
	double t = MPI_Wtime();
	for (int i = 0; i < n; i++) MPI_Barrier(MPI_COMM_WORLD);
	double blocking = (MPI_Wtime() - t) / n;
	t = MPI_Wtime();
	for (int i = 0; i < n; i++) {
		MPI_Request q;
		int done = 0;
		MPI_Ibarrier(MPI_COMM_WORLD, &q);
		while (MPI_Test(&q, &done, MPI_STATUS_IGNORE), !done) sched_yield();
	}
	double yielding = (MPI_Wtime() - t) / n;
	if (me == 0)
		printf("np %d: MPI_Barrier %.1f us; MPI_Ibarrier with MPI_Test and sched_yield %.1f us\n", p,
			blocking * 1e6, yielding * 1e6);
	MPI_Finalize();
	return 0;
}
