//go:build !mpich

package mpi

// The binding's Open MPI side (the default; the build tag mpich selects
// mpich.go instead): how cgo finds the library, and how its handles cross
// cgo. Open MPI's handles are pointers to C structs; they cross as
// integers (see gc.h) so that cgo does not check them as pointers.

/*
#cgo pkg-config: ompi-c
#include <mpi.h>
#include <stdint.h>
*/
import "C"

import "unsafe"

// Library is the MPI implementation the binding was built against:
// "openmpi" by default, "mpich" with the build tag mpich.
const Library = "openmpi"

// libraryEnv is set in the environment before MPI_Init_thread, each
// variable unless already set: Open MPI's stack-trace signal handlers off.
var libraryEnv = map[string]string{"OMPI_MCA_opal_signal": ""}

func hComm(h C.MPI_Comm) C.uintptr_t     { return C.uintptr_t(uintptr(unsafe.Pointer(h))) }
func hType(h C.MPI_Datatype) C.uintptr_t { return C.uintptr_t(uintptr(unsafe.Pointer(h))) }
func hOp(h C.MPI_Op) C.uintptr_t         { return C.uintptr_t(uintptr(unsafe.Pointer(h))) }
func hWin(h C.MPI_Win) C.uintptr_t       { return C.uintptr_t(uintptr(unsafe.Pointer(h))) }
