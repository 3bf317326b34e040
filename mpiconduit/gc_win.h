// C helpers for the one-sided (RMA) part of the mpiconduit binding. They exist
// where the Go side would need MPI_INFO_NULL (a macro over a global) or would
// otherwise cross cgo several times for one operation.
#ifndef GOCOLL_GC_WIN_H
#define GOCOLL_GC_WIN_H
#include <mpi.h>

int gc_win_allocate(MPI_Aint size, int disp_unit, MPI_Comm c, void **base, MPI_Win *w);
int gc_win_create(void *base, MPI_Aint size, int disp_unit, MPI_Comm c, MPI_Win *w);

// Every rank's window size and displacement unit, gathered into out as
// n pairs {size, disp_unit}, so that target ranges can be checked locally.
int gc_win_shape(MPI_Comm c, long long size, int disp_unit, long long *out);

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

#endif
