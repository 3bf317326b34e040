package mpi

/*
#include "gc.h"
#include "gc_coll.h"
*/
import "C"

// Cartesian grids of processes and the exchange with a grid's neighbours
// (MPI's process topologies, the part a halo exchange uses).

// CartCreate makes a communicator of c's processes on a grid of dims,
// periodic in the dimensions where periodic says so, ranked as in c (no
// reordering): MPI_Cart_create. It is collective over c; the dims must
// multiply to Size().
func (c *Comm) CartCreate(dims []int, periodic []bool) (*Comm, error) {
	const op = "MPI_Cart_create"
	if err := c.check(op); err != nil {
		return nil, err
	}
	if len(dims) == 0 || len(periodic) != len(dims) {
		return nil, misuse(ErrArg, op, "%d dims and %d periodic flags", len(dims), len(periodic))
	}
	cd, cp := make([]C.int, len(dims)), make([]C.int, len(dims))
	cells := 1
	for i, d := range dims {
		if d <= 0 || d > c.size {
			return nil, misuse(ErrArg, op, "dimension %d has %d processes", i, d)
		}
		cells *= d
		if cells > c.size {
			break
		}
		cd[i], cp[i] = C.int(d), cbool(periodic[i])
	}
	if cells != c.size {
		return nil, misuse(ErrArg, op, "dims %v do not multiply to the %d processes", dims, c.size)
	}
	var h C.MPI_Comm
	if err := mpiErr(op, C.MPI_Cart_create(c.h, C.int(len(dims)), cints(cd), cints(cp), 0, &h)); err != nil {
		return nil, err
	}
	n, err := wrap(op, h)
	if err != nil {
		return nil, err
	}
	n.ndims = len(dims)
	return n, nil
}

// CartShift is the ranks this process receives from and sends to in a
// shift by disp along dimension dim of c's grid (MPI_Cart_shift): ProcNull
// past a non-periodic edge.
func (c *Comm) CartShift(dim, disp int) (source, dest int, err error) {
	const op = "MPI_Cart_shift"
	if err := c.check(op); err != nil {
		return 0, 0, err
	}
	if c.ndims == 0 || dim < 0 || dim >= c.ndims {
		return 0, 0, misuse(ErrArg, op, "dimension %d of a grid of %d", dim, c.ndims)
	}
	var s, d C.int
	if err := mpiErr(op, C.MPI_Cart_shift(c.h, C.int(dim), C.int(disp), &s, &d)); err != nil {
		return 0, 0, err
	}
	return int(s), int(d), nil
}

// NeighborAlltoall exchanges a block of len(send)/(2*dims) elements with
// each neighbour of this process on c's grid (MPI_Neighbor_alltoall): in
// dimension i, block 2i goes to the neighbour below (CartShift(i, 1)'s
// source) and block 2i+1 to the one above, and recv's blocks come from
// them in the same order. A block of a neighbour past a non-periodic edge
// is neither sent nor written.
func NeighborAlltoall[T Element](c *Comm, send, recv []T) error {
	return c.neighborAlltoall(spanOf(send), spanOf(recv))
}

func (c *Comm) neighborAlltoall(s, r span) error {
	const op = "MPI_Neighbor_alltoall"
	if err := c.check(op); err != nil {
		return err
	}
	if c.ndims == 0 {
		return misuse(ErrArg, op, "the communicator has no grid (CartCreate)")
	}
	k := 2 * c.ndims
	if s.n%k != 0 {
		return misuse(ErrArg, op, "send of %d elements is not %d equal blocks", s.n, k)
	}
	n := s.n / k
	if err := checkCount(op, n); err != nil {
		return err
	}
	if n > 0 {
		if err := s.need(op, "send", s.n); err != nil {
			return err
		}
		if err := r.need(op, "recv", s.n); err != nil {
			return err
		}
	}
	if err := overlap(op, s, s.n, r, s.n); err != nil {
		return err
	}
	return mpiErr(op, C.gc_neighbor_alltoall(s.c(), r.c(), C.int(n), hType(s.dt.h), hComm(c.h)))
}

// NeighborAlltoallv is NeighborAlltoall with a count and a displacement
// per neighbour on each side, in the neighbours' order
// (MPI_Neighbor_alltoallv).
func NeighborAlltoallv[T Element](c *Comm, send []T, sendCounts, sendDispls []int, recv []T, recvCounts, recvDispls []int) error {
	return c.neighborAlltoallv(spanOf(send), sendCounts, sendDispls, spanOf(recv), recvCounts, recvDispls)
}

func (c *Comm) neighborAlltoallv(s span, sc, sd []int, r span, rc, rd []int) error {
	const op = "MPI_Neighbor_alltoallv"
	if err := c.check(op); err != nil {
		return err
	}
	if c.ndims == 0 {
		return misuse(ErrArg, op, "the communicator has no grid (CartCreate)")
	}
	k := 2 * c.ndims
	csc, csd, err := vBlocksOf(op, "send", s, sc, sd, k, false)
	if err != nil {
		return err
	}
	crc, crd, err := vBlocksOf(op, "recv", r, rc, rd, k, true)
	if err != nil {
		return err
	}
	if err := overlap(op, s, s.n, r, r.n); err != nil {
		return err
	}
	return mpiErr(op, C.gc_neighbor_alltoallv(s.c(), cints(csc), cints(csd), r.c(), cints(crc), cints(crd), hType(s.dt.h), hComm(c.h)))
}
