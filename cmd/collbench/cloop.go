package main

/*
#include "cloop.h"
*/
import "C"

import (
	"errors"
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

// The v forms' C side: the counts and displacements of the plain
// collectives, size bytes (or elems(size) float64) per rank.

func (b *bench) cGatherv(size, iters int) error {
	return cErr("MPI_Gatherv", C.cb_gatherv(bytesPtr(b.sb), bytesPtr(b.rb), C.int(size), C.int(iters)))
}

func (b *bench) cAllgatherv(size, iters int) error {
	return cErr("MPI_Allgatherv", C.cb_allgatherv(bytesPtr(b.sb), bytesPtr(b.rb), C.int(size), C.int(iters)))
}

func (b *bench) cAlltoallv(size, iters int) error {
	return cErr("MPI_Alltoallv", C.cb_alltoallv(bytesPtr(b.sb), bytesPtr(b.rb), C.int(size), C.int(iters)))
}

func (b *bench) cReduceScatter(size, iters int) error {
	return cErr("MPI_Reduce_scatter", C.cb_reduce_scatter(f64Ptr(b.sf), f64Ptr(b.rf), C.int(elems(size)), C.int(iters)))
}

// cState is the C loops' state between calls (cb_state in cloop.h).
type cState C.cb_state

// cstate is the C loops' state, made on the first call of a loop that
// keeps something (the warm-up). The requests it keeps hold the bench's
// buffers between calls, so they are pinned until closeC.
func (b *bench) cstate() (*C.cb_state, error) {
	if b.cs == nil {
		st := C.cb_state_new()
		if st == nil {
			return nil, errors.New("the C loops' state: out of memory")
		}
		for _, p := range []unsafe.Pointer{bytesPtr(b.sb), bytesPtr(b.rb), unsafe.Pointer(f64Ptr(b.sf)), unsafe.Pointer(f64Ptr(b.rf))} {
			b.cPins.Pin(p)
		}
		b.cs = (*cState)(st)
	}
	return (*C.cb_state)(b.cs), nil
}

// closeC releases the C loops' state: the requests and the grid they keep,
// then the pins of the buffers.
func (b *bench) closeC() error {
	if b.cs == nil {
		return nil
	}
	rc := C.cb_state_free((*C.cb_state)(b.cs))
	b.cs = nil
	b.cPins.Unpin()
	return cErr("MPI_Request_free/MPI_Comm_free", rc)
}

func (b *bench) cAllreduceInit(size, iters int) error {
	st, err := b.cstate()
	if err != nil {
		return err
	}
	return cErr("MPI_Allreduce_init/MPI_Start/MPI_Wait", C.cb_allreduce_init(st, f64Ptr(b.sf), f64Ptr(b.rf), C.int(elems(size)), C.int(iters)))
}

func (b *bench) cBcastInit(size, iters int) error {
	st, err := b.cstate()
	if err != nil {
		return err
	}
	return cErr("MPI_Bcast_init/MPI_Start/MPI_Wait", C.cb_bcast_init(st, bytesPtr(b.sb), C.int(size), C.int(iters)))
}

func (b *bench) cNeighborAlltoall(size, iters int) error {
	st, err := b.cstate()
	if err != nil {
		return err
	}
	return cErr("MPI_Neighbor_alltoall", C.cb_neighbor_alltoall(st, bytesPtr(b.sb), bytesPtr(b.rb), C.int(size), C.int(iters)))
}
