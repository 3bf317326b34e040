package mpi

/*
#include "gc.h"
*/
import "C"

import (
	"runtime"
	"sync"
	"unsafe"
)

// Status describes a completed receive or a probed message.
type Status struct {
	Source    int  // sender's rank
	Tag       int  // message tag
	Count     int  // elements of the operation's datatype (bytes for Probe and Iprobe)
	Cancelled bool // the operation was cancelled
}

func statusOf(s *C.gc_status) Status {
	return Status{Source: int(s.source), Tag: int(s.tag), Count: int(s.count), Cancelled: s.cancelled != 0}
}

// Request is an outstanding nonblocking operation. The Go memory it uses is
// pinned until it completes through Test, Wait or one of the multi-request
// calls; after that the request is dead and Test or Wait on it return ErrFreed.
// A Request belongs to one goroutine at a time.
type Request struct {
	h    C.uintptr_t // the MPI_Request
	dt   Datatype
	pin  *runtime.Pinner // from pinners, while the request pins Go memory
	done bool
	hold *opKeep // the hold on a user operator, dropped at completion (keepOp)
}

// pinners recycles the Pinners of completed requests. The runtime keeps one
// spare pinner per P; a Pinner that has pinned before keeps its own, so with
// several requests outstanding, recycled Pinners save an allocation (and a
// finalizer) per request.
var pinners = sync.Pool{New: func() any { return new(runtime.Pinner) }}

// reqNull is MPI_REQUEST_NULL, the address of an Open MPI global: valid
// before MPI_Init, and read here once rather than by a cgo call per use.
var reqNull = C.gc_request_null_h()

// newRequest pins the Go buffers at p0 and p1 (either may be nil), which MPI
// keeps until completion.
func newRequest(dt Datatype, p0, p1 unsafe.Pointer) *Request {
	r := &Request{dt: dt, h: reqNull}
	if p0 == nil && p1 == nil {
		return r
	}
	r.pin = pinners.Get().(*runtime.Pinner)
	if p0 != nil {
		r.pin.Pin(p0)
	}
	if p1 != nil && p1 != p0 {
		r.pin.Pin(p1)
	}
	return r
}

// started records the outcome of starting r's operation.
func (r *Request) started(op string, s C.gc_start) (*Request, error) {
	r.h = s.req
	if s.rc != C.MPI_SUCCESS {
		return r.fail(newError(op, s.rc))
	}
	return r, nil
}

// finish releases what the request held, once MPI has completed it.
func (r *Request) finish() {
	r.done = true
	if r.pin != nil {
		r.pin.Unpin()
		pinners.Put(r.pin)
		r.pin = nil
	}
	r.hold = nil
}

// fail is finish for an initiation that MPI refused.
func (r *Request) fail(err error) (*Request, error) {
	r.finish()
	return nil, err
}

func (r *Request) check(op string) error {
	if state.Load() == stateInit && r != nil && !r.done {
		return nil
	}
	return r.checkErr(op)
}

func (r *Request) checkErr(op string) error {
	if err := checkState(op); err != nil {
		return err
	}
	if r == nil {
		return misuse(ErrArg, op, "nil request")
	}
	if r.done {
		return misuse(ErrFreed, op, "request already completed")
	}
	return nil
}

// Done reports whether the request has completed (and is dead).
func (r *Request) Done() bool { return r.done }

// Test reports whether the operation has completed (MPI_Test).
func (r *Request) Test() (bool, Status, error) {
	if err := r.check("MPI_Test"); err != nil {
		return false, Status{}, err
	}
	res := C.gc_test(r.h, hType(r.dt.h))
	r.h = res.req
	if err := mpiErr("MPI_Test", res.rc); err != nil {
		return false, Status{}, err
	}
	if res.flag == 0 {
		return false, Status{}, nil
	}
	r.finish()
	return true, statusOf(&res.st), nil
}

