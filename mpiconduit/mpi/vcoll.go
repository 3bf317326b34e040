package mpi

/*
#include "gc.h"
#include "gc_coll.h"
*/
import "C"

import (
	"math"
	"slices"
	"unsafe"
)

// The v forms of the data-movement collectives: a count and a displacement
// per rank, in elements of the buffer's type, for the side that holds
// several ranks' blocks. They have no in-place form: send and recv must not
// overlap. Every check below is local: arguments that differ between ranks
// (a count that is not the one its peer sends) are MPI's to report.

// vBlocks checks the counts and displacements of a buffer b that holds a
// block per rank: Size() of each (k of each in vBlocksOf), counts and displacements at least 0,
// every block within b and, where the collective writes b (disjoint), no two
// non-empty blocks overlapping. It returns them as MPI's ints.
func (c *Comm) vBlocks(op, what string, b span, counts, displs []int, disjoint bool) (cc, cd []C.int, err error) {
	return vBlocksOf(op, what, b, counts, displs, c.size, disjoint)
}

// vBlocksOf is vBlocks for k blocks (ranks, or a grid's neighbours).
func vBlocksOf(op, what string, b span, counts, displs []int, k int, disjoint bool) (cc, cd []C.int, err error) {
	if len(counts) != k || len(displs) != k {
		return nil, nil, misuse(ErrArg, op, "%s: %d counts and %d displacements for %d blocks", what, len(counts), len(displs), k)
	}
	cc, cd = make([]C.int, k), make([]C.int, k)
	for i, n := range counts {
		d := displs[i]
		switch {
		case n < 0 || d < 0:
			return nil, nil, misuse(ErrArg, op, "%s: rank %d's count %d or displacement %d is negative", what, i, n, d)
		case n > math.MaxInt32 || d > math.MaxInt32:
			return nil, nil, misuse(ErrCount, op, "%s: rank %d's count %d or displacement %d exceeds MPI's int", what, i, n, d)
		case n > 0 && b.p == nil:
			return nil, nil, b.needErr(op, what, d+n)
		case n > 0 && d > b.n-n:
			return nil, nil, misuse(ErrShortBuffer, op, "%s buffer has %d elements, rank %d's block ends at %d", what, b.n, i, d+n)
		}
		cc[i], cd[i] = C.int(n), C.int(d)
	}
	if disjoint {
		order := make([]int, 0, k)
		for i, n := range counts {
			if n > 0 {
				order = append(order, i)
			}
		}
		slices.SortFunc(order, func(x, y int) int { return displs[x] - displs[y] })
		for k := 1; k < len(order); k++ {
			if x, y := order[k-1], order[k]; displs[x]+counts[x] > displs[y] {
				return nil, nil, misuse(ErrArg, op, "%s: the blocks of ranks %d and %d overlap", what, x, y)
			}
		}
	}
	return cc, cd, nil
}

// cints is the address of the first of xs, nil for none.
func cints(xs []C.int) *C.int {
	if len(xs) == 0 {
		return nil
	}
	return (*C.int)(unsafe.Pointer(&xs[0]))
}

// vOwn checks the buffer of a rank's own block: present unless empty, and
// within MPI's int.
func vOwn(op, what string, b span) error {
	if b.n > 0 {
		if err := b.need(op, what, b.n); err != nil {
			return err
		}
	}
	return checkCount(op, b.n)
}

// Gatherv collects send of every process into recv at root, rank i's
// counts[i] elements at recv[displs[i]:] (MPI_Gatherv). counts, displs and
// recv are the root's, ignored elsewhere; at the root counts[root] must be
// len(send).
func (c *Comm) Gatherv(send, recv []byte, counts, displs []int, root int) error {
	return c.gatherv(byteSpan(send), byteSpan(recv), counts, displs, root)
}

