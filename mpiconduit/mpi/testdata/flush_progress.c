// Passive-target progress: does MPI_Win_flush at the origin return while the
// target makes no MPI call, and which target calls let it return?
//
//   mpicc.mpich -O2 flush_progress.c -o fp && for c in none iprobe testnull testsome0 testsome1 winsync; do
//     mpirun.mpich -np 2 ./fp $c; done
//
// Rank 1 puts 8 bytes into rank 0's part of a window in a passive-target
// epoch and flushes; rank 0 spends 1 s making the named call every 100 us
// (none: no MPI call at all). On MPICH 4.0.2 (ch4:ucx, UCX 1.13, one host;
// the same over UCX_TLS=self,tcp) the flush takes the whole second with
// none, testnull (MPI_Test of MPI_REQUEST_NULL), testsome0 (MPI_Testsome of
// no request) and winsync (MPI_Win_sync), and a few ms at most with iprobe
// (MPI_Iprobe) and testsome1 (MPI_Testsome of a pending receive): UCX runs
// these puts through active messages that only the target's progress
// completes. MPI allows that (the one-sided chapter's "Progress"). With
// MPIR_CVAR_ASYNC_PROGRESS=1 MPICH's own progress thread completes it at
// once, at the price of a thread spinning in MPI in every process. Open
// MPI 4.1.4's osc/rdma writes through shared memory: about 0 s with none.
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static double now(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
	int prov, me;
	const char *how = argc > 1 ? argv[1] : "none";
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &prov);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	char *base;
	MPI_Win w;
	MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &w);
	MPI_Win_lock_all(MPI_MODE_NOCHECK, w);
	MPI_Barrier(MPI_COMM_WORLD);
	if (me == 1) {
		char b[8] = "abcdefg";
		double t = now();
		MPI_Put(b, 8, MPI_BYTE, 0, 0, 8, MPI_BYTE, w);
		MPI_Win_flush(0, w);
		printf("%-9s: MPI_Put + MPI_Win_flush took %.6f s\n", how, now() - t);
	} else if (me == 0) {
		MPI_Request pending = MPI_REQUEST_NULL, null = MPI_REQUEST_NULL;
		char rb[1];
		int flag, out, idx[1];
		MPI_Status st[1];
		if (!strcmp(how, "testsome1")) MPI_Irecv(rb, 1, MPI_BYTE, 1, 99, MPI_COMM_WORLD, &pending);
		for (double t = now(), last = t; now() - t < 1.0;) {
			if (now() - last < 100e-6) continue;
			last = now();
			if (!strcmp(how, "iprobe")) MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
			else if (!strcmp(how, "testnull")) MPI_Test(&null, &flag, MPI_STATUS_IGNORE);
			else if (!strcmp(how, "testsome0")) MPI_Testsome(0, &null, &out, idx, st);
			else if (!strcmp(how, "testsome1")) MPI_Testsome(1, &pending, &out, idx, st);
			else if (!strcmp(how, "winsync")) MPI_Win_sync(w);
		}
		if (pending != MPI_REQUEST_NULL) MPI_Cancel(&pending), MPI_Wait(&pending, MPI_STATUS_IGNORE);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Win_unlock_all(w);
	MPI_Win_free(&w);
	MPI_Finalize();
	return 0;
}
