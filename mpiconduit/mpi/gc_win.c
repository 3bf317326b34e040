#include <stdlib.h>
#include <string.h>
#include "gc_win.h"

int gc_win_allocate(MPI_Aint size, int disp_unit, MPI_Comm c, void **base, MPI_Win *w) {
#ifdef MPICH_VERSION
	// MPICH 4.0.2 lays the parts of a window within one node end to end, and
	// publishes each part's base rounded down to 16 bytes (see gc_win_skew):
	// parts rounded up to 16 bytes keep every base where it is published,
	// whatever the displacement unit (init in window.go could only redirect
	// shifts that are multiples of it).
	size = (size + 15) / 16 * 16;
#endif
	return MPI_Win_allocate(size, disp_unit, MPI_INFO_NULL, c, base, w);
}

int gc_win_create(void *base, MPI_Aint size, int disp_unit, MPI_Comm c, MPI_Win *w) {
	return MPI_Win_create(base, size, disp_unit, MPI_INFO_NULL, c, w);
}

int gc_win_create_dynamic(MPI_Comm c, MPI_Win *w) { return MPI_Win_create_dynamic(MPI_INFO_NULL, c, w); }

int gc_win_attach(MPI_Win w, void *base, MPI_Aint size, MPI_Aint *addr) {
	int rc = MPI_Win_attach(w, base, size);
	if (rc == MPI_SUCCESS) rc = MPI_Get_address(base, addr);
	return rc;
}

int gc_win_detach(MPI_Win w, void *base) { return MPI_Win_detach(w, base); }

int gc_win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Comm c, void **base, MPI_Win *w) {
	return MPI_Win_allocate_shared(size, disp_unit, MPI_INFO_NULL, c, base, w);
}

int gc_win_shared_query(MPI_Win w, int rank, void **base, long long *size) {
	MPI_Aint sz = 0;
	int du = 0;
	void *b = NULL;
	int rc = MPI_Win_shared_query(w, rank, &sz, &du, &b);
	*base = b;
	*size = (long long)sz;
	return rc;
}

int gc_comm_split_shared(MPI_Comm c, MPI_Comm *out) {
	return MPI_Comm_split_type(c, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, out);
}

long long gc_win_skew(MPI_Win w, void *base) {
	void *published = NULL;
	int flag = 0;
	if (base == NULL || MPI_Win_get_attr(w, MPI_WIN_BASE, &published, &flag) != MPI_SUCCESS || !flag) return 0;
	return (long long)((uintptr_t)base - (uintptr_t)published);
}

int gc_win_shape(MPI_Comm c, long long size, int disp_unit, long long skew, long long *out) {
	long long mine[3] = {size, disp_unit, skew};
	return MPI_Allgather(mine, 3, MPI_LONG_LONG, out, 3, MPI_LONG_LONG, c);
}

// group_of builds the group of the listed ranks of w's group; the caller frees it.
static int group_of(MPI_Win w, int n, const int *ranks, MPI_Group *g) {
	MPI_Group all;
	int rc = MPI_Win_get_group(w, &all);
	if (rc != MPI_SUCCESS) return rc;
	rc = MPI_Group_incl(all, n, ranks, g);
	MPI_Group_free(&all);
	return rc;
}

// MPI keeps its own reference to the group during the epoch, so ours is
// freed right after the call.
int gc_win_post(MPI_Win w, int n, const int *ranks, int assert) {
	MPI_Group g;
	int rc = group_of(w, n, ranks, &g);
	if (rc != MPI_SUCCESS) return rc;
	rc = MPI_Win_post(g, assert, w);
	MPI_Group_free(&g);
	return rc;
}

int gc_win_start(MPI_Win w, int n, const int *ranks, int assert) {
	MPI_Group g;
	int rc = group_of(w, n, ranks, &g);
	if (rc != MPI_SUCCESS) return rc;
	rc = MPI_Win_start(g, assert, w);
	MPI_Group_free(&g);
	return rc;
}

int gc_win_name(MPI_Win w, char *buf, int len) {
	char name[MPI_MAX_OBJECT_NAME + 1] = {0};
	int n = 0, rc = MPI_Win_get_name(w, name, &n);
	if (len <= 0) return rc;
	strncpy(buf, name, (size_t)len - 1);
	buf[len - 1] = 0;
	return rc;
}

int gc_library_version(char *buf, int len) {
	char v[MPI_MAX_LIBRARY_VERSION_STRING + 1] = {0};
	int n = 0, rc = MPI_Get_library_version(v, &n);
	if (len <= 0) return rc;
	strncpy(buf, v, (size_t)len - 1);
	buf[len - 1] = 0;
	return rc;
}

