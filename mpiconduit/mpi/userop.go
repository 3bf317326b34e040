package mpi

// This file exports gcUserOp to C, so its preamble may only declare.

/*
#include "gc_coll.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// MaxUserOps is how many user operators can exist at once. MPI passes an
// operator no user data, so each one needs its own C trampoline from a fixed
// pool (gc_coll.c).
const MaxUserOps = int(C.GC_USER_OPS)

// ErrOpTableFull is returned by NewOp and NewOpOf when MaxUserOps operators
// exist; Free the ones no longer needed.
var ErrOpTableFull = errors.New("mpi: user-operator table full")

// userOp is one slot of the user-operator table.
type userOp struct {
	fn     func(in, inout unsafe.Pointer, n int, dt Datatype)
	elem   Datatype // the element type of NewOpOf; zero (no dtype) for NewOp: any
	serial uint64
	h      C.MPI_Op
	// Guarded by opMu. A freed slot stays taken while refs > 0, because MPI
	// calls the operator until the operations using it complete.
	refs  int
	freed bool
	// plans counts the persistent requests among the holds (holdForPlan).
	// While there are any, Free leaves MPI_Op_free to the last one's
	// release: Open MPI 4.1's MPIX_*_init do not retain the operator, and
	// freeing it under a persistent request crashes the request's next
	// start.
	plans int
}

var (
	opMu     sync.Mutex // serializes changes to opSlots and to refs and freed
	opSlots  [MaxUserOps]atomic.Pointer[userOp]
	opSerial uint64 // guarded by opMu
)

// NewOp registers fn as an MPI reduction operator (MPI_Op_create). MPI calls
// fn(in, inout, dt) to fold in into inout element by element,
// inout[i] = in[i] ∘ inout[i], where in comes from lower ranks than inout;
// both hold the same whole number of dt elements. When commute is false MPI
// applies fn in rank order, so non-commutative operators are correct.
//
// fn runs on whatever goroutine is inside MPI, concurrently for concurrent
// operations; it must not call MPI, must not panic, and must not keep the
// slices, which are valid only during the call. Free releases the operator.
func NewOp(fn func(in, inout []byte, dt Datatype), commute bool) (Op, error) {
	if fn == nil {
		return Op{}, misuse(ErrArg, "MPI_Op_create", "nil function")
	}
	return newOp(func(in, inout unsafe.Pointer, n int, dt Datatype) {
		b := n * dt.size
		fn(unsafe.Slice((*byte)(in), b), unsafe.Slice((*byte)(inout), b), dt)
	}, Datatype{}, commute)
}

// NewOpOf registers fn as an MPI reduction operator on elements of T, as
// NewOp does; using it on another element type is ErrDatatype.
func NewOpOf[T Element](fn func(in, inout []T), commute bool) (Op, error) {
	if fn == nil {
		return Op{}, misuse(ErrArg, "MPI_Op_create", "nil function")
	}
	return newOp(func(in, inout unsafe.Pointer, n int, _ Datatype) {
		fn(unsafe.Slice((*T)(in), n), unsafe.Slice((*T)(inout), n))
	}, DatatypeOf[T](), commute)
}

func newOp(fn func(in, inout unsafe.Pointer, n int, dt Datatype), elem Datatype, commute bool) (Op, error) {
	const op = "MPI_Op_create"
	if err := checkState(op); err != nil {
		return Op{}, err
	}
	for try := 0; ; try++ {
		o, held, err := claimSlot(op, fn, elem, commute)
		if err != nil || o.opInfo != nil {
			return o, err
		}
		if held == 0 || try == 20 {
			return Op{}, misuse(ErrOpTableFull, op, "%d operators exist, %d of them freed but held by incomplete nonblocking operations",
				MaxUserOps, held)
		}
		// A freed slot is held until the requests that used it are
		// collected (see keepOp): collect them and look again.
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
}

// claimSlot creates the operator in the first free slot. With none free it
// returns the zero Op and how many slots are freed but still held.
func claimSlot(op string, fn func(in, inout unsafe.Pointer, n int, dt Datatype), elem Datatype, commute bool) (Op, int, error) {
	opMu.Lock()
	defer opMu.Unlock()
	held := 0
	for i := range opSlots {
		if u := opSlots[i].Load(); u != nil {
			if u.freed {
				held++
			}
			continue
		}
		var h C.MPI_Op
		if err := mpiErr(op, C.gc_op_create(C.int(i), cbool(commute), &h)); err != nil {
			return Op{}, 0, err
		}
		opSerial++
		opSlots[i].Store(&userOp{fn: fn, elem: elem, serial: opSerial, h: h})
		name := fmt.Sprintf("user operator %d", i)
		if elem.dtype != nil {
			name += " on " + elem.name
		}
		return Op{&opInfo{h: h, name: name, user: i + 1, serial: opSerial}}, 0, nil
	}
	return Op{}, held, nil
}

// entry is the live table entry of a user operator; nil once its slot was
// emptied or reused. Call with opMu held.
func (o Op) entry() *userOp {
	if o.opInfo == nil || o.user < 1 || o.user > MaxUserOps {
		return nil
	}
	u := opSlots[o.user-1].Load()
	if u == nil || u.serial != o.serial {
		return nil
	}
	return u
}

// Free releases a user operator (MPI_Op_free). Operations already started
// with it complete normally; any later use, and a second Free, return
// ErrFreed. Predefined operators cannot be freed.
func (o Op) Free() error {
	const op = "MPI_Op_free"
	if err := checkState(op); err != nil {
		return err
	}
	if o.opInfo == nil || o.user == 0 {
		return misuse(ErrArg, op, "%q is not a user operator", o.String())
	}
	opMu.Lock()
	defer opMu.Unlock()
	u := o.entry()
	if u == nil || u.freed {
		return misuse(ErrFreed, op, "%s was freed", o)
	}
	u.freed = true
	var err error
	if u.plans == 0 {
		err = mpiErr(op, C.MPI_Op_free(&u.h))
	}
	if u.refs == 0 {
		opSlots[o.user-1].Store(nil)
	}
	return err
}

// holdOp checks that o can reduce dt and, for a user operator, holds its slot
// until releaseOp, since MPI may call the operator until the operation
// completes. It returns the slot, or -1 for a predefined operator.
func holdOp(op string, o Op, dt Datatype) (int, error) {
	if predefinedOK(o, dt) {
		return -1, nil
	}
	return holdOpSlow(op, o, dt)
}

func holdOpSlow(op string, o Op, dt Datatype) (int, error) {
	if o.opInfo == nil || o.user == 0 {
		return -1, checkPredefined(op, o, dt)
	}
	opMu.Lock()
	defer opMu.Unlock()
	u := o.entry()
	if u == nil || u.freed {
		return -1, misuse(ErrFreed, op, "%s was freed", o)
	}
	if u.elem.dtype != nil && u.elem.h != dt.h {
		return -1, misuse(ErrDatatype, op, "%s reduces %s, not %s", o, u.elem, dt)
	}
	u.refs++
	return o.user - 1, nil
}

// releaseOp undoes holdOp; the slot of a freed operator empties with its
// last hold.
func releaseOp(slot int) {
	if slot >= 0 {
		releaseSlot(slot)
	}
}

func releaseSlot(slot int) {
	opMu.Lock()
	defer opMu.Unlock()
	u := opSlots[slot].Load()
	u.refs--
	if u.freed && u.refs == 0 {
		opSlots[slot].Store(nil)
	}
}

// holdForPlan makes a hold of holdOp a persistent request's: released by
// releasePlan when the request is freed, which is a call of its owner
// (not the collector's, as for a nonblocking request), and keeping the MPI
// operator itself alive until then (userOp.plans).
func holdForPlan(slot int) {
	opMu.Lock()
	defer opMu.Unlock()
	opSlots[slot].Load().plans++
}

// releasePlan undoes holdForPlan and its holdOp. It frees the MPI operator
// when Free left that to the operator's last persistent request.
func releasePlan(slot int) error {
	opMu.Lock()
	defer opMu.Unlock()
	u := opSlots[slot].Load()
	u.plans--
	var err error
	if u.freed && u.plans == 0 {
		err = mpiErr("MPI_Op_free", C.MPI_Op_free(&u.h))
	}
	u.refs--
	if u.freed && u.refs == 0 {
		opSlots[slot].Store(nil)
	}
	return err
}

// opKeep holds a user operator for a nonblocking operation. It lives in
// Request.hold, which completion drops; the next garbage collection then
// runs its cleanup, which releases the hold.
type opKeep struct {
	slot int
	_    *byte // keeps it out of the tiny allocator, where a cleanup may never run
}

func keepOp(r *Request, slot int) {
	if slot >= 0 {
		keepSlot(r, slot)
	}
}

func keepSlot(r *Request, slot int) {
	k := &opKeep{slot: slot}
	runtime.AddCleanup(k, releaseOp, slot)
	r.hold = k
}

// knownTypes are the datatypes a callback's handle is looked up in.
var knownTypes = [...]Datatype{Byte, Int8, Int16, Int32, Int64, Uint8, Uint16, Uint32, Uint64,
	Float32, Float64, Complex64, Complex128, FloatInt, DoubleInt, TwoInt, LongInt}

func datatypeOfHandle(h C.MPI_Datatype) Datatype {
	for _, d := range knownTypes {
		if d.h == h {
			return d
		}
	}
	return Datatype{&dtype{h: h, size: int(C.gc_type_size(h)), name: "MPI datatype"}}
}

// gcUserOp is called by the C trampoline of slot for every MPI application
// of a user operator: n elements of datatype dt.
//
//export gcUserOp
func gcUserOp(slot C.int, in, inout unsafe.Pointer, n C.int, dt C.MPI_Datatype) {
	u := opSlots[slot].Load()
	if u == nil {
		// Unreachable while holds are honored: a held slot is never emptied.
		panic(fmt.Sprintf("mpi: MPI called user operator %d, which no longer exists", slot))
	}
	d := u.elem
	if d.dtype == nil || d.h != dt {
		d = datatypeOfHandle(dt)
	}
	u.fn(in, inout, int(n), d)
}
