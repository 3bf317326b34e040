// MPICH 4.0.2 (Debian 12, ch4:ucx) moves the MINLOC/MAXLOC pair types with
// a gap, MPI_DOUBLE_INT and MPI_LONG_INT (12 bytes of data in a 16-byte
// extent), wrongly in some collectives once blocks pass a few KiB. This
// program runs each data-movement collective on MPI_DOUBLE_INT, then on a
// contiguous type of the same extent (what the binding passes instead on
// MPICH, see gc_coll.c), and prints every error or wrong block.
//
//   mpicc.mpich -O2 mpich_pair_gap.c -o gap && mpirun.mpich -np 4 ./gap
//
// On MPICH 4.0.2 at np 4 the MPI_DOUBLE_INT lines report MPI_Gather
// (root 0, 1) and MPI_Scatter (roots 1..3) failing with "Message
// truncated", and MPI_Alltoall in place misplacing blocks; the contiguous
// type passes every call. Open MPI 4.1.4 passes both.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { double v; int l; } pair; // MPI_DOUBLE_INT's C layout: 16 bytes

static int me, p;
static const char *only = ""; // run only this call (gather, scatter, alltoall): a failed
                               // collective can leave messages that upset the next one

static int want(const char *call) { return !*only || !strcmp(only, call); }

static pair val(int rank, int i) { return (pair){rank * 100000.0 + i, rank}; }
static int eq(pair a, pair b) { return a.v == b.v && a.l == b.l; }

static int report(const char *type, const char *call, int root, int rc, int wrong) {
	if (rc == MPI_SUCCESS && wrong < 0) return 0;
	char e[MPI_MAX_ERROR_STRING] = "";
	int len = 0;
	if (rc != MPI_SUCCESS) MPI_Error_class(rc, &rc), MPI_Error_string(rc, e, &len);
	printf("%-15s np %d rank %d: %s root %d: %s%s\n", type, p, me, call, root,
		rc != MPI_SUCCESS ? "error: " : "wrong data", rc != MPI_SUCCESS ? e : "");
	return 1;
}

// run runs every call on n elements per block with datatype dt; it
// returns the number of failures this rank saw.
static int run(const char *type, MPI_Datatype dt, int n) {
	int bad = 0;
	pair *s = malloc((size_t)p * n * sizeof(pair)), *r = malloc((size_t)p * n * sizeof(pair));
	for (int root = 0; root < p; root++) {
		if (want("gather")) {
		// Gather: rank q's block lands in block q at root.
		for (int i = 0; i < n; i++) s[i] = val(me, i);
		for (int i = 0; i < p * n; i++) r[i] = (pair){-1, -1};
		int rc = MPI_Gather(s, n, dt, r, n, dt, root, MPI_COMM_WORLD), wrong = -1;
		if (rc == MPI_SUCCESS && me == root)
			for (int j = 0; j < p * n && wrong < 0; j++) if (!eq(r[j], val(j / n, j % n))) wrong = j;
		bad += report(type, "MPI_Gather", root, rc, wrong);
		}
		if (want("scatter")) {
		// Scatter: block q of root's send lands at rank q.
		for (int j = 0; j < p * n; j++) s[j] = val(j / n, j % n);
		for (int i = 0; i < n; i++) r[i] = (pair){-1, -1};
		int rc = MPI_Scatter(s, n, dt, r, n, dt, root, MPI_COMM_WORLD), wrong = -1;
		if (rc == MPI_SUCCESS)
			for (int i = 0; i < n && wrong < 0; i++) if (!eq(r[i], val(me, i))) wrong = i;
		bad += report(type, "MPI_Scatter", root, rc, wrong);
		}
	}
	if (want("alltoall")) {
	// Alltoall in place: block q of rank me goes to block me of rank q.
	for (int j = 0; j < p * n; j++) r[j] = val(me * p + j / n, j % n);
	int rc = MPI_Alltoall(MPI_IN_PLACE, n, dt, r, n, dt, MPI_COMM_WORLD), wrong = -1;
	if (rc == MPI_SUCCESS)
		for (int j = 0; j < p * n && wrong < 0; j++) if (!eq(r[j], val((j / n) * p + me, j % n))) wrong = j;
	bad += report(type, "MPI_Alltoall in place", -1, rc, wrong);
	}
	free(s);
	free(r);
	return bad;
}

int main(int argc, char **argv) {
	int n = argc > 1 ? atoi(argv[1]) : 1500;
	if (argc > 2) only = argv[2];
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &p);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Datatype twin;
	MPI_Aint lb, extent;
	MPI_Type_get_extent(MPI_DOUBLE_INT, &lb, &extent);
	MPI_Type_contiguous((int)extent, MPI_BYTE, &twin);
	MPI_Type_commit(&twin);
	int bad[2] = {run("MPI_DOUBLE_INT", MPI_DOUBLE_INT, n), run("contiguous(16)", twin, n)}, all[2];
	MPI_Reduce(bad, all, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	if (me == 0)
		printf("np %d, %d elements per block: %d failures on MPI_DOUBLE_INT, %d on its contiguous twin\n", p, n, all[0], all[1]);
	MPI_Type_free(&twin);
	MPI_Finalize();
	return 0;
}
