#include <stdlib.h>
#include <string.h>
#include "cloop.h"

// MPICH's MPI_STATUSES_IGNORE is (MPI_Status *)1, which gcc 12 takes for an
// array of size 0 and warns about at every call that passes it.
#pragma GCC diagnostic ignored "-Wstringop-overflow"

// Every loop stops at the first error, like the Go loops. Root is 0 and the
// tag of the ping-pong is 1, as on the Go side.
#define LOOP(call)                                   \
	for (int i = 0; i < iters; i++) {            \
		int rc = (call);                     \
		if (rc != MPI_SUCCESS) return rc;    \
	}                                            \
	return MPI_SUCCESS

// One call on each of k buffers stride bytes apart: an iteration of the
// Agg16 rows' native side.
static int cb_bcast_members(char *buf, long stride, int k, int n) {
	for (int m = 0; m < k; m++) {
		int rc = MPI_Bcast(buf + m * stride, n, MPI_BYTE, 0, MPI_COMM_WORLD);
		if (rc != MPI_SUCCESS) return rc;
	}
	return MPI_SUCCESS;
}

static int cb_allreduce_members(const char *s, char *r, long stride, int k, int n) {
	for (int m = 0; m < k; m++) {
		int rc = MPI_Allreduce(s + m * stride, r + m * stride, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		if (rc != MPI_SUCCESS) return rc;
	}
	return MPI_SUCCESS;
}

int cb_pingpong(int rank, const void *sbuf, void *rbuf, int n, int iters) {
	if (rank == 0) {
		for (int i = 0; i < iters; i++) {
			int rc = MPI_Send(sbuf, n, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
			if (rc != MPI_SUCCESS) return rc;
			rc = MPI_Recv(rbuf, n, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			if (rc != MPI_SUCCESS) return rc;
		}
	} else if (rank == 1) {
		for (int i = 0; i < iters; i++) {
			int rc = MPI_Recv(rbuf, n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			if (rc != MPI_SUCCESS) return rc;
			rc = MPI_Send(sbuf, n, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
			if (rc != MPI_SUCCESS) return rc;
		}
	}
	return MPI_SUCCESS;
}

// The stream: rank 0 sends iters messages of n bytes to rank 1, a window of
// CB_WINDOW at a time (MPI_Isend all, then MPI_Waitall), as OSU's osu_bw;
// rank 1 receives them all into one buffer (the other ranks do nothing).
// After each full window rank 1
// sends a zero-byte reply, which makes rank 0's time include the delivery.
// *at counts the messages of earlier calls: windows are counted over the
// whole row, since the harness may split a row into calls differently on
// the two ranks. Tags 2 and 3.
#define CB_WINDOW 64
int cb_stream(int rank, const void *sbuf, void *rbuf, int n, int iters, long long *at) {
	if (rank > 1) return MPI_SUCCESS;
	MPI_Request rq[CB_WINDOW];
	while (iters > 0) {
		int w = CB_WINDOW - (int)(*at % CB_WINDOW);
		if (w > iters) w = iters;
		for (int j = 0; j < w; j++) {
			int rc = rank == 0 ? MPI_Isend(sbuf, n, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &rq[j])
			                   : MPI_Irecv(rbuf, n, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &rq[j]);
			if (rc != MPI_SUCCESS) return rc;
		}
		int rc = MPI_Waitall(w, rq, MPI_STATUSES_IGNORE);
		if (rc != MPI_SUCCESS) return rc;
		iters -= w;
		*at += w;
		if (*at % CB_WINDOW != 0) continue;
		rc = rank == 0 ? MPI_Recv(NULL, 0, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
		               : MPI_Send(NULL, 0, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
		if (rc != MPI_SUCCESS) return rc;
	}
	return MPI_SUCCESS;
}

int cb_barrier(int iters) { LOOP(MPI_Barrier(MPI_COMM_WORLD)); }

int cb_bcast(void *buf, int n, int iters) { LOOP(MPI_Bcast(buf, n, MPI_BYTE, 0, MPI_COMM_WORLD)); }

int cb_bcast_each(void *buf, long stride, int k, int n, int iters) {
	LOOP(cb_bcast_members((char *)buf, stride, k, n));
}

int cb_allreduce_each(const void *s, void *r, long stride, int k, int n, int iters) {
	LOOP(cb_allreduce_members((const char *)s, (char *)r, stride, k, n));
}

int cb_reduce(const double *s, double *r, int n, int iters) {
	LOOP(MPI_Reduce(s, r, n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD));
}

int cb_allreduce(const double *s, double *r, int n, int iters) {
	LOOP(MPI_Allreduce(s, r, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
}

int cb_gather(const void *s, void *r, int n, int iters) {
	LOOP(MPI_Gather(s, n, MPI_BYTE, r, n, MPI_BYTE, 0, MPI_COMM_WORLD));
}

int cb_scatter(const void *s, void *r, int n, int iters) {
	LOOP(MPI_Scatter(s, n, MPI_BYTE, r, n, MPI_BYTE, 0, MPI_COMM_WORLD));
}

int cb_allgather(const void *s, void *r, int n, int iters) {
	LOOP(MPI_Allgather(s, n, MPI_BYTE, r, n, MPI_BYTE, MPI_COMM_WORLD));
}

int cb_alltoall(const void *s, void *r, int n, int iters) {
	LOOP(MPI_Alltoall(s, n, MPI_BYTE, r, n, MPI_BYTE, MPI_COMM_WORLD));
}

int cb_scan(const double *s, double *r, int n, int iters) {
	LOOP(MPI_Scan(s, r, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
}

int cb_exscan(const double *s, double *r, int n, int iters) {
	LOOP(MPI_Exscan(s, r, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
}

int cb_reduce_scatter_block(const double *s, double *r, int n, int iters) {
	LOOP(MPI_Reduce_scatter_block(s, r, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
}

int cb_ibcast(void *buf, int n, int iters) {
	for (int i = 0; i < iters; i++) {
		MPI_Request req;
		int rc = MPI_Ibcast(buf, n, MPI_BYTE, 0, MPI_COMM_WORLD, &req);
		if (rc != MPI_SUCCESS) return rc;
		rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
		if (rc != MPI_SUCCESS) return rc;
	}
	return MPI_SUCCESS;
}

int cb_iallreduce(const double *s, double *r, int n, int iters) {
	for (int i = 0; i < iters; i++) {
		MPI_Request req;
		int rc = MPI_Iallreduce(s, r, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
		if (rc != MPI_SUCCESS) return rc;
		rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
		if (rc != MPI_SUCCESS) return rc;
	}
	return MPI_SUCCESS;
}

// cb_blocks lays out np blocks of n one after another.
static void cb_blocks(int np, int n, int *counts, int *displs) {
	for (int i = 0; i < np; i++) {
		counts[i] = n;
		displs[i] = i * n;
	}
}

// The v forms build their counts and displacements once per call, as the
// Go loops do, on the stack.
#define CB_V(call)                                    \
	int np;                                       \
	MPI_Comm_size(MPI_COMM_WORLD, &np);           \
	int counts[np], displs[np];                   \
	cb_blocks(np, n, counts, displs);             \
	LOOP(call)

int cb_gatherv(const void *s, void *r, int n, int iters) {
	CB_V(MPI_Gatherv(s, n, MPI_BYTE, r, counts, displs, MPI_BYTE, 0, MPI_COMM_WORLD));
}

int cb_allgatherv(const void *s, void *r, int n, int iters) {
	CB_V(MPI_Allgatherv(s, n, MPI_BYTE, r, counts, displs, MPI_BYTE, MPI_COMM_WORLD));
}

int cb_alltoallv(const void *s, void *r, int n, int iters) {
	CB_V(MPI_Alltoallv(s, counts, displs, MPI_BYTE, r, counts, displs, MPI_BYTE, MPI_COMM_WORLD));
}

int cb_reduce_scatter(const double *s, double *r, int n, int iters) {
	CB_V(MPI_Reduce_scatter(s, r, counts, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
}

// The persistent collectives are MPI-4's MPI_*_init (MPICH 4); Open MPI 4.1
// ships them as its extension MPIX_*_init in mpi-ext.h.
#if MPI_VERSION >= 4
#define CB_INIT(name) MPI_##name##_init
#else
#include <mpi-ext.h>
#define CB_INIT(name) MPIX_##name##_init
#endif

cb_state *cb_state_new(void) {
	cb_state *st = malloc(sizeof *st);
	if (st == NULL) return NULL;
	cb_plan none = {MPI_REQUEST_NULL, NULL, NULL, -1};
	st->allreduce = st->bcast = none;
	st->cart = MPI_COMM_NULL;
	return st;
}

// cb_replan frees p's request unless it was made for s, r and n; it
// returns whether p must be made (again).
static int cb_replan(cb_plan *p, const void *s, void *r, int n, int *rc) {
	*rc = MPI_SUCCESS;
	if (p->req != MPI_REQUEST_NULL && p->s == s && p->r == r && p->n == n) return 0;
	if (p->req != MPI_REQUEST_NULL) *rc = MPI_Request_free(&p->req);
	p->s = s, p->r = r, p->n = n;
	return *rc == MPI_SUCCESS;
}

// cb_start_wait runs iters starts of the persistent request q, each waited for.
static int cb_start_wait(MPI_Request *q, int iters) {
	for (int i = 0; i < iters; i++) {
		int rc = MPI_Start(q);
		if (rc == MPI_SUCCESS) rc = MPI_Wait(q, MPI_STATUS_IGNORE);
		if (rc != MPI_SUCCESS) return rc;
	}
	return MPI_SUCCESS;
}

int cb_allreduce_init(cb_state *st, const double *s, double *r, int n, int iters) {
	int rc;
	if (cb_replan(&st->allreduce, s, r, n, &rc))
		rc = CB_INIT(Allreduce)(s, r, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &st->allreduce.req);
	return rc != MPI_SUCCESS ? rc : cb_start_wait(&st->allreduce.req, iters);
}

int cb_bcast_init(cb_state *st, void *buf, int n, int iters) {
	int rc;
	if (cb_replan(&st->bcast, buf, buf, n, &rc))
		rc = CB_INIT(Bcast)(buf, n, MPI_BYTE, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &st->bcast.req);
	return rc != MPI_SUCCESS ? rc : cb_start_wait(&st->bcast.req, iters);
}

int cb_neighbor_alltoall(cb_state *st, const void *s, void *r, int n, int iters) {
	if (st->cart == MPI_COMM_NULL) {
		int np, periodic = 1;
		MPI_Comm_size(MPI_COMM_WORLD, &np);
		int rc = MPI_Cart_create(MPI_COMM_WORLD, 1, &np, &periodic, 0, &st->cart);
		if (rc != MPI_SUCCESS) return rc;
	}
	LOOP(MPI_Neighbor_alltoall(s, n, MPI_BYTE, r, n, MPI_BYTE, st->cart));
}

int cb_state_free(cb_state *st) {
	int rc = MPI_SUCCESS, c;
	cb_plan *plans[] = {&st->allreduce, &st->bcast};
	for (int i = 0; i < 2; i++) {
		if (plans[i]->req != MPI_REQUEST_NULL && (c = MPI_Request_free(&plans[i]->req)) != MPI_SUCCESS && rc == MPI_SUCCESS) rc = c;
	}
	if (st->cart != MPI_COMM_NULL && (c = MPI_Comm_free(&st->cart)) != MPI_SUCCESS && rc == MPI_SUCCESS) rc = c;
	free(st);
	return rc;
}

void cb_error_string(int code, char *buf, int len) {
	char s[MPI_MAX_ERROR_STRING];
	int n = 0;
	if (MPI_Error_string(code, s, &n) != MPI_SUCCESS) n = 0;
	if (n > len - 1) n = len - 1;
	memcpy(buf, s, n);
	buf[n] = 0;
}

// The nonblocking data-movement collectives, initiated and waited for in turn.
#define CB_NB(name, call)                                                     \
	int name(const void *s, void *r, int n, int iters) {                  \
		for (int i = 0; i < iters; i++) {                             \
			MPI_Request req;                                      \
			int rc = call;                                        \
			if (rc != MPI_SUCCESS) return rc;                     \
			rc = MPI_Wait(&req, MPI_STATUS_IGNORE);               \
			if (rc != MPI_SUCCESS) return rc;                     \
		}                                                             \
		return MPI_SUCCESS;                                           \
	}

CB_NB(cb_igather, MPI_Igather(s, n, MPI_BYTE, r, n, MPI_BYTE, 0, MPI_COMM_WORLD, &req))
CB_NB(cb_iscatter, MPI_Iscatter(s, n, MPI_BYTE, r, n, MPI_BYTE, 0, MPI_COMM_WORLD, &req))
CB_NB(cb_iallgather, MPI_Iallgather(s, n, MPI_BYTE, r, n, MPI_BYTE, MPI_COMM_WORLD, &req))
CB_NB(cb_ialltoall, MPI_Ialltoall(s, n, MPI_BYTE, r, n, MPI_BYTE, MPI_COMM_WORLD, &req))
