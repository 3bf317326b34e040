// C helpers for the mpi binding (package mpiconduit/mpi). Open MPI's handles
// and constants are macros over addresses of globals, which cgo cannot always
// evaluate, so they are returned from small functions instead.
#ifndef GOCOLL_GC_H
#define GOCOLL_GC_H
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

MPI_Comm gc_comm_world(void);
MPI_Comm gc_comm_self(void);
MPI_Comm gc_comm_null(void);
MPI_Request gc_request_null(void);
MPI_Win gc_win_null(void);
MPI_Op gc_op_null(void);
void *gc_in_place(void);
void *gc_bottom(void);
MPI_Datatype gc_datatype(int code);
MPI_Op gc_op(int code);

int gc_set_errors_return_comm(MPI_Comm c);
int gc_set_errors_return_win(MPI_Win w);
int gc_tag_ub(int *ub);
int gc_error_string(int code, char *buf, int *len, int *cls);

// Status without the struct: source, tag, error, cancelled flag and byte count.
typedef struct { int source, tag, error, cancelled; long long count; } gc_status;
void gc_fill_status(MPI_Status *s, MPI_Datatype dt, gc_status *out);

// The hot-path wrappers below are shaped for cgo's cost model:
//   - MPI handles (MPI_Comm, MPI_Datatype, MPI_Op, MPI_Request) cross as
//     uintptr_t: in Open MPI they are pointers to C structs, and a C pointer
//     argument makes cgo check at run time that it is not a Go pointer.
//   - Buffers cross as char *: gocoll's buffers hold only numbers, and a
//     pointer to a pointer-free type needs no cgo pointer check (void * does).
//   - Outputs come back by value (gc_result, gc_start), never through a
//     pointer to Go memory, which would force the Go variable to the heap.
// None is marked #cgo nocallback: any call that lets Open MPI progress may
// run a pending nonblocking reduction, and with it a Go user operator.
#define GC_COMM(h) ((MPI_Comm)(h))
#define GC_TYPE(h) ((MPI_Datatype)(h))
#define GC_OP(h) ((MPI_Op)(h))
#define GC_REQ(h) ((MPI_Request)(h))

// gc_result is what a receive, probe, test or wait returns: MPI's return
// code, the completion flag (test, iprobe, testall, testany) or the outcount
// (testsome), the index (testany), the request handle as MPI left it (test,
// wait) and the status (filled when rc is MPI_SUCCESS and an operation
// completed).
typedef struct {
	int rc, flag, index;
	uintptr_t req;
	gc_status st;
} gc_result;

// gc_start is what starting a nonblocking operation returns.
typedef struct {
	int rc;
	uintptr_t req;
} gc_start;

uintptr_t gc_request_null_h(void);

int gc_send(const char *b, int n, uintptr_t dt, int dest, int tag, uintptr_t c);
gc_result gc_recv(char *b, int n, uintptr_t dt, int src, int tag, uintptr_t c);
gc_result gc_probe(int src, int tag, uintptr_t c);
gc_result gc_iprobe(int src, int tag, uintptr_t c);
gc_start gc_isend(const char *b, int n, uintptr_t dt, int dest, int tag, uintptr_t c);
gc_start gc_irecv(char *b, int n, uintptr_t dt, int src, int tag, uintptr_t c);
int gc_barrier(uintptr_t c);

// The batched layer's small transfers (batch.go) go through C memory (bounce,
// from the Go caller's pool) so that MPI never holds a Go pointer past the
// call and no pinning is needed, and they are tested in the same call: an
// eager send, or a receive whose message has already arrived, completes here
// (flag set, request freed) and costs one cgo call in all.
gc_result gc_isend_bounce(const char *b, int n, char *bounce, int dest, int tag, uintptr_t c);
gc_result gc_irecv_bounce(char *b, int n, char *bounce, int src, int tag, uintptr_t c);

// gc_start_persistent starts a persistent request (MPI_Start) and
// gc_request_free frees an inactive one (MPI_Request_free).
gc_start gc_start_persistent(uintptr_t r);
int gc_request_free(uintptr_t r);
gc_result gc_test(uintptr_t r, uintptr_t dt);
gc_result gc_wait(uintptr_t r, uintptr_t dt);
int gc_cancel(uintptr_t r);

// The multi-request calls take arrays of request handles held as uintptr_t
// (the same bits as MPI_Request) and update them in place.
gc_result gc_testall(int n, uintptr_t *rs);
int gc_waitall(int n, uintptr_t *rs);
gc_result gc_testany(int n, uintptr_t *rs);
gc_result gc_testsome(int n, uintptr_t *rs, int *indices);
// gc_progress lets MPI progress: an MPI_Iprobe whose answer it drops.
int gc_progress(uintptr_t c);

#endif
