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

// emptyStatus is MPI's empty status, which a wait on an inactive persistent
// request returns. MPI is not asked for it: MPICH 4.0.2's MPI_Wait on an
// inactive persistent collective never returns.
var emptyStatus = Status{Source: AnySource, Tag: AnyTag}

func statusOf(s *C.gc_status) Status {
	return Status{Source: int(s.source), Tag: int(s.tag), Count: int(s.count), Cancelled: s.cancelled != 0}
}

// Request is an outstanding nonblocking operation. The Go memory it uses is
// pinned until it completes through Test, Wait or one of the multi-request
// calls; after that the request is dead and Test or Wait on it return ErrFreed.
// A Request belongs to one goroutine at a time.
//
// A persistent request (AllreduceInit and the other ...Init calls of
// pcoll.go) outlives its completions instead: it is inactive when made,
// Start makes it active, and a completion makes it inactive again, ready
// for the next Start. It keeps its Go memory pinned and its user operator
// held until Free, which ends it.
type Request struct {
	h    C.uintptr_t // the MPI_Request
	dt   Datatype
	pin  *runtime.Pinner // from pinners, while the request pins Go memory
	done bool            // completed, or for a persistent request freed
	hold *opKeep         // the hold on a user operator, dropped by finish (keepOp)

	persistent bool // made by an ...Init call: Start runs it again, Free ends it
	active     bool // a persistent request between Start and its completion
	planSlot   int  // a persistent request's user operator (holdForPlan), -1 for none
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

// completed records that MPI completed r's operation: a persistent request
// becomes inactive and keeps what it holds, any other is finished.
func (r *Request) completed() {
	if r.persistent {
		r.active = false
		return
	}
	r.finish()
}

// finish releases what the request held, once MPI has completed it (or,
// for a persistent request, freed it).
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
	if r.done && r.persistent {
		return misuse(ErrFreed, op, "persistent request was freed")
	}
	if r.done {
		return misuse(ErrFreed, op, "request already completed")
	}
	return nil
}

// Done reports whether the request has completed (and is dead); for a
// persistent request, whether it was freed.
func (r *Request) Done() bool { return r.done }

// Test reports whether the operation has completed (MPI_Test). A
// persistent request not started is complete, with an empty status.
func (r *Request) Test() (bool, Status, error) {
	if err := r.check("MPI_Test"); err != nil {
		return false, Status{}, err
	}
	if r.persistent && !r.active {
		return true, emptyStatus, nil
	}
	res := C.gc_test(r.h, hType(r.dt.h))
	r.h = res.req
	if err := mpiErr("MPI_Test", res.rc); err != nil {
		return false, Status{}, err
	}
	if res.flag == 0 {
		return false, Status{}, nil
	}
	r.completed()
	return true, statusOf(&res.st), nil
}

// Wait blocks until the operation completes (MPI_Wait). On a persistent
// request not started it returns at once, with an empty status.
func (r *Request) Wait() (Status, error) {
	if err := r.check("MPI_Wait"); err != nil {
		return Status{}, err
	}
	if r.persistent && !r.active {
		return emptyStatus, nil
	}
	res := C.gc_wait(r.h, hType(r.dt.h))
	r.h = res.req
	if err := mpiErr("MPI_Wait", res.rc); err != nil {
		return Status{}, err
	}
	r.completed()
	return statusOf(&res.st), nil
}

// Cancel marks the operation for cancellation (MPI_Cancel). It must still be
// completed with Test or Wait; Status.Cancelled then tells whether it was.
// A persistent collective cannot be cancelled: MPI leaves it erroneous.
func (r *Request) Cancel() error {
	const op = "MPI_Cancel"
	if err := r.check(op); err != nil {
		return err
	}
	if r.persistent {
		return misuse(ErrArg, op, "a persistent collective cannot be cancelled")
	}
	return mpiErr(op, C.gc_cancel(r.h))
}

// Start starts a persistent request (MPI_Start): its collective runs once
// more on the arguments and buffers it was made with, which must not be
// touched until Test, Wait or a multi-request call completes it. Every
// process must start the persistent collectives of a communicator in the
// same order. Starting an active request returns ErrActive; a request that
// is not persistent, ErrArg.
func (r *Request) Start() error {
	const op = "MPI_Start"
	if err := r.check(op); err != nil {
		return err
	}
	if !r.persistent || r.active {
		return r.startErr(op)
	}
	res := C.gc_start_persistent(r.h)
	r.h = res.req
	if err := mpiErr(op, res.rc); err != nil {
		return err
	}
	r.active = true
	return nil
}

