#include "gc.h"

// MPICH's MPI_STATUSES_IGNORE is (MPI_Status *)1, which gcc 12 takes for an
// array of size 0 and warns about at every call that passes it.
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#include <stdlib.h>
#include <string.h>

MPI_Comm gc_comm_world(void) { return MPI_COMM_WORLD; }
MPI_Comm gc_comm_self(void) { return MPI_COMM_SELF; }
MPI_Comm gc_comm_null(void) { return MPI_COMM_NULL; }
MPI_Request gc_request_null(void) { return MPI_REQUEST_NULL; }
MPI_Win gc_win_null(void) { return MPI_WIN_NULL; }
MPI_Op gc_op_null(void) { return MPI_OP_NULL; }
void *gc_in_place(void) { return MPI_IN_PLACE; }
void *gc_bottom(void) { return MPI_BOTTOM; }

// The codes must match the Go constants in datatype.go.
MPI_Datatype gc_datatype(int code) {
	switch (code) {
	case 1: return MPI_BYTE;
	case 2: return MPI_INT8_T;
	case 3: return MPI_INT16_T;
	case 4: return MPI_INT32_T;
	case 5: return MPI_INT64_T;
	case 6: return MPI_UINT8_T;
	case 7: return MPI_UINT16_T;
	case 8: return MPI_UINT32_T;
	case 9: return MPI_UINT64_T;
	case 10: return MPI_FLOAT;
	case 11: return MPI_DOUBLE;
	case 12: return MPI_C_FLOAT_COMPLEX;
	case 13: return MPI_C_DOUBLE_COMPLEX;
	case 14: return MPI_FLOAT_INT;
	case 15: return MPI_DOUBLE_INT;
	case 16: return MPI_2INT;
	case 17: return MPI_LONG_INT;
	}
	return MPI_DATATYPE_NULL;
}

// The codes must match the Go constants in op.go.
MPI_Op gc_op(int code) {
	switch (code) {
	case 1: return MPI_SUM;
	case 2: return MPI_PROD;
	case 3: return MPI_MIN;
	case 4: return MPI_MAX;
	case 5: return MPI_LAND;
	case 6: return MPI_LOR;
	case 7: return MPI_LXOR;
	case 8: return MPI_BAND;
	case 9: return MPI_BOR;
	case 10: return MPI_BXOR;
	case 11: return MPI_MINLOC;
	case 12: return MPI_MAXLOC;
	case 13: return MPI_REPLACE;
	case 14: return MPI_NO_OP;
	}
	return MPI_OP_NULL;
}

int gc_set_errors_return_comm(MPI_Comm c) { return MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN); }
int gc_set_errors_return_win(MPI_Win w) { return MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN); }

int gc_tag_ub(int *ub) {
	int *v, flag;
	int rc = MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag);
	if (rc == MPI_SUCCESS) *ub = flag ? *v : 32767;
	return rc;
}

int gc_error_string(int code, char *buf, int *len, int *cls) {
	int rc = MPI_Error_class(code, cls);
	if (rc != MPI_SUCCESS) *cls = MPI_ERR_UNKNOWN;
	return MPI_Error_string(code, buf, len);
}

void gc_fill_status(MPI_Status *s, MPI_Datatype dt, gc_status *out) {
	if (out == NULL) return;
	out->source = s->MPI_SOURCE;
	out->tag = s->MPI_TAG;
	out->error = s->MPI_ERROR;
	int flag = 0;
	MPI_Test_cancelled(s, &flag);
	out->cancelled = flag;
	MPI_Count n = 0;
	MPI_Get_elements_x(s, dt, &n);
	out->count = (long long)n;
}

_Static_assert(sizeof(MPI_Request) <= sizeof(uintptr_t), "request handles fit in uintptr_t");

