#include "gc_coll.h"
#include "_cgo_export.h"

static void *gc_ip(int in_place, const void *p) { return in_place ? MPI_IN_PLACE : (void *)p; }

int gc_bcast(void *b, int n, MPI_Datatype dt, int root, MPI_Comm c, MPI_Request *req) {
	return req ? MPI_Ibcast(b, n, dt, root, c, req) : MPI_Bcast(b, n, dt, root, c);
}

int gc_reduce(const void *s, void *r, int n, MPI_Datatype dt, MPI_Op op, int root, MPI_Comm c,
	int in_place, MPI_Request *req) {
	s = gc_ip(in_place, s);
	return req ? MPI_Ireduce(s, r, n, dt, op, root, c, req) : MPI_Reduce(s, r, n, dt, op, root, c);
}

int gc_allreduce(const void *s, void *r, int n, MPI_Datatype dt, MPI_Op op, MPI_Comm c,
	int in_place, MPI_Request *req) {
	s = gc_ip(in_place, s);
	return req ? MPI_Iallreduce(s, r, n, dt, op, c, req) : MPI_Allreduce(s, r, n, dt, op, c);
}

int gc_scan(const void *s, void *r, int n, MPI_Datatype dt, MPI_Op op, MPI_Comm c,
	int in_place, MPI_Request *req) {
	s = gc_ip(in_place, s);
	return req ? MPI_Iscan(s, r, n, dt, op, c, req) : MPI_Scan(s, r, n, dt, op, c);
}

int gc_exscan(const void *s, void *r, int n, MPI_Datatype dt, MPI_Op op, MPI_Comm c,
	int in_place, MPI_Request *req) {
	s = gc_ip(in_place, s);
	return req ? MPI_Iexscan(s, r, n, dt, op, c, req) : MPI_Exscan(s, r, n, dt, op, c);
}

int gc_reduce_scatter_block(const void *s, void *r, int n, MPI_Datatype dt, MPI_Op op, MPI_Comm c,
	int in_place, MPI_Request *req) {
	s = gc_ip(in_place, s);
	return req ? MPI_Ireduce_scatter_block(s, r, n, dt, op, c, req)
		   : MPI_Reduce_scatter_block(s, r, n, dt, op, c);
}

int gc_gather(const void *s, void *r, int n, MPI_Datatype dt, int root, MPI_Comm c,
	int in_place, MPI_Request *req) {
	s = gc_ip(in_place, s);
	return req ? MPI_Igather(s, n, dt, r, n, dt, root, c, req) : MPI_Gather(s, n, dt, r, n, dt, root, c);
}

int gc_scatter(const void *s, void *r, int n, MPI_Datatype dt, int root, MPI_Comm c,
	int in_place, MPI_Request *req) {
	r = gc_ip(in_place, r);
	return req ? MPI_Iscatter(s, n, dt, r, n, dt, root, c, req) : MPI_Scatter(s, n, dt, r, n, dt, root, c);
}

int gc_allgather(const void *s, void *r, int n, MPI_Datatype dt, MPI_Comm c,
	int in_place, MPI_Request *req) {
	s = gc_ip(in_place, s);
	return req ? MPI_Iallgather(s, n, dt, r, n, dt, c, req) : MPI_Allgather(s, n, dt, r, n, dt, c);
}

int gc_alltoall(const void *s, void *r, int n, MPI_Datatype dt, MPI_Comm c,
	int in_place, MPI_Request *req) {
	s = gc_ip(in_place, s);
	return req ? MPI_Ialltoall(s, n, dt, r, n, dt, c, req) : MPI_Alltoall(s, n, dt, r, n, dt, c);
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
