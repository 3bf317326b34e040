package mpi

/*
#include "gc.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"
)

// Misuse errors, returned before MPI is called. Each is wrapped with detail;
// test for them with errors.Is.
var (
	ErrNotInitialized = errors.New("mpi: MPI is not initialized")
	ErrFinalized      = errors.New("mpi: MPI is finalized")
	ErrInitialized    = errors.New("mpi: MPI is already initialized")
	ErrNilBuffer      = errors.New("mpi: nil buffer")
	ErrShortBuffer    = errors.New("mpi: buffer too short")
	ErrCount          = errors.New("mpi: element count exceeds what MPI's int can carry")
	ErrRank           = errors.New("mpi: rank outside the communicator")
	ErrTag            = errors.New("mpi: tag outside 0..MPI_TAG_UB")
	ErrFreed          = errors.New("mpi: object already freed or completed")
	ErrArg            = errors.New("mpi: invalid argument")
	ErrDatatype       = errors.New("mpi: datatype mismatch")
	// ErrActive refuses a Start or a Free of a persistent request that was
	// started and has not completed: MPI allows one start in flight, and
	// the buffers stay MPI's until it completes.
	ErrActive = errors.New("mpi: persistent request is active")
)

// MPI error classes that callers commonly test for (Error.Class).
const (
	ClassBuffer   = int(C.MPI_ERR_BUFFER)
	ClassCount    = int(C.MPI_ERR_COUNT)
	ClassType     = int(C.MPI_ERR_TYPE)
	ClassTag      = int(C.MPI_ERR_TAG)
	ClassComm     = int(C.MPI_ERR_COMM)
	ClassRank     = int(C.MPI_ERR_RANK)
	ClassRoot     = int(C.MPI_ERR_ROOT)
	ClassOp       = int(C.MPI_ERR_OP)
	ClassArg      = int(C.MPI_ERR_ARG)
	ClassTruncate = int(C.MPI_ERR_TRUNCATE)
	ClassOther    = int(C.MPI_ERR_OTHER)
	ClassIntern   = int(C.MPI_ERR_INTERN)
	ClassWin      = int(C.MPI_ERR_WIN)
	ClassRMASync  = int(C.MPI_ERR_RMA_SYNC)
	ClassRMARange = int(C.MPI_ERR_RMA_RANGE)
	ClassPending  = int(C.MPI_ERR_PENDING)
	ClassInStatus = int(C.MPI_ERR_IN_STATUS)
)

// Error is a failed MPI call: the call, MPI's error code, its class and MPI's
// own description. Use errors.As to get at it.
type Error struct {
	Op    string // the MPI function, e.g. "MPI_Send"
	Code  int    // MPI's error code
	Class int    // MPI's error class (one of the Class constants)
	Msg   string // MPI_Error_string of Code
}

// Error describes the failed call.
func (e *Error) Error() string {
	return fmt.Sprintf("mpi: %s: %s (MPI error class %d)", e.Op, e.Msg, e.Class)
}

// Is reports whether target is an *Error of the same class, so that
// errors.Is(err, &Error{Class: ClassTruncate}) works.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Op == "" && t.Class == e.Class
}

// mpiErr turns an MPI return code into an error (nil for MPI_SUCCESS). It
// inlines; the error itself is built out of line.
func mpiErr(op string, rc C.int) error {
	if rc == C.MPI_SUCCESS {
		return nil
	}
	return newError(op, rc)
}

//go:noinline
func newError(op string, rc C.int) error {
	var buf [C.MPI_MAX_ERROR_STRING + 1]C.char
	var n, cls C.int
	C.gc_error_string(rc, &buf[0], &n, &cls)
	return &Error{Op: op, Code: int(rc), Class: int(cls), Msg: C.GoStringN(&buf[0], n)}
}

// misuse wraps a sentinel with the operation and a detail. The checks on the
// hot paths call it only from out-of-line slow paths (checkErr, needErr ...),
// which keeps the checks small enough to inline or nearly so.
func misuse(sentinel error, op, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", sentinel, op, fmt.Sprintf(format, args...))
}

// Cgo arguments. A handle crosses as uintptr_t (see gc.h), a buffer as
// char *: the elements are numbers, so cgo need not look into the memory.

// The handle conversions (hComm, hType, hOp, hWin) depend on the MPI library
// and live in its file (openmpi.go, mpich.go).

func cbuf(p unsafe.Pointer) *C.char { return (*C.char)(p) }
