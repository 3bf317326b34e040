// C side of the native collectives and of Go user operators.
// in_place makes the wrapper pass MPI_IN_PLACE: Go code never holds that
// value, because ((void *)1) in a Go pointer slot crashes stack copying.
//
// userop.go exports Go functions, so its preamble includes this header and
// this header may only declare; the definitions are in gc_coll.c.
#ifndef GOCOLL_GC_COLL_H
#define GOCOLL_GC_COLL_H
#include <mpi.h>
#include "gc.h"

// GC_USER_OPS is the number of C trampolines, so of user operators alive at once.
#define GC_USER_OPS 32

// The blocking form returns MPI's return code; the nonblocking form (gc_i...)
// returns it with the new request. Handles and buffers cross as in gc.h.
int gc_bcast(char *b, int n, uintptr_t dt, int root, uintptr_t c);
gc_start gc_ibcast(char *b, int n, uintptr_t dt, int root, uintptr_t c);
gc_start gc_ibarrier(uintptr_t c);
int gc_reduce(const char *s, char *r, int n, uintptr_t dt, uintptr_t op, int root, uintptr_t c, int in_place);
gc_start gc_ireduce(const char *s, char *r, int n, uintptr_t dt, uintptr_t op, int root, uintptr_t c,
	int in_place);
int gc_elementwise(int kind, const char *s, char *r, int n, uintptr_t dt, uintptr_t op, uintptr_t c, int in_place);
gc_start gc_ielementwise(int kind, const char *s, char *r, int n, uintptr_t dt, uintptr_t op, uintptr_t c, int in_place);
int gc_reduce_scatter_block(const char *s, char *r, int n, uintptr_t dt, uintptr_t op, uintptr_t c,
	int in_place);
gc_start gc_ireduce_scatter_block(const char *s, char *r, int n, uintptr_t dt, uintptr_t op, uintptr_t c,
	int in_place);
// n is the count of one rank's block; send and receive use the same datatype.
// For gc_scatter, in_place stands for the receive buffer (at the root).
int gc_gather(const char *s, char *r, int n, uintptr_t dt, int root, uintptr_t c, int in_place);
gc_start gc_igather(const char *s, char *r, int n, uintptr_t dt, int root, uintptr_t c, int in_place);
int gc_scatter(const char *s, char *r, int n, uintptr_t dt, int root, uintptr_t c, int in_place);
gc_start gc_iscatter(const char *s, char *r, int n, uintptr_t dt, int root, uintptr_t c, int in_place);
int gc_allgather(const char *s, char *r, int n, uintptr_t dt, uintptr_t c, int in_place);
gc_start gc_iallgather(const char *s, char *r, int n, uintptr_t dt, uintptr_t c, int in_place);
int gc_alltoall(const char *s, char *r, int n, uintptr_t dt, uintptr_t c, int in_place);
// The v forms: a count and a displacement per rank (in elements), one
// datatype for both sides, never in place.
int gc_gatherv(const char *s, int sn, char *r, const int *rc, const int *rd, uintptr_t dt, int root, uintptr_t c);
int gc_scatterv(const char *s, const int *sc, const int *sd, char *r, int rn, uintptr_t dt, int root, uintptr_t c);
int gc_allgatherv(const char *s, int sn, char *r, const int *rc, const int *rd, uintptr_t dt, uintptr_t c);
int gc_alltoallv(const char *s, const int *sc, const int *sd, char *r, const int *rc, const int *rd, uintptr_t dt,
	uintptr_t c);
int gc_reduce_scatter(const char *s, char *r, const int *rc, uintptr_t dt, uintptr_t op, uintptr_t c);
// n is the count of the block to (and from) each neighbour.
int gc_neighbor_alltoall(const char *s, char *r, int n, uintptr_t dt, uintptr_t c);
int gc_neighbor_alltoallv(const char *s, const int *sc, const int *sd, char *r, const int *rc, const int *rd,
	uintptr_t dt, uintptr_t c);
gc_start gc_ialltoall(const char *s, char *r, int n, uintptr_t dt, uintptr_t c, int in_place);
// The persistent collectives (MPI_*_init): the new request comes back
// inactive, for MPI_Start.
gc_start gc_bcast_init(char *b, int n, uintptr_t dt, int root, uintptr_t c);
gc_start gc_allreduce_init(const char *s, char *r, int n, uintptr_t dt, uintptr_t op, uintptr_t c, int in_place);
gc_start gc_reduce_scatter_block_init(const char *s, char *r, int n, uintptr_t dt, uintptr_t op, uintptr_t c,
	int in_place);

// gc_op_create makes an MPI operator whose function is trampoline slot.
int gc_op_create(int slot, int commute, MPI_Op *op);
// gc_type_size is MPI_Type_size, or 0 when MPI refuses.
int gc_type_size(MPI_Datatype dt);

#endif