// Gatherv collects send of every process into recv at root (MPI_Gatherv);
// see Comm.Gatherv.
func Gatherv[T Element](c *Comm, send, recv []T, counts, displs []int, root int) error {
	return c.gatherv(spanOf(send), spanOf(recv), counts, displs, root)
}

func (c *Comm) gatherv(s, r span, counts, displs []int, root int) error {
	const op = "MPI_Gatherv"
	if err := c.check(op); err != nil {
		return err
	}
	if err := c.checkRank(op, root); err != nil {
		return err
	}
	if err := vOwn(op, "send", s); err != nil {
		return err
	}
	var cc, cd []C.int
	if c.rank == root {
		var err error
		if cc, cd, err = c.vBlocks(op, "recv", r, counts, displs, true); err != nil {
			return err
		}
		if counts[root] != s.n {
			return misuse(ErrArg, op, "the root's count %d is not its send's %d elements", counts[root], s.n)
		}
		if err := overlap(op, s, s.n, r, r.n); err != nil {
			return err
		}
	} else {
		r = span{dt: s.dt}
	}
	return mpiErr(op, C.gc_gatherv(s.c(), C.int(s.n), r.c(), cints(cc), cints(cd), hType(s.dt.h), C.int(root), hComm(c.h)))
}

// Scatterv sends send[displs[i]:], counts[i] elements, at root to recv of
// rank i (MPI_Scatterv). send, counts and displs are the root's, ignored
// elsewhere; recv's length is the rank's count (at the root,
// counts[root]).
func (c *Comm) Scatterv(send []byte, counts, displs []int, recv []byte, root int) error {
	return c.scatterv(byteSpan(send), counts, displs, byteSpan(recv), root)
}

// Scatterv sends block i of send at root to recv of rank i
// (MPI_Scatterv); see Comm.Scatterv.
func Scatterv[T Element](c *Comm, send []T, counts, displs []int, recv []T, root int) error {
	return c.scatterv(spanOf(send), counts, displs, spanOf(recv), root)
}

func (c *Comm) scatterv(s span, counts, displs []int, r span, root int) error {
	const op = "MPI_Scatterv"
	if err := c.check(op); err != nil {
		return err
	}
	if err := c.checkRank(op, root); err != nil {
		return err
	}
	if err := vOwn(op, "recv", r); err != nil {
		return err
	}
	var cc, cd []C.int
	if c.rank == root {
		var err error
		if cc, cd, err = c.vBlocks(op, "send", s, counts, displs, false); err != nil {
			return err
		}
		if counts[root] != r.n {
			return misuse(ErrArg, op, "the root's count %d is not its recv's %d elements", counts[root], r.n)
		}
		if err := overlap(op, s, s.n, r, r.n); err != nil {
			return err
		}
	} else {
		s = span{dt: r.dt}
	}
	return mpiErr(op, C.gc_scatterv(s.c(), cints(cc), cints(cd), r.c(), C.int(r.n), hType(r.dt.h), C.int(root), hComm(c.h)))
}

// Allgatherv collects send of every process into recv of every process,
// rank i's counts[i] elements at recv[displs[i]:] (MPI_Allgatherv);
// counts[Rank()] must be len(send).
func (c *Comm) Allgatherv(send, recv []byte, counts, displs []int) error {
	return c.allgatherv(byteSpan(send), byteSpan(recv), counts, displs)
}

// Allgatherv collects send of every process into recv of every process
// (MPI_Allgatherv); see Comm.Allgatherv.
func Allgatherv[T Element](c *Comm, send, recv []T, counts, displs []int) error {
	return c.allgatherv(spanOf(send), spanOf(recv), counts, displs)
}

