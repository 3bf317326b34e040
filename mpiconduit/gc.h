// C helpers for the mpiconduit binding. Open MPI's handles and constants are
// macros over addresses of globals, which cgo cannot always evaluate, so they
// are returned from small functions instead.
#ifndef GOCOLL_GC_H
#define GOCOLL_GC_H
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

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

int gc_recv(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm c, gc_status *st);
int gc_probe(int src, int tag, MPI_Comm c, gc_status *st);
int gc_iprobe(int src, int tag, MPI_Comm c, int *flag, gc_status *st);
int gc_test(MPI_Request *r, int *flag, MPI_Datatype dt, gc_status *st);
int gc_wait(MPI_Request *r, MPI_Datatype dt, gc_status *st);
int gc_testall(int n, MPI_Request *rs, int *flag);
int gc_waitall(int n, MPI_Request *rs);
int gc_testany(int n, MPI_Request *rs, int *index, int *flag, gc_status *st);
int gc_testsome(int n, MPI_Request *rs, int *outcount, int *indices);

#endif
