package mpi

/*
#include "gc_coll.h"
*/
import "C"

// Nonblocking collectives. Each starts the operation and returns a Request;
// the buffers are pinned and must not be touched until Test, Wait or one of
// the multi-request calls completes it. Arguments, in-place forms and misuse
// errors are those of the blocking forms in coll.go. Every process must start
// the same nonblocking collectives on a communicator in the same order. Open
// MPI progresses them only inside MPI calls.

// Ibarrier starts a barrier (MPI_Ibarrier): it completes once every process
// of c has started it.
func (c *Comm) Ibarrier() (*Request, error) {
	const op = "MPI_Ibarrier"
	if err := c.check(op); err != nil {
		return nil, err
	}
	req := startColl(Byte, -1, nil, nil)
	return req.started(op, C.gc_ibarrier(hComm(c.h)))
}

// Ibcast starts sending b from root to every process (MPI_Ibcast).
func (c *Comm) Ibcast(b []byte, root int) (*Request, error) {
	return c.bcast(true, byteSpan(b), root)
}

// Ibcast starts sending the elements of b from root to every process (MPI_Ibcast).
func Ibcast[T Element](c *Comm, b []T, root int) (*Request, error) {
	return c.bcast(true, spanOf(b), root)
}

// Ireduce starts Reduce (MPI_Ireduce).
func Ireduce[T Element](c *Comm, send, recv []T, op Op, root int) (*Request, error) {
	return c.reduce(true, spanOf(send), spanOf(recv), op, root)
}

// Iallreduce starts Allreduce (MPI_Iallreduce).
func Iallreduce[T Element](c *Comm, send, recv []T, op Op) (*Request, error) {
	return c.elementwise(true, kindAllreduce, spanOf(send), spanOf(recv), op)
}

// Iscan starts Scan (MPI_Iscan).
func Iscan[T Element](c *Comm, send, recv []T, op Op) (*Request, error) {
	return c.elementwise(true, kindScan, spanOf(send), spanOf(recv), op)
}

// Iexscan starts Exscan (MPI_Iexscan).
func Iexscan[T Element](c *Comm, send, recv []T, op Op) (*Request, error) {
	return c.elementwise(true, kindExscan, spanOf(send), spanOf(recv), op)
}

// IreduceScatterBlock starts ReduceScatterBlock (MPI_Ireduce_scatter_block).
func IreduceScatterBlock[T Element](c *Comm, send, recv []T, op Op) (*Request, error) {
	return c.reduceScatterBlock(true, spanOf(send), spanOf(recv), op)
}

// Igather starts Gather (MPI_Igather).
func (c *Comm) Igather(send, recv []byte, root int) (*Request, error) {
	return c.gather(true, byteSpan(send), byteSpan(recv), root)
}

// Igather starts Gather (MPI_Igather).
func Igather[T Element](c *Comm, send, recv []T, root int) (*Request, error) {
	return c.gather(true, spanOf(send), spanOf(recv), root)
}

// Iscatter starts Scatter (MPI_Iscatter).
func (c *Comm) Iscatter(send, recv []byte, root int) (*Request, error) {
	return c.scatter(true, byteSpan(send), byteSpan(recv), root)
}

// Iscatter starts Scatter (MPI_Iscatter).
func Iscatter[T Element](c *Comm, send, recv []T, root int) (*Request, error) {
	return c.scatter(true, spanOf(send), spanOf(recv), root)
}

// Iallgather starts Allgather (MPI_Iallgather).
func (c *Comm) Iallgather(send, recv []byte) (*Request, error) {
	return c.allgather(true, byteSpan(send), byteSpan(recv))
}

// Iallgather starts Allgather (MPI_Iallgather).
func Iallgather[T Element](c *Comm, send, recv []T) (*Request, error) {
	return c.allgather(true, spanOf(send), spanOf(recv))
}

// Ialltoall starts Alltoall (MPI_Ialltoall).
func (c *Comm) Ialltoall(send, recv []byte) (*Request, error) {
	return c.alltoall(true, byteSpan(send), byteSpan(recv))
}

// Ialltoall starts Alltoall (MPI_Ialltoall).
func Ialltoall[T Element](c *Comm, send, recv []T) (*Request, error) {
	return c.alltoall(true, spanOf(send), spanOf(recv))
}
