package mpi

/*
#include "gc.h"
#include "gc_win.h"
*/
import "C"

import (
	"sync/atomic"
)

// Comm is an MPI communicator. World and Self are predefined; Dup, Split and
// Create make new ones, which Free releases.
type Comm struct {
	h          C.MPI_Comm
	rank, size int
	predefined bool
	freed      atomic.Bool
	ndims      int // a Cartesian grid's dimensions (CartCreate), 0 for none
}

// setup sets MPI_ERRORS_RETURN and caches rank and size.
func (c *Comm) setup(op string) error {
	if err := mpiErr(op, C.gc_set_errors_return_comm(c.h)); err != nil {
		return err
	}
	var r, s C.int
	if err := mpiErr("MPI_Comm_rank", C.MPI_Comm_rank(c.h, &r)); err != nil {
		return err
	}
	if err := mpiErr("MPI_Comm_size", C.MPI_Comm_size(c.h, &s)); err != nil {
		return err
	}
	c.rank, c.size = int(r), int(s)
	return nil
}

// check is the common misuse check of every communicator operation.
func (c *Comm) check(op string) error {
	if state.Load() == stateInit && c != nil && !c.freed.Load() {
		return nil
	}
	return c.checkErr(op)
}

func (c *Comm) checkErr(op string) error {
	if err := checkState(op); err != nil {
		return err
	}
	if c == nil {
		return misuse(ErrArg, op, "nil communicator")
	}
	if c.freed.Load() {
		return misuse(ErrFreed, op, "communicator was freed")
	}
	return nil
}

// checkRank accepts 0..size-1 and the given extra special ranks.
func (c *Comm) checkRank(op string, r int, special ...int) error {
	if uint(r) < uint(c.size) {
		return nil
	}
	return c.rankErr(op, r, special)
}

func (c *Comm) rankErr(op string, r int, special []int) error {
	for _, s := range special {
		if r == s {
			return nil
		}
	}
	return misuse(ErrRank, op, "rank %d, communicator size %d", r, c.size)
}

// checkTag accepts 0..MPI_TAG_UB, and AnyTag when anyOK.
func checkTag(op string, tag int, anyOK bool) error {
	if uint(tag) <= uint(tagUB) || (anyOK && tag == AnyTag) {
		return nil
	}
	return tagErr(op, tag)
}

func tagErr(op string, tag int) error {
	return misuse(ErrTag, op, "tag %d, MPI_TAG_UB %d", tag, tagUB)
}

// Rank is this process's rank in c.
func (c *Comm) Rank() int { return c.rank }

// Size is the number of processes in c.
func (c *Comm) Size() int { return c.size }

// wrap makes a Comm of a new handle; MPI_COMM_NULL gives nil.
func wrap(op string, h C.MPI_Comm) (*Comm, error) {
	if h == C.gc_comm_null() {
		return nil, nil
	}
	n := &Comm{h: h}
	if err := n.setup(op); err != nil {
		C.MPI_Comm_free(&n.h)
		return nil, err
	}
	return n, nil
}

// Dup duplicates c (MPI_Comm_dup): same group (and grid), separate message
// space.
func (c *Comm) Dup() (*Comm, error) {
	if err := c.check("MPI_Comm_dup"); err != nil {
		return nil, err
	}
	var h C.MPI_Comm
	if err := mpiErr("MPI_Comm_dup", C.MPI_Comm_dup(c.h, &h)); err != nil {
		return nil, err
	}
	n, err := wrap("MPI_Comm_dup", h)
	if n != nil {
		n.ndims = c.ndims // MPI_Comm_dup keeps the topology
	}
	return n, err
}

// Split partitions c by color, ordering by key then rank (MPI_Comm_split).
// A process passing color Undefined gets a nil communicator.
func (c *Comm) Split(color, key int) (*Comm, error) {
	if err := c.check("MPI_Comm_split"); err != nil {
		return nil, err
	}
	if color < 0 && color != Undefined {
		return nil, misuse(ErrArg, "MPI_Comm_split", "color %d is negative", color)
	}
	var h C.MPI_Comm
	if err := mpiErr("MPI_Comm_split", C.MPI_Comm_split(c.h, C.int(color), C.int(key), &h)); err != nil {
		return nil, err
	}
	return wrap("MPI_Comm_split", h)
}

// SplitShared splits c into communicators of the processes that can share
// memory, ranked in c's order (MPI_Comm_split_type, MPI_COMM_TYPE_SHARED).
// It is collective over c.
func (c *Comm) SplitShared() (*Comm, error) {
	const op = "MPI_Comm_split_type"
	if err := c.check(op); err != nil {
		return nil, err
	}
	var h C.MPI_Comm
	if err := mpiErr(op, C.gc_comm_split_shared(c.h, &h)); err != nil {
		return nil, err
	}
	return wrap(op, h)
}

// Create makes a communicator of the listed ranks of c, in that order
// (MPI_Comm_create over MPI_Group_incl). It is collective over c and every
// process must pass the same list; processes not listed get nil.
func (c *Comm) Create(ranks []int) (*Comm, error) {
	const op = "MPI_Comm_create"
	if err := c.check(op); err != nil {
		return nil, err
	}
	seen := make(map[int]bool, len(ranks))
	cr := make([]C.int, len(ranks))
	for i, r := range ranks {
		if err := c.checkRank(op, r); err != nil {
			return nil, err
		}
		if seen[r] {
			return nil, misuse(ErrArg, op, "rank %d listed twice", r)
		}
		seen[r] = true
		cr[i] = C.int(r)
	}
	var g, sub C.MPI_Group
	if err := mpiErr("MPI_Comm_group", C.MPI_Comm_group(c.h, &g)); err != nil {
		return nil, err
	}
	defer C.MPI_Group_free(&g)
	var p *C.int
	if len(cr) > 0 {
		p = &cr[0]
	}
	if err := mpiErr("MPI_Group_incl", C.MPI_Group_incl(g, C.int(len(cr)), p, &sub)); err != nil {
		return nil, err
	}
	defer C.MPI_Group_free(&sub)
	var h C.MPI_Comm
	if err := mpiErr(op, C.MPI_Comm_create(c.h, sub, &h)); err != nil {
		return nil, err
	}
	return wrap(op, h)
}

// Free releases c (MPI_Comm_free). World and Self cannot be freed; any later
// use of c returns ErrFreed.
func (c *Comm) Free() error {
	if err := c.check("MPI_Comm_free"); err != nil {
		return err
	}
	if c.predefined {
		return misuse(ErrArg, "MPI_Comm_free", "a predefined communicator cannot be freed")
	}
	if !c.freed.CompareAndSwap(false, true) {
		return misuse(ErrFreed, "MPI_Comm_free", "communicator was freed")
	}
	return mpiErr("MPI_Comm_free", C.MPI_Comm_free(&c.h))
}

// Barrier blocks until every process of c has called it (MPI_Barrier).
func (c *Comm) Barrier() error {
	if err := c.check("MPI_Barrier"); err != nil {
		return err
	}
	return mpiErr("MPI_Barrier", C.gc_barrier(hComm(c.h)))
}
