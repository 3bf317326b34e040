#include "gc.h"

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

int gc_recv(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm c, gc_status *st) {
	MPI_Status s;
	int rc = MPI_Recv(buf, count, dt, src, tag, c, &s);
	if (rc == MPI_SUCCESS) gc_fill_status(&s, dt, st);
	return rc;
}

int gc_probe(int src, int tag, MPI_Comm c, gc_status *st) {
	MPI_Status s;
	int rc = MPI_Probe(src, tag, c, &s);
	if (rc == MPI_SUCCESS) gc_fill_status(&s, MPI_BYTE, st);
	return rc;
}

int gc_iprobe(int src, int tag, MPI_Comm c, int *flag, gc_status *st) {
	MPI_Status s;
	int rc = MPI_Iprobe(src, tag, c, flag, &s);
	if (rc == MPI_SUCCESS && *flag) gc_fill_status(&s, MPI_BYTE, st);
	return rc;
}

int gc_test(MPI_Request *r, int *flag, MPI_Datatype dt, gc_status *st) {
	MPI_Status s;
	int rc = MPI_Test(r, flag, &s);
	if (rc == MPI_SUCCESS && *flag) gc_fill_status(&s, dt, st);
	return rc;
}

int gc_wait(MPI_Request *r, MPI_Datatype dt, gc_status *st) {
	MPI_Status s;
	int rc = MPI_Wait(r, &s);
	if (rc == MPI_SUCCESS) gc_fill_status(&s, dt, st);
	return rc;
}

int gc_testall(int n, MPI_Request *rs, int *flag) { return MPI_Testall(n, rs, flag, MPI_STATUSES_IGNORE); }
int gc_waitall(int n, MPI_Request *rs) { return MPI_Waitall(n, rs, MPI_STATUSES_IGNORE); }

int gc_testany(int n, MPI_Request *rs, int *index, int *flag, gc_status *st) {
	MPI_Status s;
	int rc = MPI_Testany(n, rs, index, flag, &s);
	if (rc == MPI_SUCCESS && *flag && *index != MPI_UNDEFINED) gc_fill_status(&s, MPI_BYTE, st);
	return rc;
}

int gc_testsome(int n, MPI_Request *rs, int *outcount, int *indices) {
	return MPI_Testsome(n, rs, outcount, indices, MPI_STATUSES_IGNORE);
}
