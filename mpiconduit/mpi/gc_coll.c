#include <stdlib.h>
#include <string.h>
#include "gc_coll.h"
#include "_cgo_export.h"

static const void *gc_ip(int in_place, const char *p) { return in_place ? MPI_IN_PLACE : (const void *)p; }
static void *gc_ipr(int in_place, char *p) { return in_place ? MPI_IN_PLACE : (void *)p; }

#ifdef MPICH_VERSION
#include <pthread.h>
// MPICH 4.0.2 moves the pair types with a gap, MPI_DOUBLE_INT and
// MPI_LONG_INT (12 bytes of data in a 16-byte extent), wrongly in its
// data-movement collectives once blocks pass a few KiB: MPI_Gather at np >= 4,
// MPI_Scatter and MPI_Alltoall in place fail with "Message truncated", and
// their nonblocking forms misplace blocks (testdata/mpich_pair_gap.c shows
// it in C). Point-to-point moves those types right, and so do these
// collectives on a contiguous type of the same extent: they carry the pairs
// as that. It is sound because they never look inside an element and every
// rank passes the same type (the typed API's T on every rank): the bytes,
// padding included, land where MPI_DOUBLE_INT's would. The reductions keep
// the pair types, which MINLOC and MAXLOC need.
static MPI_Datatype gc_twins[2] = {MPI_DATATYPE_NULL, MPI_DATATYPE_NULL};
static pthread_once_t gc_twins_once = PTHREAD_ONCE_INIT;

// gc_free_twins frees the twins. MPI_Finalize deletes MPI_COMM_SELF's
// attributes first, while MPI still works (MPI 4.0, 11.2.4): an attribute
// with this delete callback frees them however the program finalizes (the
// Go binding, or C such as a Fortran runtime), and MPICH no longer reports
// them as leaked handles then.
static int gc_free_twins(MPI_Comm comm, int keyval, void *value, void *extra) {
	(void)comm, (void)keyval, (void)value, (void)extra;
	for (int i = 0; i < 2; i++)
		if (gc_twins[i] != MPI_DATATYPE_NULL) MPI_Type_free(&gc_twins[i]);
	return MPI_SUCCESS;
}

static void gc_make_twins(void) {
	MPI_Datatype pairs[2] = {MPI_DOUBLE_INT, MPI_LONG_INT};
	int key;
	// Without the attribute that frees them the twins are not made: the
	// collectives then pass the pair types themselves.
	if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, gc_free_twins, &key, NULL) != MPI_SUCCESS) return;
	int rc = MPI_Comm_set_attr(MPI_COMM_SELF, key, NULL);
	MPI_Comm_free_keyval(&key); // the attribute keeps it until it is deleted
	if (rc != MPI_SUCCESS) return;
	for (int i = 0; i < 2; i++) {
		MPI_Aint lb, extent;
		MPI_Datatype t;
		if (MPI_Type_get_extent(pairs[i], &lb, &extent) == MPI_SUCCESS && lb == 0 &&
		    MPI_Type_contiguous((int)extent, MPI_BYTE, &t) == MPI_SUCCESS && MPI_Type_commit(&t) == MPI_SUCCESS)
			gc_twins[i] = t;
	}
}

// gc_moved is the datatype a data-movement collective passes for dt.
static MPI_Datatype gc_moved(uintptr_t h) {
	MPI_Datatype dt = GC_TYPE(h);
	if (dt != MPI_DOUBLE_INT && dt != MPI_LONG_INT) return dt;
	pthread_once(&gc_twins_once, gc_make_twins); // after MPI_Init: a collective runs
	MPI_Datatype t = gc_twins[dt == MPI_LONG_INT];
	return t != MPI_DATATYPE_NULL ? t : dt;
}
#else
#define gc_moved(h) GC_TYPE(h)
#endif

