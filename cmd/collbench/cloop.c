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
