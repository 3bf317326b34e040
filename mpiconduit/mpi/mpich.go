//go:build mpich

package mpi

// The binding's MPICH side, selected by the build tag mpich (openmpi.go is
// the default): how cgo finds the library, and how its handles cross cgo.
// MPICH's handles are C ints; they cross as uintptr_t like Open MPI's (see
// gc.h), and C converts them back.

/*
#cgo pkg-config: mpich
#include <mpi.h>
#include <stdint.h>
*/
import "C"

// Library is the MPI implementation the binding was built against:
// "openmpi" by default, "mpich" with the build tag mpich.
const Library = "mpich"

// libraryEnv is set in the environment before MPI_Init_thread: nothing for
// MPICH. (UCX, its network layer, installs its error-signal handlers when
// the library loads, before the Go runtime installs its own, which keep
// Go's faults and forward the others to UCX.)
var libraryEnv = map[string]string{}

func hComm(h C.MPI_Comm) C.uintptr_t     { return C.uintptr_t(h) }
func hType(h C.MPI_Datatype) C.uintptr_t { return C.uintptr_t(h) }
func hOp(h C.MPI_Op) C.uintptr_t         { return C.uintptr_t(h) }
func hWin(h C.MPI_Win) C.uintptr_t       { return C.uintptr_t(h) }
