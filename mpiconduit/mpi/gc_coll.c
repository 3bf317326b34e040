#include <stdlib.h>
#include <string.h>
#include "gc_coll.h"
#include "_cgo_export.h"

static const void *gc_ip(int in_place, const char *p) { return in_place ? MPI_IN_PLACE : (const void *)p; }
static void *gc_ipr(int in_place, char *p) { return in_place ? MPI_IN_PLACE : (void *)p; }

// GC_START runs a nonblocking MPI call that ends in its request argument.
#define GC_START(call, ...)                                          \
	MPI_Request q = MPI_REQUEST_NULL;                            \
	int rc = call(__VA_ARGS__, &q);                              \
	return (gc_start){rc, (uintptr_t)q}

int gc_bcast(char *b, int n, uintptr_t dt, int root, uintptr_t c) {
	return MPI_Bcast(b, n, GC_TYPE(dt), root, GC_COMM(c));
}
gc_start gc_ibcast(char *b, int n, uintptr_t dt, int root, uintptr_t c) {
	GC_START(MPI_Ibcast, b, n, GC_TYPE(dt), root, GC_COMM(c));
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
	return MPI_Gather(gc_ip(in_place, s), n, GC_TYPE(dt), r, n, GC_TYPE(dt), root, GC_COMM(c));
}
gc_start gc_igather(const char *s, char *r, int n, uintptr_t dt, int root, uintptr_t c, int in_place) {
	GC_START(MPI_Igather, gc_ip(in_place, s), n, GC_TYPE(dt), r, n, GC_TYPE(dt), root, GC_COMM(c));
}

int gc_scatter(const char *s, char *r, int n, uintptr_t dt, int root, uintptr_t c, int in_place) {
	return MPI_Scatter(s, n, GC_TYPE(dt), gc_ipr(in_place, r), n, GC_TYPE(dt), root, GC_COMM(c));
}
gc_start gc_iscatter(const char *s, char *r, int n, uintptr_t dt, int root, uintptr_t c, int in_place) {
	GC_START(MPI_Iscatter, s, n, GC_TYPE(dt), gc_ipr(in_place, r), n, GC_TYPE(dt), root, GC_COMM(c));
}

int gc_allgather(const char *s, char *r, int n, uintptr_t dt, uintptr_t c, int in_place) {
	return MPI_Allgather(gc_ip(in_place, s), n, GC_TYPE(dt), r, n, GC_TYPE(dt), GC_COMM(c));
}
gc_start gc_iallgather(const char *s, char *r, int n, uintptr_t dt, uintptr_t c, int in_place) {
	GC_START(MPI_Iallgather, gc_ip(in_place, s), n, GC_TYPE(dt), r, n, GC_TYPE(dt), GC_COMM(c));
}

int gc_alltoall(const char *s, char *r, int n, uintptr_t dt, uintptr_t c, int in_place) {
	return MPI_Alltoall(gc_ip(in_place, s), n, GC_TYPE(dt), r, n, GC_TYPE(dt), GC_COMM(c));
}
gc_start gc_ialltoall(const char *s, char *r, int n, uintptr_t dt, uintptr_t c, int in_place) {
	GC_START(MPI_Ialltoall, gc_ip(in_place, s), n, GC_TYPE(dt), r, n, GC_TYPE(dt), GC_COMM(c));
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