// GC_START runs a nonblocking MPI call that ends in its request argument.
#define GC_START(call, ...)                                          \
	MPI_Request q = MPI_REQUEST_NULL;                            \
	int rc = call(__VA_ARGS__, &q);                              \
	return (gc_start){rc, (uintptr_t)q}

int gc_bcast(char *b, int n, uintptr_t dt, int root, uintptr_t c) {
	return MPI_Bcast(b, n, gc_moved(dt), root, GC_COMM(c));
}
gc_start gc_ibcast(char *b, int n, uintptr_t dt, int root, uintptr_t c) {
	GC_START(MPI_Ibcast, b, n, gc_moved(dt), root, GC_COMM(c));
}

gc_start gc_ibarrier(uintptr_t c) { GC_START(MPI_Ibarrier, GC_COMM(c)); }

int gc_reduce(const char *s, char *r, int n, uintptr_t dt, uintptr_t op, int root, uintptr_t c, int in_place) {
#ifdef MPICH_VERSION
	// MPICH 4.0.2's device-level MPI_Reduce crashes (SIGSEGV) with
	// MPI_IN_PLACE at a root other than rank 0 from a few KiB on; with a
	// separate send buffer it does not. The root's data goes through a copy.
	MPI_Aint lb, extent;
	if (in_place && root != 0 && n > 0 && MPI_Type_get_extent(GC_TYPE(dt), &lb, &extent) == MPI_SUCCESS) {
		char *tmp = malloc((size_t)n * (size_t)extent);
		if (tmp == NULL) return MPI_ERR_NO_MEM;
		memcpy(tmp, r, (size_t)n * (size_t)extent);
		int rc = MPI_Reduce(tmp, r, n, GC_TYPE(dt), GC_OP(op), root, GC_COMM(c));
		free(tmp);
		return rc;
	}
#endif
	return MPI_Reduce(gc_ip(in_place, s), r, n, GC_TYPE(dt), GC_OP(op), root, GC_COMM(c));
}
gc_start gc_ireduce(const char *s, char *r, int n, uintptr_t dt, uintptr_t op, int root, uintptr_t c,
	int in_place) {
	GC_START(MPI_Ireduce, gc_ip(in_place, s), r, n, GC_TYPE(dt), GC_OP(op), root, GC_COMM(c));
}

// The elementwise reductions, by kind (kindAllreduce, kindScan, kindExscan
// in coll.go): one entry each for the blocking and nonblocking forms.
int gc_elementwise(int kind, const char *s, char *r, int n, uintptr_t dt, uintptr_t op, uintptr_t c, int in_place) {
	switch (kind) {
	case 0: return MPI_Allreduce(gc_ip(in_place, s), r, n, GC_TYPE(dt), GC_OP(op), GC_COMM(c));
	case 1: return MPI_Scan(gc_ip(in_place, s), r, n, GC_TYPE(dt), GC_OP(op), GC_COMM(c));
	default: return MPI_Exscan(gc_ip(in_place, s), r, n, GC_TYPE(dt), GC_OP(op), GC_COMM(c));
	}
}
gc_start gc_ielementwise(int kind, const char *s, char *r, int n, uintptr_t dt, uintptr_t op, uintptr_t c, int in_place) {
	switch (kind) {
	case 0: { GC_START(MPI_Iallreduce, gc_ip(in_place, s), r, n, GC_TYPE(dt), GC_OP(op), GC_COMM(c)); }
	case 1: { GC_START(MPI_Iscan, gc_ip(in_place, s), r, n, GC_TYPE(dt), GC_OP(op), GC_COMM(c)); }
	default: { GC_START(MPI_Iexscan, gc_ip(in_place, s), r, n, GC_TYPE(dt), GC_OP(op), GC_COMM(c)); }
	}
}

