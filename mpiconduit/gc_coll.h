// C side of the native collectives and of Go user operators. Each collective
// wrapper blocks when req is NULL and starts the nonblocking form otherwise.
// in_place makes the wrapper pass MPI_IN_PLACE: Go code never holds that
// value, because ((void *)1) in a Go pointer slot crashes stack copying.
//
// userop.go exports Go functions, so its preamble includes this header and
// this header may only declare; the definitions are in gc_coll.c.
#ifndef GOCOLL_GC_COLL_H
#define GOCOLL_GC_COLL_H
#include <mpi.h>

// GC_USER_OPS is the number of C trampolines, so of user operators alive at once.
#define GC_USER_OPS 32

int gc_bcast(void *b, int n, MPI_Datatype dt, int root, MPI_Comm c, MPI_Request *req);
int gc_reduce(const void *s, void *r, int n, MPI_Datatype dt, MPI_Op op, int root, MPI_Comm c,
	int in_place, MPI_Request *req);
int gc_allreduce(const void *s, void *r, int n, MPI_Datatype dt, MPI_Op op, MPI_Comm c,
	int in_place, MPI_Request *req);
int gc_scan(const void *s, void *r, int n, MPI_Datatype dt, MPI_Op op, MPI_Comm c,
	int in_place, MPI_Request *req);
int gc_exscan(const void *s, void *r, int n, MPI_Datatype dt, MPI_Op op, MPI_Comm c,
	int in_place, MPI_Request *req);
int gc_reduce_scatter_block(const void *s, void *r, int n, MPI_Datatype dt, MPI_Op op, MPI_Comm c,
	int in_place, MPI_Request *req);
// n is the count of one rank's block; send and receive use the same datatype.
// For gc_scatter, in_place stands for the receive buffer (at the root).
int gc_gather(const void *s, void *r, int n, MPI_Datatype dt, int root, MPI_Comm c,
	int in_place, MPI_Request *req);
int gc_scatter(const void *s, void *r, int n, MPI_Datatype dt, int root, MPI_Comm c,
	int in_place, MPI_Request *req);
int gc_allgather(const void *s, void *r, int n, MPI_Datatype dt, MPI_Comm c,
	int in_place, MPI_Request *req);
int gc_alltoall(const void *s, void *r, int n, MPI_Datatype dt, MPI_Comm c,
	int in_place, MPI_Request *req);

// gc_op_create makes an MPI operator whose function is trampoline slot.
int gc_op_create(int slot, int commute, MPI_Op *op);
// gc_type_size is MPI_Type_size, or 0 when MPI refuses.
int gc_type_size(MPI_Datatype dt);

#endif