// Arrays of request handles are held as uintptr_t. Open MPI's handles are
// pointers, as wide: MPI works on the array in place. MPICH's are ints: the
// array is copied to MPI_Request around the call (on the stack up to
// GC_REQS_STACK handles), and back, since MPI sets completed ones to null.
#define GC_REQS_STACK 64
#define GC_REQS_IN_PLACE (sizeof(MPI_Request) == sizeof(uintptr_t))

// reqs_in returns rs as MPI_Request *, NULL when memory ran out.
static MPI_Request *reqs_in(int n, uintptr_t *rs, MPI_Request *stack) {
	if (GC_REQS_IN_PLACE) return (MPI_Request *)rs;
	MPI_Request *q = n <= GC_REQS_STACK ? stack : malloc((size_t)n * sizeof *q);
	if (q == NULL) return NULL;
	for (int i = 0; i < n; i++) q[i] = (MPI_Request)rs[i];
	return q;
}

static void reqs_out(int n, uintptr_t *rs, MPI_Request *q, MPI_Request *stack) {
	if (GC_REQS_IN_PLACE) return;
	for (int i = 0; i < n; i++) rs[i] = (uintptr_t)q[i];
	if (q != stack) free(q);
}

uintptr_t gc_request_null_h(void) { return (uintptr_t)MPI_REQUEST_NULL; }

int gc_send(const char *b, int n, uintptr_t dt, int dest, int tag, uintptr_t c) {
	return MPI_Send(b, n, GC_TYPE(dt), dest, tag, GC_COMM(c));
}

gc_result gc_recv(char *b, int n, uintptr_t dt, int src, int tag, uintptr_t c) {
	gc_result r = {0};
	MPI_Status s;
	r.rc = MPI_Recv(b, n, GC_TYPE(dt), src, tag, GC_COMM(c), &s);
	if (r.rc == MPI_SUCCESS) gc_fill_status(&s, GC_TYPE(dt), &r.st);
	return r;
}

gc_result gc_probe(int src, int tag, uintptr_t c) {
	gc_result r = {0};
	MPI_Status s;
	r.rc = MPI_Probe(src, tag, GC_COMM(c), &s);
	if (r.rc == MPI_SUCCESS) gc_fill_status(&s, MPI_BYTE, &r.st);
	return r;
}

gc_result gc_iprobe(int src, int tag, uintptr_t c) {
	gc_result r = {0};
	MPI_Status s;
	r.rc = MPI_Iprobe(src, tag, GC_COMM(c), &r.flag, &s);
	if (r.rc == MPI_SUCCESS && r.flag) gc_fill_status(&s, MPI_BYTE, &r.st);
	return r;
}

gc_start gc_isend(const char *b, int n, uintptr_t dt, int dest, int tag, uintptr_t c) {
	MPI_Request q = MPI_REQUEST_NULL;
	int rc = MPI_Isend(b, n, GC_TYPE(dt), dest, tag, GC_COMM(c), &q);
	return (gc_start){rc, (uintptr_t)q};
}

gc_start gc_irecv(char *b, int n, uintptr_t dt, int src, int tag, uintptr_t c) {
	MPI_Request q = MPI_REQUEST_NULL;
	int rc = MPI_Irecv(b, n, GC_TYPE(dt), src, tag, GC_COMM(c), &q);
	return (gc_start){rc, (uintptr_t)q};
}

int gc_barrier(uintptr_t c) { return MPI_Barrier(GC_COMM(c)); }

gc_result gc_isend_bounce(const char *b, int n, char *bounce, int dest, int tag, uintptr_t c) {
	gc_result r = {0};
	MPI_Request q = MPI_REQUEST_NULL;
	memcpy(bounce, b, n);
	r.rc = MPI_Isend(bounce, n, MPI_BYTE, dest, tag, GC_COMM(c), &q);
	if (r.rc == MPI_SUCCESS) r.rc = MPI_Test(&q, &r.flag, MPI_STATUS_IGNORE);
	r.req = (uintptr_t)q;
	return r;
}

