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

// cb_error_string writes MPI's description of code into buf (len bytes).
void cb_error_string(int code, char *buf, int len);

#endif
