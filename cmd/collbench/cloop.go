package main

/*
#include "cloop.h"
*/
import "C"

import (
	"fmt"
	"strings"
	"unsafe"

	"github.com/gocoll/gocoll/mpiconduit/mpi"
)

// The C loops: one cgo call per timed loop, on the same buffers as the Go
// loops (Go memory holding no pointers, used only during the call).

func bytesPtr(b []byte) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(b)) }

func f64Ptr(f []float64) *C.double { return (*C.double)(unsafe.Pointer(unsafe.SliceData(f))) }

// cErr turns an MPI return code of a C loop into an error.
func cErr(op string, rc C.int) error {
	if rc == C.MPI_SUCCESS {
		return nil
	}
	var buf [512]C.char
	C.cb_error_string(rc, &buf[0], C.int(len(buf)))
	return fmt.Errorf("in the C loop: %s: %s (MPI error code %d)", op, C.GoString(&buf[0]), int(rc))
}

// libraryVersion is the MPI library's name and version: the first line of
// MPI_Get_library_version up to a comma, blanks folded ("Open MPI v4.1.4",
// "MPICH Version: 4.0.2").
func libraryVersion() string {
	v, _, _ := strings.Cut(mpi.LibraryVersion(), "\n")
	v, _, _ = strings.Cut(v, ",")
	return strings.Join(strings.Fields(v), " ")
}

func (b *bench) cPingPong(size, iters int) error {
	return cErr("MPI_Send/MPI_Recv", C.cb_pingpong(C.int(b.rank), bytesPtr(b.sb), bytesPtr(b.rb), C.int(size), C.int(iters)))
}

func (b *bench) cStream(size, iters int) error {
	return cErr("MPI_Isend/MPI_Irecv stream", C.cb_stream(C.int(b.rank), bytesPtr(b.sb), bytesPtr(b.rb), C.int(size), C.int(iters), (*C.longlong)(&b.streamAt)))
}

func (b *bench) cBarrier(_, iters int) error {
	return cErr("MPI_Barrier", C.cb_barrier(C.int(iters)))
}

func (b *bench) cBcast(size, iters int) error {
	return cErr("MPI_Bcast", C.cb_bcast(bytesPtr(b.sb), C.int(size), C.int(iters)))
}

func (b *bench) cReduce(size, iters int) error {
	return cErr("MPI_Reduce", C.cb_reduce(f64Ptr(b.sf), f64Ptr(b.rf), C.int(elems(size)), C.int(iters)))
}

func (b *bench) cAllreduce(size, iters int) error {
	return cErr("MPI_Allreduce", C.cb_allreduce(f64Ptr(b.sf), f64Ptr(b.rf), C.int(elems(size)), C.int(iters)))
}

func (b *bench) cGather(size, iters int) error {
	return cErr("MPI_Gather", C.cb_gather(bytesPtr(b.sb), bytesPtr(b.rb), C.int(size), C.int(iters)))
}

func (b *bench) cScatter(size, iters int) error {
	return cErr("MPI_Scatter", C.cb_scatter(bytesPtr(b.sb), bytesPtr(b.rb), C.int(size), C.int(iters)))
}

func (b *bench) cAllgather(size, iters int) error {
	return cErr("MPI_Allgather", C.cb_allgather(bytesPtr(b.sb), bytesPtr(b.rb), C.int(size), C.int(iters)))
}

func (b *bench) cAlltoall(size, iters int) error {
	return cErr("MPI_Alltoall", C.cb_alltoall(bytesPtr(b.sb), bytesPtr(b.rb), C.int(size), C.int(iters)))
}

func (b *bench) cScan(size, iters int) error {
	return cErr("MPI_Scan", C.cb_scan(f64Ptr(b.sf), f64Ptr(b.rf), C.int(elems(size)), C.int(iters)))
}

func (b *bench) cExscan(size, iters int) error {
	return cErr("MPI_Exscan", C.cb_exscan(f64Ptr(b.sf), f64Ptr(b.rf), C.int(elems(size)), C.int(iters)))
}

func (b *bench) cReduceScatterBlock(size, iters int) error {
	return cErr("MPI_Reduce_scatter_block", C.cb_reduce_scatter_block(f64Ptr(b.sf), f64Ptr(b.rf), C.int(elems(size)), C.int(iters)))
}

// cAggBcast and cAggAllreduce are the Agg16 rows' native side: per
// iteration one call on each member's buffers (aggregate.go).
func (b *bench) cAggBcast(size, iters int) error {
	dst, _ := b.aggBufs(aggMembers, size)
	return cErr("MPI_Bcast", C.cb_bcast_each(bytesPtr(dst[0]), C.long(b.aggStride), C.int(aggMembers), C.int(size), C.int(iters)))
}

func (b *bench) cAggAllreduce(size, iters int) error {
	dst, src := b.aggBufs(aggMembers, 8*elems(size))
	return cErr("MPI_Allreduce", C.cb_allreduce_each(bytesPtr(src[0]), bytesPtr(dst[0]), C.long(b.aggStride), C.int(aggMembers),
		C.int(elems(size)), C.int(iters)))
}

func (b *bench) cIbcast(size, iters int) error {
	return cErr("MPI_Ibcast/MPI_Wait", C.cb_ibcast(bytesPtr(b.sb), C.int(size), C.int(iters)))
}

func (b *bench) cIallreduce(size, iters int) error {
	return cErr("MPI_Iallreduce/MPI_Wait", C.cb_iallreduce(f64Ptr(b.sf), f64Ptr(b.rf), C.int(elems(size)), C.int(iters)))
}
