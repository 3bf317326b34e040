package mpi

/*
#include "gc_coll.h"
*/
import "C"

import "unsafe"

// Persistent collectives (MPI-4's MPI_*_init; Open MPI 4.1 ships them as its
// extension MPIX_*_init): a collective set up once with fixed arguments and
// buffers, for a loop that runs the same call many times. Each ...Init call
// checks its arguments as the blocking form does (coll.go: the same misuse
// errors, the same in-place forms) and returns an inactive persistent
// Request; Start runs the collective, Wait, Test or a multi-request call
// completes it and leaves it ready for the next Start, and Free releases it.
// A start checks nothing but the request's state and allocates nothing.
//
// The buffers stay pinned until Free and belong to MPI from a Start to its
// completion. Every process of the communicator must make the same
// persistent collectives in the same order, and start them in the same
// order; making one is collective.

// newPersistent makes the Request of a persistent collective, which pins
// the Go buffers at p0 and p1 (nil for none) until Free.
func newPersistent(dt Datatype, p0, p1 unsafe.Pointer) *Request {
	r := newRequest(dt, p0, p1)
	r.persistent, r.planSlot = true, -1
	return r
}

// made records the outcome of setting up r: on success r keeps the
// user-operator hold of slot (-1 for none) until Free; on failure the hold
// and the pins are released.
func (r *Request) made(op string, slot int, s C.gc_start) (*Request, error) {
	r.h = s.req
	if s.rc != C.MPI_SUCCESS {
		releaseOp(slot)
		return r.fail(newError(op, s.rc))
	}
	if slot >= 0 {
		holdForPlan(slot)
		r.planSlot = slot
	}
	return r, nil
}

// BcastInit sets up Bcast of b from root (MPI_Bcast_init): each Start sends
// b's contents at root at that time to b of every process.
func (c *Comm) BcastInit(b []byte, root int) (*Request, error) {
	return c.bcastInit(byteSpan(b), root)
}

// BcastInit sets up Bcast of the elements of b from root (MPI_Bcast_init);
// see Comm.BcastInit.
func BcastInit[T Element](c *Comm, b []T, root int) (*Request, error) {
	return c.bcastInit(spanOf(b), root)
}

func (c *Comm) bcastInit(b span, root int) (*Request, error) {
	const op = "MPI_Bcast_init"
	if err := c.begin(op, true, root, b, "the"); err != nil {
		return nil, err
	}
	req := newPersistent(b.dt, b.p, nil)
	return req.made(op, -1, C.gc_bcast_init(b.c(), C.int(b.n), hType(b.dt.h), C.int(root), hComm(c.h)))
}

// AllreduceInit sets up Allreduce (MPI_Allreduce_init): each Start combines
// send of every process with op into recv of every process. recv needs
// len(send) elements; the same slice as send and recv is in place.
func AllreduceInit[T Element](c *Comm, send, recv []T, op Op) (*Request, error) {
	return c.allreduceInit(spanOf(send), spanOf(recv), op)
}

func (c *Comm) allreduceInit(s, r span, o Op) (*Request, error) {
	const op = "MPI_Allreduce_init"
	if err := c.check(op); err != nil {
		return nil, err
	}
	inPlace, slot, err := c.reduction(op, s, r, o, true)
	if err != nil {
		return nil, err
	}
	req := newPersistent(s.dt, s.p, r.p)
	return req.made(op, slot, C.gc_allreduce_init(s.c(), r.c(), C.int(s.n), hType(s.dt.h), hOp(o.h), hComm(c.h),
		cbool(inPlace)))
}

// ReduceScatterBlockInit sets up ReduceScatterBlock
// (MPI_Reduce_scatter_block_init), with its operands and in-place form.
func ReduceScatterBlockInit[T Element](c *Comm, send, recv []T, op Op) (*Request, error) {
	return c.reduceScatterBlockInit(spanOf(send), spanOf(recv), op)
}

func (c *Comm) reduceScatterBlockInit(s, r span, o Op) (*Request, error) {
	const op = "MPI_Reduce_scatter_block_init"
	n, inPlace, slot, err := c.reduceScatterBlockArgs(op, s, r, o)
	if err != nil {
		return nil, err
	}
	req := newPersistent(s.dt, s.p, r.p)
	return req.made(op, slot, C.gc_reduce_scatter_block_init(s.c(), r.c(), C.int(n), hType(s.dt.h), hOp(o.h), hComm(c.h),
		cbool(inPlace)))
}
