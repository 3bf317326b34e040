// C helpers for the one-sided (RMA) part of the mpi binding. They exist
// where the Go side would need MPI_INFO_NULL (a macro over a global) or would
// otherwise cross cgo several times for one operation.
#ifndef GOCOLL_GC_WIN_H
#define GOCOLL_GC_WIN_H
#include <mpi.h>
#include "gc.h"

int gc_win_allocate(MPI_Aint size, int disp_unit, MPI_Comm c, void **base, MPI_Win *w);
int gc_win_create(void *base, MPI_Aint size, int disp_unit, MPI_Comm c, MPI_Win *w);
int gc_win_create_dynamic(MPI_Comm c, MPI_Win *w);
int gc_win_attach(MPI_Win w, void *base, MPI_Aint size, MPI_Aint *addr);
int gc_win_detach(MPI_Win w, void *base);
int gc_win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Comm c, void **base, MPI_Win *w);
// rank's part of a shared window: its base address and size.
int gc_win_shared_query(MPI_Win w, int rank, void **base, long long *size);
int gc_comm_split_shared(MPI_Comm c, MPI_Comm *out);

// How many bytes base (this rank's window memory) lies above the base the
// window publishes to the others (MPI_WIN_BASE), where their one-sided
// operations land: 0, unless the MPI moved it (window.go, init).
long long gc_win_skew(MPI_Win w, void *base);

// Every rank's window size, displacement unit and skew, gathered into out
// as n triples {size, disp_unit, skew}, so that target ranges can be
// checked, and displacements corrected, locally.
int gc_win_shape(MPI_Comm c, long long size, int disp_unit, long long skew, long long *out);

// Post and start over the group of the listed ranks of the window's group.
int gc_win_post(MPI_Win w, int n, const int *ranks, int assert);
int gc_win_start(MPI_Win w, int n, const int *ranks, int assert);

// Facts about how the MPI library serves w, for working around its bugs:
// the window's name (Open MPI names it after its osc component), the library
// version string, and whether every process of c is on one node (collective).
int gc_win_name(MPI_Win w, char *buf, int len);
int gc_library_version(char *buf, int len);
int gc_one_node(MPI_Comm c, int *flag);

// The value of Open MPI's "osc" MCA parameter (component selection), read
// through the MPI tool interface; -1 when it cannot be read.
int gc_osc_param(char *buf, int len);

// The one-sided operations and the epoch calls, with handles and buffers
// crossing as in gc.h (uintptr_t handles, char * buffers).
#define GC_WIN(h) ((MPI_Win)(h))
int gc_put(const char *o, int n, uintptr_t dt, int target, MPI_Aint disp, uintptr_t w);
int gc_get(char *o, int n, uintptr_t dt, int target, MPI_Aint disp, uintptr_t w);
int gc_accumulate(const char *o, int n, uintptr_t dt, int target, MPI_Aint disp, uintptr_t op, uintptr_t w);
int gc_get_accumulate(const char *o, int on, uintptr_t odt, char *r, int rn, uintptr_t rdt, int target,
	MPI_Aint disp, uintptr_t op, uintptr_t w);
int gc_fetch_and_op(const char *o, char *r, uintptr_t dt, int target, MPI_Aint disp, uintptr_t op, uintptr_t w);
int gc_compare_and_swap(const char *o, const char *c, char *r, uintptr_t dt, int target, MPI_Aint disp,
	uintptr_t w);
int gc_win_fence(int assert, uintptr_t w);
int gc_win_complete(uintptr_t w);
int gc_win_wait(uintptr_t w);
gc_result gc_win_test(uintptr_t w);
int gc_win_lock(int lt, int rank, int assert, uintptr_t w);
int gc_win_unlock(int rank, uintptr_t w);
int gc_win_lock_all(int assert, uintptr_t w);
int gc_win_unlock_all(uintptr_t w);
int gc_win_flush(int rank, uintptr_t w);
int gc_win_flush_all(uintptr_t w);
int gc_win_flush_local(int rank, uintptr_t w);
int gc_win_flush_local_all(uintptr_t w);
int gc_win_sync(uintptr_t w);

// The batched layer's one-sided transfers (batch.go), one cgo call each that
// completes the transfer, so that MPI keeps no pointer to the origin buffer
// past the call. gc_put_notify puts n bytes into target's window at disp,
// completes them there (MPI_Win_flush), then starts a zero-byte
// notification to target with tag on c and tests it. gc_get_now gets n
// bytes and completes the get (MPI_Win_flush_local). On failure, index is
// the step that failed: 0 put or get, 1 flush, 2 isend, 3 test.
gc_result gc_put_notify(const char *o, int n, int target, MPI_Aint disp, uintptr_t w, int tag, uintptr_t c);
gc_result gc_get_now(char *o, int n, int src, MPI_Aint disp, uintptr_t w);

#endif
