package mpi

/*
#include "gc.h"
#include "gc_win.h"
*/
import "C"

import (
	"os"
	"sync/atomic"
)

// ThreadLevel is an MPI thread support level.
type ThreadLevel int

// Thread support levels, in increasing order.
const (
	ThreadSingle     ThreadLevel = ThreadLevel(C.MPI_THREAD_SINGLE)
	ThreadFunneled   ThreadLevel = ThreadLevel(C.MPI_THREAD_FUNNELED)
	ThreadSerialized ThreadLevel = ThreadLevel(C.MPI_THREAD_SERIALIZED)
	ThreadMultiple   ThreadLevel = ThreadLevel(C.MPI_THREAD_MULTIPLE)
)

// String is the MPI name of the level.
func (l ThreadLevel) String() string {
	switch l {
	case ThreadSingle:
		return "MPI_THREAD_SINGLE"
	case ThreadFunneled:
		return "MPI_THREAD_FUNNELED"
	case ThreadSerialized:
		return "MPI_THREAD_SERIALIZED"
	case ThreadMultiple:
		return "MPI_THREAD_MULTIPLE"
	}
	return "MPI_THREAD_?"
}

// Special ranks and tags.
const (
	AnySource = int(C.MPI_ANY_SOURCE)
	AnyTag    = int(C.MPI_ANY_TAG)
	ProcNull  = int(C.MPI_PROC_NULL)
	Undefined = int(C.MPI_UNDEFINED)
)

const (
	stateNew = iota
	stateInit
	stateFinal
)

var (
	state     atomic.Int32
	provided  ThreadLevel
	tagUB     int
	worldComm *Comm
	selfComm  *Comm
)

// checkState reports ErrNotInitialized or ErrFinalized outside Init..Finalize.
func checkState(op string) error {
	if state.Load() == stateInit {
		return nil
	}
	return stateErr(op)
}

func stateErr(op string) error {
	switch state.Load() {
	case stateNew:
		return misuse(ErrNotInitialized, op, "call Init first")
	case stateFinal:
		return misuse(ErrFinalized, op, "Finalize was called")
	}
	return nil
}

// Init initializes MPI with the requested thread level (MPI_Init_thread) and
// returns the level MPI provides. Goroutines move between OS threads, so a
// process that calls MPI from more than one goroutine needs ThreadMultiple.
// Init sets MPI_ERRORS_RETURN on MPI_COMM_WORLD and MPI_COMM_SELF.
func Init(level ThreadLevel) (ThreadLevel, error) {
	if s := state.Load(); s != stateNew {
		if s == stateFinal {
			return 0, misuse(ErrFinalized, "Init", "MPI cannot be initialized again")
		}
		return 0, misuse(ErrInitialized, "Init", "Init was already called")
	}
	// The library's stack-trace signal handlers would replace the Go
	// runtime's SIGSEGV/SIGBUS handlers and turn recoverable Go panics into
	// aborts: each library's file names the variable that turns them off.
	for k, v := range libraryEnv {
		if _, set := os.LookupEnv(k); !set {
			os.Setenv(k, v)
		}
	}
	var prov C.int
	if err := mpiErr("MPI_Init_thread", C.MPI_Init_thread(nil, nil, C.int(level), &prov)); err != nil {
		return 0, err
	}
	state.Store(stateInit)
	provided = ThreadLevel(prov)
	worldComm = &Comm{h: C.gc_comm_world(), predefined: true}
	selfComm = &Comm{h: C.gc_comm_self(), predefined: true}
	for _, c := range []*Comm{worldComm, selfComm} {
		if err := c.setup("MPI_Init_thread"); err != nil {
			return 0, err
		}
	}
	var ub C.int
	if err := mpiErr("MPI_Comm_get_attr", C.gc_tag_ub(&ub)); err != nil {
		return 0, err
	}
	tagUB = int(ub)
	return provided, nil
}

// Finalize finalizes MPI. Every later call of this package returns ErrFinalized.
func Finalize() error {
	if err := checkState("Finalize"); err != nil {
		return err
	}
	state.Store(stateFinal)
	return mpiErr("MPI_Finalize", C.MPI_Finalize())
}

// Initialized reports whether Init has been called (MPI_Initialized).
func Initialized() bool {
	var f C.int
	C.MPI_Initialized(&f)
	return f != 0
}

// Finalized reports whether Finalize has been called (MPI_Finalized).
func Finalized() bool {
	var f C.int
	C.MPI_Finalized(&f)
	return f != 0
}

// Provided is the thread level MPI granted at Init.
func Provided() ThreadLevel { return provided }

// TagUB is MPI_TAG_UB, the largest valid tag.
func TagUB() int { return tagUB }

// LibraryVersion is MPI_Get_library_version's string, which names the MPI
// library and its version ("Open MPI v4.1.4, ...", "MPICH Version: 4.0.2 ...").
// It may be called before Init.
func LibraryVersion() string {
	var b [C.MPI_MAX_LIBRARY_VERSION_STRING + 1]C.char
	C.gc_library_version(&b[0], C.int(len(b)))
	return C.GoString(&b[0])
}

// Wtime is MPI_Wtime: seconds since an arbitrary time in the past.
func Wtime() float64 { return float64(C.MPI_Wtime()) }

// Abort ends every process of comm's job with the given exit code (MPI_Abort).
func Abort(c *Comm, code int) error {
	if err := checkState("Abort"); err != nil {
		return err
	}
	if c == nil {
		c = worldComm
	}
	return mpiErr("MPI_Abort", C.MPI_Abort(c.h, C.int(code)))
}

// World is MPI_COMM_WORLD. It is nil before Init.
func World() *Comm { return worldComm }

// Self is MPI_COMM_SELF. It is nil before Init.
func Self() *Comm { return selfComm }
