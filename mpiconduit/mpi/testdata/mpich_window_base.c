// MPI_WIN_BASE of a window over memory that is not 16-byte aligned, and
// where one-sided operations to it land.
//
//   mpicc.mpich -O2 mpich_window_base.c -o wb && mpirun.mpich -np 2 ./wb
//
// MPI says a window's MPI_WIN_BASE is the base the caller gave. MPICH
// 4.0.2 over UCX (Debian 12) publishes UCX's registered address instead,
// the base rounded down to 16 bytes, and every peer's MPI_Put, MPI_Get,
// MPI_Accumulate, MPI_Fetch_and_op and MPI_Compare_and_swap lands that
// many bytes early: the "as given" lines print WRONG for skews 1 to 8,
// whatever UCX_TLS says. Adding the target's skew (base - MPI_WIN_BASE,
// which every rank can learn) to each displacement puts them right: the
// "corrected" lines print ok, which is what the binding does (window.go,
// Win.init). Open MPI 4.1.4 prints skew 0 and ok everywhere.
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
	int me, p, prov;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &prov);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &p);
	char *raw = aligned_alloc(64, 8192);
	long long *skews = malloc(p * sizeof *skews);
	for (int skew = 0; skew <= 16; skew = skew ? skew * 2 : 1) {
		for (int correct = 0; correct < 2; correct++) {
			char *mine = raw + skew, *published;
			int flag, t = (me + 1) % p;
			memset(raw, 0, 8192);
			MPI_Win w;
			MPI_Win_create(mine, 4096, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w);
			MPI_Win_get_attr(w, MPI_WIN_BASE, &published, &flag);
			long long my = mine - published;
			MPI_Allgather(&my, 1, MPI_LONG_LONG, skews, 1, MPI_LONG_LONG, MPI_COMM_WORLD);
			MPI_Aint fix = correct ? skews[t] : 0;
			MPI_Win_lock_all(0, w);
			MPI_Barrier(MPI_COMM_WORLD);
			int64_t one = 1, old, zero = 0, seven = 7, was;
			char b[8] = "putdata", g[8];
			MPI_Put(b, 8, MPI_BYTE, t, 64 + fix, 8, MPI_BYTE, w);
			MPI_Accumulate(&one, 1, MPI_INT64_T, t, 128 + fix, 1, MPI_INT64_T, MPI_SUM, w);
			MPI_Fetch_and_op(&one, &old, MPI_INT64_T, t, 256 + fix, MPI_SUM, w);
			MPI_Compare_and_swap(&seven, &zero, &was, MPI_INT64_T, t, 512 + fix, w);
			MPI_Win_flush(t, w);
			MPI_Barrier(MPI_COMM_WORLD);
			MPI_Win_sync(w);
			MPI_Get(g, 8, MPI_BYTE, t, 64 + fix, 8, MPI_BYTE, w);
			MPI_Win_flush(t, w);
			int64_t acc, fop, cas;
			memcpy(&acc, mine + 128, 8);
			memcpy(&fop, mine + 256, 8);
			memcpy(&cas, mine + 512, 8);
			int ok = !memcmp(mine + 64, b, 8) && acc == 1 && fop == 1 && cas == 7 && !memcmp(g, b, 8);
			printf("rank %d, base %2d bytes past 16: MPI_WIN_BASE %lld below it; %-9s %s\n", me, skew, my,
				correct ? "corrected" : "as given", ok ? "ok" : "WRONG");
			MPI_Barrier(MPI_COMM_WORLD);
			MPI_Win_unlock_all(w);
			MPI_Win_free(&w);
		}
	}
	free(skews);
	free(raw);
	MPI_Finalize();
	return 0;
}