gc_result gc_irecv_bounce(char *b, int n, char *bounce, int src, int tag, uintptr_t c) {
	gc_result r = {0};
	MPI_Request q = MPI_REQUEST_NULL;
	r.rc = MPI_Irecv(bounce, n, MPI_BYTE, src, tag, GC_COMM(c), &q);
	if (r.rc == MPI_SUCCESS) r.rc = MPI_Test(&q, &r.flag, MPI_STATUS_IGNORE);
	if (r.rc == MPI_SUCCESS && r.flag) memcpy(b, bounce, n);
	r.req = (uintptr_t)q;
	return r;
}

gc_result gc_test(uintptr_t h, uintptr_t dt) {
	gc_result r = {0};
	MPI_Request q = GC_REQ(h);
	MPI_Status s;
	r.rc = MPI_Test(&q, &r.flag, &s);
	r.req = (uintptr_t)q;
	if (r.rc == MPI_SUCCESS && r.flag) gc_fill_status(&s, GC_TYPE(dt), &r.st);
	return r;
}

gc_result gc_wait(uintptr_t h, uintptr_t dt) {
	gc_result r = {0};
	MPI_Request q = GC_REQ(h);
	MPI_Status s;
	r.rc = MPI_Wait(&q, &s);
	r.req = (uintptr_t)q;
	if (r.rc == MPI_SUCCESS) gc_fill_status(&s, GC_TYPE(dt), &r.st);
	return r;
}

gc_start gc_start_persistent(uintptr_t h) {
	MPI_Request q = GC_REQ(h);
	int rc = MPI_Start(&q);
	return (gc_start){rc, (uintptr_t)q};
}

int gc_request_free(uintptr_t h) {
	MPI_Request q = GC_REQ(h);
	return MPI_Request_free(&q);
}

int gc_cancel(uintptr_t h) {
	MPI_Request q = GC_REQ(h);
	return MPI_Cancel(&q);
}

gc_result gc_testall(int n, uintptr_t *rs) {
	gc_result r = {0};
	MPI_Request stack[GC_REQS_STACK], *q = reqs_in(n, rs, stack);
	if (q == NULL) return (gc_result){.rc = MPI_ERR_NO_MEM};
	r.rc = MPI_Testall(n, q, &r.flag, MPI_STATUSES_IGNORE);
	reqs_out(n, rs, q, stack);
	return r;
}

int gc_waitall(int n, uintptr_t *rs) {
	MPI_Request stack[GC_REQS_STACK], *q = reqs_in(n, rs, stack);
	if (q == NULL) return MPI_ERR_NO_MEM;
	int rc = MPI_Waitall(n, q, MPI_STATUSES_IGNORE);
	reqs_out(n, rs, q, stack);
	return rc;
}

gc_result gc_testany(int n, uintptr_t *rs) {
	gc_result r = {0};
	MPI_Status s;
	MPI_Request stack[GC_REQS_STACK], *q = reqs_in(n, rs, stack);
	if (q == NULL) return (gc_result){.rc = MPI_ERR_NO_MEM};
	r.rc = MPI_Testany(n, q, &r.index, &r.flag, &s);
	reqs_out(n, rs, q, stack);
	if (r.rc == MPI_SUCCESS && r.flag && r.index != MPI_UNDEFINED) gc_fill_status(&s, MPI_BYTE, &r.st);
	return r;
}

gc_result gc_testsome(int n, uintptr_t *rs, int *indices) {
	gc_result r = {0};
	MPI_Request stack[GC_REQS_STACK], *q = reqs_in(n, rs, stack);
	if (q == NULL) return (gc_result){.rc = MPI_ERR_NO_MEM};
	r.rc = MPI_Testsome(n, q, &r.flag, indices, MPI_STATUSES_IGNORE);
	reqs_out(n, rs, q, stack);
	return r;
}

int gc_progress(uintptr_t c) {
	int flag;
	return MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, GC_COMM(c), &flag, MPI_STATUS_IGNORE);
}