func (r *Request) startErr(op string) error {
	if !r.persistent {
		return misuse(ErrArg, op, "not a persistent request")
	}
	return misuse(ErrActive, op, "started before its last start completed (Wait or Test first)")
}

// Free releases a persistent request (MPI_Request_free) with its pins and
// its hold on a user operator; any later use returns ErrFreed. It must be
// inactive (ErrActive otherwise). Other requests are not freed but
// completed, with Test, Wait or a multi-request call (ErrArg).
func (r *Request) Free() error {
	const op = "MPI_Request_free"
	if err := r.check(op); err != nil {
		return err
	}
	if !r.persistent {
		return misuse(ErrArg, op, "only a persistent request is freed; complete this one with Wait or Test")
	}
	if r.active {
		return misuse(ErrActive, op, "the request is active: complete it with Wait or Test first")
	}
	if err := mpiErr(op, C.gc_request_free(r.h)); err != nil {
		return err
	}
	r.h = reqNull
	r.finish()
	if slot := r.planSlot; slot >= 0 {
		r.planSlot = -1
		return releasePlan(slot)
	}
	return nil
}

// handles gathers the MPI handles of rs; completed requests take part as
// MPI_REQUEST_NULL, which MPI ignores, as it does in the C API, and so do
// inactive persistent requests (MPI ignores them too, but MPICH 4.0.2's
// MPI_Waitany and MPI_Testsome report one as completed again).
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
		if r.done || r.persistent && !r.active {
			hs[i] = reqNull
		}
	}
	return hs, nil
}

// settle finishes the requests whose handles MPI set to MPI_REQUEST_NULL.
// A persistent request keeps its handle when it completes: the caller marks
// those MPI reports complete with settled.
func settle(rs []*Request, hs []C.uintptr_t) {
	for i, r := range rs {
		if r.persistent {
			continue
		}
		r.h = hs[i]
		if !r.done && hs[i] == reqNull {
			r.finish()
		}
	}
}

// settled makes rs[i] inactive if it is persistent: MPI reported it
// complete.
func settled(rs []*Request, i int) {
	if r := rs[i]; r.persistent && !r.done {
		r.active = false
	}
}

func first(hs []C.uintptr_t) *C.uintptr_t {
	if len(hs) == 0 {
		return nil
	}
	return &hs[0]
}

// Testall reports whether all requests have completed (MPI_Testall, one cgo
// call); if so, all are finished. Under MPICH, active persistent requests
// are tested one by one first (testPersistent).
func Testall(rs []*Request) (bool, error) {
	hs, err := handles("MPI_Testall", rs)
	if err != nil {
		return false, err
	}
	if Library == "mpich" {
		if all, err := testPersistent(rs, hs); !all || err != nil {
			return false, err
		}
	}
	res := C.gc_testall(C.int(len(hs)), first(hs))
	settle(rs, hs)
	if res.rc == C.MPI_SUCCESS && res.flag != 0 {
		for i := range rs {
			settled(rs, i)
		}
	}
	return res.flag != 0, mpiErr("MPI_Testall", res.rc)
}

// testPersistent tests the active persistent requests of rs one by one
// (MPI_Test) and takes those that completed out of hs; it reports whether
// all did. MPICH 4.0.2's MPI_Testall reports a completed persistent
// collective as failed (MPI_ERR_IN_STATUS): its error lookup does not know
// the request kind. A persistent request completed here before the others
// is no departure from MPI_Testall, which treats an inactive one as
// complete.
func testPersistent(rs []*Request, hs []C.uintptr_t) (bool, error) {
	all := true
	for i, r := range rs {
		if !r.persistent || hs[i] == reqNull {
			continue
		}
		done, _, err := r.Test()
		if err != nil {
			return false, err
		}
		if done {
			hs[i] = reqNull
		}
		all = all && done
	}
	return all, nil
}

// Waitall blocks until all requests complete (MPI_Waitall).
func Waitall(rs []*Request) error {
	hs, err := handles("MPI_Waitall", rs)
	if err != nil {
		return err
	}
	err = mpiErr("MPI_Waitall", C.gc_waitall(C.int(len(hs)), first(hs)))
	settle(rs, hs)
	if err == nil {
		for i := range rs {
			settled(rs, i)
		}
	}
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
	settled(rs, int(res.index))
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
		settled(rs, done[i])
	}
	return done, nil
}
