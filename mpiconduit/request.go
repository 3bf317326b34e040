package mpiconduit

/*
#include "gc.h"
*/
import "C"

import (
	"runtime"
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
	h    C.MPI_Request
	dt   Datatype
	op   string
	pin  runtime.Pinner
	done bool
	keep []any // values that must live until completion (arrays MPI reads)
}

// newRequest pins the given Go buffers, which MPI keeps until completion.
func newRequest(op string, dt Datatype, bufs ...buf) *Request {
	r := &Request{op: op, dt: dt, h: C.gc_request_null()}
	for _, b := range bufs {
		if b.p != nil {
			r.pin.Pin(b.p)
		}
	}
	return r
}

// finish releases what the request held, once MPI has completed it.
func (r *Request) finish() {
	r.done = true
	r.pin.Unpin()
	r.keep = nil
}

// fail is finish for an initiation that MPI refused.
func (r *Request) fail(err error) (*Request, error) {
	r.finish()
	return nil, err
}

func (r *Request) check(op string) error {
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
	var flag C.int
	var st C.gc_status
	if err := mpiErr("MPI_Test", C.gc_test(&r.h, &flag, r.dt.h, &st)); err != nil {
		return false, Status{}, err
	}
	if flag == 0 {
		return false, Status{}, nil
	}
	r.finish()
	return true, statusOf(&st), nil
}

// Wait blocks until the operation completes (MPI_Wait).
func (r *Request) Wait() (Status, error) {
	if err := r.check("MPI_Wait"); err != nil {
		return Status{}, err
	}
	var st C.gc_status
	err := mpiErr("MPI_Wait", C.gc_wait(&r.h, r.dt.h, &st))
	if err != nil {
		return Status{}, err
	}
	r.finish()
	return statusOf(&st), nil
}

// Cancel marks the operation for cancellation (MPI_Cancel). It must still be
// completed with Test or Wait; Status.Cancelled then tells whether it was.
func (r *Request) Cancel() error {
	if err := r.check("MPI_Cancel"); err != nil {
		return err
	}
	return mpiErr("MPI_Cancel", C.MPI_Cancel(&r.h))
}

// handles gathers the MPI handles of rs; completed requests take part as
// MPI_REQUEST_NULL, which MPI ignores, as it does in the C API.
func handles(op string, rs []*Request) ([]C.MPI_Request, error) {
	if err := checkState(op); err != nil {
		return nil, err
	}
	hs := make([]C.MPI_Request, len(rs))
	null := C.gc_request_null()
	for i, r := range rs {
		if r == nil {
			return nil, misuse(ErrArg, op, "request %d is nil", i)
		}
		hs[i] = r.h
		if r.done {
			hs[i] = null
		}
	}
	return hs, nil
}

// settle finishes the requests whose handles MPI set to MPI_REQUEST_NULL.
func settle(rs []*Request, hs []C.MPI_Request) {
	null := C.gc_request_null()
	for i, r := range rs {
		r.h = hs[i]
		if !r.done && hs[i] == null {
			r.finish()
		}
	}
}

func first(hs []C.MPI_Request) *C.MPI_Request {
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
	var flag C.int
	err = mpiErr("MPI_Testall", C.gc_testall(C.int(len(hs)), first(hs), &flag))
	settle(rs, hs)
	return flag != 0, err
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
	var idx, flag C.int
	var st C.gc_status
	err = mpiErr("MPI_Testany", C.gc_testany(C.int(len(hs)), first(hs), &idx, &flag, &st))
	settle(rs, hs)
	if err != nil || flag == 0 || idx == C.MPI_UNDEFINED {
		return -1, Status{}, err
	}
	return int(idx), statusOf(&st), nil
}

// Testsome finishes every completed request and returns their indices
// (MPI_Testsome); nil when none completed or none is active.
func Testsome(rs []*Request) ([]int, error) {
	hs, err := handles("MPI_Testsome", rs)
	if err != nil {
		return nil, err
	}
	idx := make([]C.int, len(hs))
	var out C.int
	var ip *C.int
	if len(idx) > 0 {
		ip = &idx[0]
	}
	err = mpiErr("MPI_Testsome", C.gc_testsome(C.int(len(hs)), first(hs), &out, ip))
	settle(rs, hs)
	if err != nil || out == C.MPI_UNDEFINED || out == 0 {
		return nil, err
	}
	done := make([]int, out)
	for i := range done {
		done[i] = int(idx[i])
	}
	return done, nil
}