int gc_one_node(MPI_Comm c, int *flag) {
	MPI_Comm node;
	int size, nsize, rc = MPI_Comm_split_type(c, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
	if (rc != MPI_SUCCESS) return rc;
	MPI_Comm_size(c, &size);
	MPI_Comm_size(node, &nsize);
	*flag = size == nsize;
	return MPI_Comm_free(&node);
}

int gc_osc_param(char *buf, int len) {
	int prov, idx, count, rc = -1;
	MPI_T_cvar_handle h;
	if (len <= 0 || MPI_T_init_thread(MPI_THREAD_MULTIPLE, &prov) != MPI_SUCCESS) return -1;
	if (MPI_T_cvar_get_index("osc", &idx) == MPI_SUCCESS &&
	    MPI_T_cvar_handle_alloc(idx, NULL, &h, &count) == MPI_SUCCESS) {
		// A string variable's count is its capacity, which may exceed len.
		char *tmp = calloc((size_t)count + 1, 1);
		if (tmp != NULL && MPI_T_cvar_read(h, tmp) == MPI_SUCCESS) {
			strncpy(buf, tmp, (size_t)len - 1);
			buf[len - 1] = 0;
			rc = 0;
		}
		free(tmp);
		MPI_T_cvar_handle_free(&h);
	}
	MPI_T_finalize();
	return rc;
}

int gc_put(const char *o, int n, uintptr_t dt, int target, MPI_Aint disp, uintptr_t w) {
	return MPI_Put(o, n, GC_TYPE(dt), target, disp, n, GC_TYPE(dt), GC_WIN(w));
}

int gc_get(char *o, int n, uintptr_t dt, int target, MPI_Aint disp, uintptr_t w) {
	return MPI_Get(o, n, GC_TYPE(dt), target, disp, n, GC_TYPE(dt), GC_WIN(w));
}

int gc_accumulate(const char *o, int n, uintptr_t dt, int target, MPI_Aint disp, uintptr_t op, uintptr_t w) {
	return MPI_Accumulate(o, n, GC_TYPE(dt), target, disp, n, GC_TYPE(dt), GC_OP(op), GC_WIN(w));
}

int gc_get_accumulate(const char *o, int on, uintptr_t odt, char *r, int rn, uintptr_t rdt, int target,
	MPI_Aint disp, uintptr_t op, uintptr_t w) {
	return MPI_Get_accumulate(o, on, GC_TYPE(odt), r, rn, GC_TYPE(rdt), target, disp, rn, GC_TYPE(rdt),
		GC_OP(op), GC_WIN(w));
}

int gc_fetch_and_op(const char *o, char *r, uintptr_t dt, int target, MPI_Aint disp, uintptr_t op, uintptr_t w) {
	return MPI_Fetch_and_op(o, r, GC_TYPE(dt), target, disp, GC_OP(op), GC_WIN(w));
}

int gc_compare_and_swap(const char *o, const char *c, char *r, uintptr_t dt, int target, MPI_Aint disp,
	uintptr_t w) {
	return MPI_Compare_and_swap(o, c, r, GC_TYPE(dt), target, disp, GC_WIN(w));
}

int gc_win_fence(int assert, uintptr_t w) { return MPI_Win_fence(assert, GC_WIN(w)); }
int gc_win_complete(uintptr_t w) { return MPI_Win_complete(GC_WIN(w)); }
int gc_win_wait(uintptr_t w) { return MPI_Win_wait(GC_WIN(w)); }

gc_result gc_win_test(uintptr_t w) {
	gc_result r = {0};
	r.rc = MPI_Win_test(GC_WIN(w), &r.flag);
	return r;
}

int gc_win_lock(int lt, int rank, int assert, uintptr_t w) { return MPI_Win_lock(lt, rank, assert, GC_WIN(w)); }
int gc_win_unlock(int rank, uintptr_t w) { return MPI_Win_unlock(rank, GC_WIN(w)); }
int gc_win_lock_all(int assert, uintptr_t w) { return MPI_Win_lock_all(assert, GC_WIN(w)); }
int gc_win_unlock_all(uintptr_t w) { return MPI_Win_unlock_all(GC_WIN(w)); }
int gc_win_flush(int rank, uintptr_t w) { return MPI_Win_flush(rank, GC_WIN(w)); }
int gc_win_flush_all(uintptr_t w) { return MPI_Win_flush_all(GC_WIN(w)); }
int gc_win_flush_local(int rank, uintptr_t w) { return MPI_Win_flush_local(rank, GC_WIN(w)); }
int gc_win_flush_local_all(uintptr_t w) { return MPI_Win_flush_local_all(GC_WIN(w)); }
int gc_win_sync(uintptr_t w) { return MPI_Win_sync(GC_WIN(w)); }

gc_result gc_put_notify(const char *o, int n, int target, MPI_Aint disp, uintptr_t w, int tag, uintptr_t c) {
	gc_result r = {0};
	MPI_Request q = MPI_REQUEST_NULL;
	r.rc = MPI_Put(o, n, MPI_BYTE, target, disp, n, MPI_BYTE, GC_WIN(w));
	if (r.rc != MPI_SUCCESS) return r;
	r.index = 1;
	r.rc = MPI_Win_flush(target, GC_WIN(w));
	if (r.rc != MPI_SUCCESS) return r;
	r.index = 2;
	r.rc = MPI_Isend(NULL, 0, MPI_BYTE, target, tag, GC_COMM(c), &q);
	if (r.rc != MPI_SUCCESS) return r;
	r.index = 3;
	r.rc = MPI_Test(&q, &r.flag, MPI_STATUS_IGNORE);
	r.req = (uintptr_t)q;
	return r;
}

gc_result gc_get_now(char *o, int n, int src, MPI_Aint disp, uintptr_t w) {
	gc_result r = {0};
	r.rc = MPI_Get(o, n, MPI_BYTE, src, disp, n, MPI_BYTE, GC_WIN(w));
	if (r.rc != MPI_SUCCESS) return r;
	r.index = 1;
	r.rc = MPI_Win_flush_local(src, GC_WIN(w));
	return r;
}
