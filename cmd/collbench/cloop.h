// The C side of collbench: the same MPI operations as the Go loops, called
// directly on MPI_COMM_WORLD in a tight C loop, so that the Go/C ratio is the
// cost of the Go binding. Each function runs iters iterations and returns the
// first MPI error code (MPI_SUCCESS when all went well); buffers belong to the
// caller and are only used during the call.
#ifndef GOCOLL_COLLBENCH_CLOOP_H
#define GOCOLL_COLLBENCH_CLOOP_H
#include <mpi.h>

int cb_pingpong(int rank, const void *sbuf, void *rbuf, int n, int iters);
int cb_stream(int rank, const void *sbuf, void *rbuf, int n, int iters, long long *at);
int cb_barrier(int iters);
int cb_bcast(void *buf, int n, int iters);
int cb_reduce(const double *s, double *r, int n, int iters);
int cb_allreduce(const double *s, double *r, int n, int iters);
int cb_gather(const void *s, void *r, int n, int iters);
int cb_scatter(const void *s, void *r, int n, int iters);
int cb_allgather(const void *s, void *r, int n, int iters);
int cb_alltoall(const void *s, void *r, int n, int iters);
int cb_scan(const double *s, double *r, int n, int iters);
int cb_exscan(const double *s, double *r, int n, int iters);
int cb_reduce_scatter_block(const double *s, double *r, int n, int iters);
// cb_bcast_each and cb_allreduce_each call once per iteration on each of
// k buffers stride bytes apart.
int cb_bcast_each(void *buf, long stride, int k, int n, int iters);
int cb_allreduce_each(const void *s, void *r, long stride, int k, int n, int iters);
int cb_ibcast(void *buf, int n, int iters);
int cb_iallreduce(const double *s, double *r, int n, int iters);
int cb_igather(const void *s, void *r, int n, int iters);
int cb_iscatter(const void *s, void *r, int n, int iters);
int cb_iallgather(const void *s, void *r, int n, int iters);
int cb_ialltoall(const void *s, void *r, int n, int iters);

// The v forms, with the counts and displacements of the plain collectives:
// n elements per rank, the blocks one after another.
int cb_gatherv(const void *s, void *r, int n, int iters);
int cb_allgatherv(const void *s, void *r, int n, int iters);
int cb_alltoallv(const void *s, void *r, int n, int iters);
int cb_reduce_scatter(const double *s, double *r, int n, int iters);

// cb_state is what the C loops keep from one call to the next, made on a
// loop's first call (the warm-up, outside the timed region) and released
// by cb_state_free: the persistent rows' requests, each with the arguments
// it was made for (a call with others makes it again), and the grid of
// NeighborAlltoall. The buffers of a kept request must stay where they are.
typedef struct {
	MPI_Request req;
	const void *s;
	void *r;
	int n;
} cb_plan;
typedef struct {
	cb_plan allreduce, bcast;
	MPI_Comm cart;
} cb_state;
cb_state *cb_state_new(void);
int cb_state_free(cb_state *st);

// The persistent rows: MPI_Start and MPI_Wait per iteration of a request
// made by MPI_Allreduce_init or MPI_Bcast_init (Open MPI 4.1: MPIX_).
int cb_allreduce_init(cb_state *st, const double *s, double *r, int n, int iters);
int cb_bcast_init(cb_state *st, void *buf, int n, int iters);
// cb_neighbor_alltoall exchanges n bytes with each of the two neighbours on
// a periodic ring of all ranks (a 1-D Cartesian grid).
int cb_neighbor_alltoall(cb_state *st, const void *s, void *r, int n, int iters);

// cb_error_string writes MPI's description of code into buf (len bytes).
void cb_error_string(int code, char *buf, int len);

#endif