func (c *Comm) allgatherv(s, r span, counts, displs []int) error {
	const op = "MPI_Allgatherv"
	if err := c.check(op); err != nil {
		return err
	}
	if err := vOwn(op, "send", s); err != nil {
		return err
	}
	cc, cd, err := c.vBlocks(op, "recv", r, counts, displs, true)
	if err != nil {
		return err
	}
	if counts[c.rank] != s.n {
		return misuse(ErrArg, op, "this rank's count %d is not its send's %d elements", counts[c.rank], s.n)
	}
	if err := overlap(op, s, s.n, r, r.n); err != nil {
		return err
	}
	return mpiErr(op, C.gc_allgatherv(s.c(), C.int(s.n), r.c(), cints(cc), cints(cd), hType(s.dt.h), hComm(c.h)))
}

// Alltoallv sends sendCounts[j] elements at send[sendDispls[j]:] to rank j
// and receives rank j's block for this rank, recvCounts[j] elements, at
// recv[recvDispls[j]:] (MPI_Alltoallv).
func (c *Comm) Alltoallv(send []byte, sendCounts, sendDispls []int, recv []byte, recvCounts, recvDispls []int) error {
	return c.alltoallv(byteSpan(send), sendCounts, sendDispls, byteSpan(recv), recvCounts, recvDispls)
}

// Alltoallv exchanges a block of its own size between every pair of
// processes (MPI_Alltoallv); see Comm.Alltoallv.
func Alltoallv[T Element](c *Comm, send []T, sendCounts, sendDispls []int, recv []T, recvCounts, recvDispls []int) error {
	return c.alltoallv(spanOf(send), sendCounts, sendDispls, spanOf(recv), recvCounts, recvDispls)
}

func (c *Comm) alltoallv(s span, sc, sd []int, r span, rc, rd []int) error {
	const op = "MPI_Alltoallv"
	if err := c.check(op); err != nil {
		return err
	}
	csc, csd, err := c.vBlocks(op, "send", s, sc, sd, false)
	if err != nil {
		return err
	}
	crc, crd, err := c.vBlocks(op, "recv", r, rc, rd, true)
	if err != nil {
		return err
	}
	if err := overlap(op, s, s.n, r, r.n); err != nil {
		return err
	}
	return mpiErr(op, C.gc_alltoallv(s.c(), cints(csc), cints(csd), r.c(), cints(crc), cints(crd), hType(s.dt.h), hComm(c.h)))
}

// ReduceScatter reduces send of every process with op and leaves rank i's
// block of the result, counts[i] elements, in recv of rank i
// (MPI_Reduce_scatter). send holds the blocks one after another, the sum
// of counts elements; recv holds this rank's counts[Rank()]. Not in place.
func ReduceScatter[T Element](c *Comm, send, recv []T, counts []int, op Op) error {
	return c.reduceScatter(spanOf(send), spanOf(recv), counts, op)
}

func (c *Comm) reduceScatter(s, r span, counts []int, o Op) error {
	const op = "MPI_Reduce_scatter"
	if err := c.check(op); err != nil {
		return err
	}
	if len(counts) != c.size {
		return misuse(ErrArg, op, "%d counts for %d ranks", len(counts), c.size)
	}
	cc := make([]C.int, c.size)
	total := 0
	for i, n := range counts {
		switch {
		case n < 0:
			return misuse(ErrArg, op, "rank %d's count %d is negative", i, n)
		case n > math.MaxInt32 || total+n > math.MaxInt32:
			return misuse(ErrCount, op, "rank %d's count %d takes the total beyond MPI's int", i, n)
		}
		cc[i], total = C.int(n), total+n
	}
	if err := s.need(op, "send", total); err != nil && total > 0 {
		return err
	}
	if n := counts[c.rank]; r.n != n {
		return misuse(ErrArg, op, "recv has %d elements, this rank's count is %d", r.n, n)
	}
	if err := overlap(op, s, s.n, r, r.n); err != nil {
		return err
	}
	slot, err := holdOp(op, o, s.dt)
	if err != nil {
		return err
	}
	rc := C.gc_reduce_scatter(s.c(), r.c(), cints(cc), hType(s.dt.h), hOp(o.h), hComm(c.h))
	releaseOp(slot)
	return mpiErr(op, rc)
}