int gc_reduce_scatter_block(const char *s, char *r, int n, uintptr_t dt, uintptr_t op, uintptr_t c,
	int in_place) {
	return MPI_Reduce_scatter_block(gc_ip(in_place, s), r, n, GC_TYPE(dt), GC_OP(op), GC_COMM(c));
}
gc_start gc_ireduce_scatter_block(const char *s, char *r, int n, uintptr_t dt, uintptr_t op, uintptr_t c,
	int in_place) {
	GC_START(MPI_Ireduce_scatter_block, gc_ip(in_place, s), r, n, GC_TYPE(dt), GC_OP(op), GC_COMM(c));
}

int gc_gather(const char *s, char *r, int n, uintptr_t dt, int root, uintptr_t c, int in_place) {
	return MPI_Gather(gc_ip(in_place, s), n, gc_moved(dt), r, n, gc_moved(dt), root, GC_COMM(c));
}
gc_start gc_igather(const char *s, char *r, int n, uintptr_t dt, int root, uintptr_t c, int in_place) {
	GC_START(MPI_Igather, gc_ip(in_place, s), n, gc_moved(dt), r, n, gc_moved(dt), root, GC_COMM(c));
}

int gc_scatter(const char *s, char *r, int n, uintptr_t dt, int root, uintptr_t c, int in_place) {
	return MPI_Scatter(s, n, gc_moved(dt), gc_ipr(in_place, r), n, gc_moved(dt), root, GC_COMM(c));
}
gc_start gc_iscatter(const char *s, char *r, int n, uintptr_t dt, int root, uintptr_t c, int in_place) {
	GC_START(MPI_Iscatter, s, n, gc_moved(dt), gc_ipr(in_place, r), n, gc_moved(dt), root, GC_COMM(c));
}

int gc_allgather(const char *s, char *r, int n, uintptr_t dt, uintptr_t c, int in_place) {
	return MPI_Allgather(gc_ip(in_place, s), n, gc_moved(dt), r, n, gc_moved(dt), GC_COMM(c));
}
gc_start gc_iallgather(const char *s, char *r, int n, uintptr_t dt, uintptr_t c, int in_place) {
	GC_START(MPI_Iallgather, gc_ip(in_place, s), n, gc_moved(dt), r, n, gc_moved(dt), GC_COMM(c));
}

int gc_alltoall(const char *s, char *r, int n, uintptr_t dt, uintptr_t c, int in_place) {
	return MPI_Alltoall(gc_ip(in_place, s), n, gc_moved(dt), r, n, gc_moved(dt), GC_COMM(c));
}
gc_start gc_ialltoall(const char *s, char *r, int n, uintptr_t dt, uintptr_t c, int in_place) {
	GC_START(MPI_Ialltoall, gc_ip(in_place, s), n, gc_moved(dt), r, n, gc_moved(dt), GC_COMM(c));
}

int gc_gatherv(const char *s, int sn, char *r, const int *rc, const int *rd, uintptr_t dt, int root, uintptr_t c) {
	return MPI_Gatherv(s, sn, gc_moved(dt), r, rc, rd, gc_moved(dt), root, GC_COMM(c));
}
int gc_scatterv(const char *s, const int *sc, const int *sd, char *r, int rn, uintptr_t dt, int root, uintptr_t c) {
	return MPI_Scatterv(s, sc, sd, gc_moved(dt), r, rn, gc_moved(dt), root, GC_COMM(c));
}
int gc_allgatherv(const char *s, int sn, char *r, const int *rc, const int *rd, uintptr_t dt, uintptr_t c) {
	return MPI_Allgatherv(s, sn, gc_moved(dt), r, rc, rd, gc_moved(dt), GC_COMM(c));
}
int gc_alltoallv(const char *s, const int *sc, const int *sd, char *r, const int *rc, const int *rd, uintptr_t dt,
	uintptr_t c) {
	return MPI_Alltoallv(s, sc, sd, gc_moved(dt), r, rc, rd, gc_moved(dt), GC_COMM(c));
}
int gc_neighbor_alltoall(const char *s, char *r, int n, uintptr_t dt, uintptr_t c) {
	return MPI_Neighbor_alltoall(s, n, gc_moved(dt), r, n, gc_moved(dt), GC_COMM(c));
}
int gc_neighbor_alltoallv(const char *s, const int *sc, const int *sd, char *r, const int *rc, const int *rd,
	uintptr_t dt, uintptr_t c) {
	return MPI_Neighbor_alltoallv(s, sc, sd, gc_moved(dt), r, rc, rd, gc_moved(dt), GC_COMM(c));
}
int gc_reduce_scatter(const char *s, char *r, const int *rc, uintptr_t dt, uintptr_t op, uintptr_t c) {
	return MPI_Reduce_scatter(s, r, rc, GC_TYPE(dt), GC_OP(op), GC_COMM(c));
}