// Wait blocks until the operation completes (MPI_Wait).
func (r *Request) Wait() (Status, error) {
	if err := r.check("MPI_Wait"); err != nil {
		return Status{}, err
	}
	res := C.gc_wait(r.h, hType(r.dt.h))
	r.h = res.req
	if err := mpiErr("MPI_Wait", res.rc); err != nil {
		return Status{}, err
	}
	r.finish()
	return statusOf(&res.st), nil
}

// Cancel marks the operation for cancellation (MPI_Cancel). It must still be
// completed with Test or Wait; Status.Cancelled then tells whether it was.
func (r *Request) Cancel() error {
	if err := r.check("MPI_Cancel"); err != nil {
		return err
	}
	return mpiErr("MPI_Cancel", C.gc_cancel(r.h))
}

// handles gathers the MPI handles of rs; completed requests take part as
// MPI_REQUEST_NULL, which MPI ignores, as it does in the C API.
func handles(op string, rs []*Request) ([]C.uintptr_t, error) {
	if err := checkState(op); err != nil {
		return nil, err
	}
	hs := make([]C.uintptr_t, len(rs))
	for i, r := range rs {
		if r == nil {
			return nil, misuse(ErrArg, op, "request %d is nil", i)
		}
		hs[i] = r.h
		if r.done {
			hs[i] = reqNull
		}
	}
	return hs, nil
}

// settle finishes the requests whose handles MPI set to MPI_REQUEST_NULL.
func settle(rs []*Request, hs []C.uintptr_t) {
	for i, r := range rs {
		r.h = hs[i]
		if !r.done && hs[i] == reqNull {
			r.finish()
		}
	}
}

func first(hs []C.uintptr_t) *C.uintptr_t {
	if len(hs) == 0 {
		return nil
	}
	return &hs[0]
}

// Testall reports whether all requests have completed (MPI_Testall, one cgo
// call); if so, all are finished.
func Testall(rs []*Request) (bool, error) {
	hs, err := handles("MPI_Testall", rs)
	if err != nil {
		return false, err
	}
	res := C.gc_testall(C.int(len(hs)), first(hs))
	settle(rs, hs)
	return res.flag != 0, mpiErr("MPI_Testall", res.rc)
}

// Waitall blocks until all requests complete (MPI_Waitall).
func Waitall(rs []*Request) error {
	hs, err := handles("MPI_Waitall", rs)
	if err != nil {
		return err
	}
	err = mpiErr("MPI_Waitall", C.gc_waitall(C.int(len(hs)), first(hs)))
	settle(rs, hs)
	return err
}

// Testany finishes one completed request, if any, and returns its index; the
// index is -1 when none has completed or none is active (MPI_Testany).
func Testany(rs []*Request) (int, Status, error) {
	hs, err := handles("MPI_Testany", rs)
	if err != nil {
		return -1, Status{}, err
	}
	res := C.gc_testany(C.int(len(hs)), first(hs))
	err = mpiErr("MPI_Testany", res.rc)
	settle(rs, hs)
	if err != nil || res.flag == 0 || res.index == C.MPI_UNDEFINED {
		return -1, Status{}, err
	}
	return int(res.index), statusOf(&res.st), nil
}

// Testsome finishes every completed request and returns their indices
// (MPI_Testsome); nil when none completed or none is active.
func Testsome(rs []*Request) ([]int, error) {
	hs, err := handles("MPI_Testsome", rs)
	if err != nil {
		return nil, err
	}
	idx := make([]C.int, len(hs))
	var ip *C.int
	if len(idx) > 0 {
		ip = &idx[0]
	}
	res := C.gc_testsome(C.int(len(hs)), first(hs), ip)
	err = mpiErr("MPI_Testsome", res.rc)
	settle(rs, hs)
	out := res.flag
	if err != nil || out == C.MPI_UNDEFINED || out == 0 {
		return nil, err
	}
	done := make([]int, out)
	for i := range done {
		done[i] = int(idx[i])
	}
	return done, nil
}