// The persistent collectives are MPI-4's MPI_*_init (MPICH 4); Open MPI 4.1,
// an MPI-3.1 library, ships them as its extension MPIX_*_init, declared in
// mpi-ext.h (the pcollreq extension), with the same arguments.
#if MPI_VERSION >= 4
#define GC_INIT(name) MPI_##name##_init
#else
#include <mpi-ext.h>
#define GC_INIT(name) MPIX_##name##_init
#endif

gc_start gc_bcast_init(char *b, int n, uintptr_t dt, int root, uintptr_t c) {
	GC_START(GC_INIT(Bcast), b, n, gc_moved(dt), root, GC_COMM(c), MPI_INFO_NULL);
}
gc_start gc_allreduce_init(const char *s, char *r, int n, uintptr_t dt, uintptr_t op, uintptr_t c, int in_place) {
	GC_START(GC_INIT(Allreduce), gc_ip(in_place, s), r, n, GC_TYPE(dt), GC_OP(op), GC_COMM(c), MPI_INFO_NULL);
}
gc_start gc_reduce_scatter_block_init(const char *s, char *r, int n, uintptr_t dt, uintptr_t op, uintptr_t c,
	int in_place) {
	GC_START(GC_INIT(Reduce_scatter_block), gc_ip(in_place, s), r, n, GC_TYPE(dt), GC_OP(op), GC_COMM(c),
		MPI_INFO_NULL);
}

// MPI passes an operator no user data, so each user operator gets its own
// trampoline that tells the Go side which slot it is. GC_UOP(a, b) is slot a*8+b.
#define GC_UOP(a, b)                                                                        \
	static void gc_uop_##a##b(void *in, void *inout, int *len, MPI_Datatype *dt) {     \
		gcUserOp(a * 8 + b, in, inout, *len, *dt);                                         \
	}
#define GC_UOP8(a) GC_UOP(a, 0) GC_UOP(a, 1) GC_UOP(a, 2) GC_UOP(a, 3) \
	GC_UOP(a, 4) GC_UOP(a, 5) GC_UOP(a, 6) GC_UOP(a, 7)
GC_UOP8(0)
GC_UOP8(1)
GC_UOP8(2)
GC_UOP8(3)

#define GC_UOPS8(a) gc_uop_##a##0, gc_uop_##a##1, gc_uop_##a##2, gc_uop_##a##3, \
	gc_uop_##a##4, gc_uop_##a##5, gc_uop_##a##6, gc_uop_##a##7
static MPI_User_function *const gc_uops[] = {GC_UOPS8(0), GC_UOPS8(1), GC_UOPS8(2), GC_UOPS8(3)};
_Static_assert(sizeof gc_uops / sizeof gc_uops[0] == GC_USER_OPS, "one trampoline per slot");

int gc_op_create(int slot, int commute, MPI_Op *op) {
	if (slot < 0 || slot >= GC_USER_OPS) return MPI_ERR_ARG;
	return MPI_Op_create(gc_uops[slot], commute, op);
}

int gc_type_size(MPI_Datatype dt) {
	int n = 0;
	if (MPI_Type_size(dt, &n) != MPI_SUCCESS) return 0;
	return n;
}
