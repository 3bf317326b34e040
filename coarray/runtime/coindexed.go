package main

/*
#include "caf.h"
*/
import "C"

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync/atomic"
	"unsafe"

	"github.com/gocoll/gocoll/coarray"
	"github.com/gocoll/gocoll/mpiconduit/mpi"
)

// Coarrays and coindexed access. Every image allocates its part of each
// coarray from its heap (GOCOLL_CAF_HEAP bytes per image, default 256 MiB,
// of which only what is used is touched): memory that the processes of a
// node share (MPI_Win_allocate_shared), as the conduit's segments are, and
// that MPI reaches from other nodes through a window over MPI_COMM_WORLD
// (MPI_Win_create over it, made when the job spans nodes). The images of
// the registering team learn each other's addresses of it (one process per
// image: an image's rank is its node). Memory the heap cannot give, and
// the allocatable components of coarrays (which gfortran allocates by
// image, and may reallocate), are attached to a dynamic window instead
// (coWin). An address in an image's process names where it is (where): in
// the heap of a process of this node, which this process maps, so that a
// coindexed access is a copy; or in a window at a displacement, so that a
// write is MPI_Put of each contiguous run of the remote section, then
// MPI_Win_flush (the data is in place before the statement ends, so the
// image's next access, or any image after a synchronization, sees it), and
// a read MPI_Get of each run and MPI_Win_flush_local. The windows stay in
// one passive-target epoch (MPI_Win_lock_all) from start to end.

// coWin is the dynamic window; nil when MPI made none (coWinErr says why:
// Open MPI makes none for one process).
var (
	coWin    *mpi.Win
	coWinErr error
)

// heap is the coarrays' heap: the node's shared window, the window over
// every process (nil on one node, or when MPI made none), this image's
// memory, the heaps of this node's processes as mapped here (by rank; nil
// for other nodes'), every image's address of its own, and the free spans
// of this image's.
var heap struct {
	shared, win *mpi.Win
	mem         []byte
	peer        [][]byte
	bases       []int
	free        []span
}

// span is a free run of the heap: bytes off..off+n.
type span struct{ off, n int }

// heapAlign is the alignment of every heap allocation.
const heapAlign = 16

// openWindow makes the windows and opens their epochs (collective).
func openWindow() {
	w, err := mpi.WinCreateDynamic(mpi.World())
	if err == nil {
		if err = w.LockAll(0); err != nil {
			_ = w.Free()
		}
	}
	if err != nil {
		coWinErr = fmt.Errorf("MPI made no window for coindexed access: %w", err)
	} else {
		coWin = w
	}
	if err := openHeap(); err != nil {
		fmt.Fprintln(os.Stderr, "gocoll coarray runtime: no coarray heap (coarrays are attached one by one instead):", err)
	}
}

// openHeap makes the heap (collective); without one, coarrays go to the
// dynamic window.
func openHeap() error {
	size := 256 << 20
	if v := os.Getenv("GOCOLL_CAF_HEAP"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fmt.Errorf("GOCOLL_CAF_HEAP=%q is not a number of bytes", v)
		}
		size = n
	}
	size &^= heapAlign - 1
	if size == 0 {
		return nil
	}
	world := mpi.World()
	node, err := world.SplitShared()
	if err != nil {
		return err
	}
	ranks := make([]int64, node.Size())
	if err := mpi.Allgather(node, []int64{int64(world.Rank())}, ranks); err != nil {
		return err
	}
	shared, err := mpi.WinAllocateShared(node, size)
	if err != nil {
		return err
	}
	peer := make([][]byte, world.Size())
	for l, r := range ranks {
		if peer[r], err = shared.SharedMem(l); err != nil {
			return errors.Join(err, shared.Free())
		}
	}
	mem := peer[world.Rank()]
	var win *mpi.Win
	if node.Size() < world.Size() { // other nodes reach it through MPI
		if win, err = mpi.WinCreate(world, mem, 1); err == nil {
			if err = win.LockAll(0); err != nil {
				_ = win.Free()
			}
		}
		if err != nil {
			return errors.Join(err, shared.Free())
		}
	}
	all := make([]int64, world.Size())
	if err := mpi.Allgather(world, []int64{int64(uintptr(unsafe.Pointer(unsafe.SliceData(mem))))}, all); err != nil {
		return err
	}
	heap.shared, heap.win, heap.mem, heap.peer, heap.free = shared, win, mem, peer, []span{{0, len(mem)}}
	heap.bases = make([]int, len(all))
	for r, b := range all {
		heap.bases[r] = int(b)
	}
	return nil
}

// closeWindow ends the epochs and frees the windows (collective, before
// MPI_Finalize).
func closeWindow() error {
	var err error
	if heap.win != nil {
		err = errors.Join(heap.win.UnlockAll(), heap.win.Free())
	}
	if heap.shared != nil {
		err = errors.Join(err, heap.shared.Free())
	}
	heap.win, heap.shared, heap.peer = nil, nil, nil
	if coWin != nil {
		err = errors.Join(err, coWin.UnlockAll(), coWin.Free())
		coWin = nil
	}
	return err
}

// target is where an address of a process is: mapped here (local: the
// whole heap of a process of this node, from disp), or in a window at a
// displacement.
type target struct {
	local []byte
	win   *mpi.Win
	disp  int
}

// where is where address addr of rank's process is; byWindow asks for a
// window even for a heap mapped here when the heap has one (the atomics:
// other nodes change the same words through it).
func where(rank, addr int, byWindow bool) (target, error) {
	if heap.bases != nil && addr >= heap.bases[rank] && addr < heap.bases[rank]+len(heap.mem) {
		off := addr - heap.bases[rank]
		switch {
		case heap.win != nil && (byWindow || heap.peer[rank] == nil):
			return target{win: heap.win, disp: off}, nil
		case heap.peer[rank] != nil:
			return target{local: heap.peer[rank], disp: off}, nil
		}
	}
	if coWin == nil {
		return target{}, fmt.Errorf("%w: %w", coarray.ErrNotSupported, coWinErr)
	}
	return target{win: coWin, disp: addr}, nil
}

// move copies or transfers part to (put) or from offset off past t.
func (t target) move(part []byte, rank, off int, put bool) error {
	switch {
	case t.local != nil && put:
		copy(t.local[t.disp+off:], part)
	case t.local != nil:
		copy(part, t.local[t.disp+off:t.disp+off+len(part)])
	case put:
		return t.win.Put(part, rank, t.disp+off)
	default:
		return t.win.Get(part, rank, t.disp+off)
	}
	return nil
}

// complete completes t's transfers to or from rank: a flush for a window;
// for a copy a fence, so that the next synchronization publishes it.
func (t target) complete(rank int, put bool) error {
	switch {
	case t.local != nil:
		fence.Add(1)
		return nil
	case put:
		return t.win.Flush(rank)
	default:
		return t.win.FlushLocal(rank)
	}
}

// fence is the word complete's atomic add goes to (a full barrier).
var fence atomic.Int64

// inHeap reports whether p is in this image's heap.
func inHeap(p unsafe.Pointer) bool {
	if heap.win == nil {
		return false
	}
	a, b := uintptr(p), uintptr(unsafe.Pointer(unsafe.SliceData(heap.mem)))
	return a >= b && a < b+uintptr(len(heap.mem))
}

// gocaf_alloc is size bytes of the heap, zeroed, or nil when it has no room
// (or there is no heap).
//
//export gocaf_alloc
func gocaf_alloc(size C.size_t) unsafe.Pointer {
	n := (max(int(size), 1) + heapAlign - 1) &^ (heapAlign - 1)
	for i, f := range heap.free {
		if f.n < n {
			continue
		}
		if f.n == n {
			heap.free = slices.Delete(heap.free, i, i+1)
		} else {
			heap.free[i] = span{f.off + n, f.n - n}
		}
		b := heap.mem[f.off : f.off+n]
		clear(b)
		return unsafe.Pointer(unsafe.SliceData(b))
	}
	return nil
}

// gocaf_free gives back gocaf_alloc's p of size bytes.
//
//export gocaf_free
func gocaf_free(p unsafe.Pointer, size C.size_t) {
	off := int(uintptr(p) - uintptr(unsafe.Pointer(unsafe.SliceData(heap.mem))))
	n := (max(int(size), 1) + heapAlign - 1) &^ (heapAlign - 1)
	i, _ := slices.BinarySearchFunc(heap.free, off, func(f span, off int) int { return f.off - off })
	heap.free = slices.Insert(heap.free, i, span{off, n})
	// merge with the neighbours
	if i+1 < len(heap.free) && heap.free[i].off+heap.free[i].n == heap.free[i+1].off {
		heap.free[i].n += heap.free[i+1].n
		heap.free = slices.Delete(heap.free, i+1, i+2)
	}
	if i > 0 && heap.free[i-1].off+heap.free[i-1].n == heap.free[i].off {
		heap.free[i-1].n += heap.free[i].n
		heap.free = slices.Delete(heap.free, i, i+1)
	}
}

// coarrayPart is this image's part of a registered coarray.
type coarrayPart struct {
	mem   []byte // this image's part
	addrs []int  // by rank: each image's address of its part (the registering team's images)
}

var (
	coarrays = map[uintptr]*coarrayPart{} // by handle
	nextCo   uintptr
)

// gocaf_register attaches this image's part of a coarray of size bytes at
// mem to the window and learns the other images' addresses of theirs
// (collective over the current team); *handle names it from then on.
//
//export gocaf_register
func gocaf_register(mem unsafe.Pointer, size C.size_t, handle *C.uintptr_t, msg *C.char, msgLen C.size_t) C.int {
	co := &coarrayPart{mem: unsafe.Slice((*byte)(mem), max(int(size), 1)), addrs: make([]int, mpi.World().Size())}
	addr := int(uintptr(mem))
	var err error
	if !inHeap(mem) && coWin != nil {
		addr, err = coWin.Attach(co.mem)
	}
	if err == nil {
		np := img.NumImages()
		all := make([]byte, 8*np)
		err = img.GatherAllBytes(all, binary.LittleEndian.AppendUint64(nil, uint64(addr)))
		for i := 1; err == nil && i <= np; i++ {
			var r int
			if r, err = img.NodeOf(i); err == nil {
				co.addrs[r] = int(binary.LittleEndian.Uint64(all[8*(i-1):]))
			}
		}
	}
	if err != nil {
		return result(err, msg, msgLen)
	}
	nextCo++
	coarrays[nextCo] = co
	*handle = C.uintptr_t(nextCo)
	return 0
}

// gocaf_deregister detaches a coarray (after the synchronization of
// DEALLOCATE).
//
//export gocaf_deregister
func gocaf_deregister(h C.uintptr_t) {
	co := coarrays[uintptr(h)]
	delete(coarrays, uintptr(h))
	if co != nil && coWin != nil && !inHeap(unsafe.Pointer(unsafe.SliceData(co.mem))) {
		_ = coWin.Detach(co.mem)
	}
}

// stopped is the error of a coindexed access to image (an index in the
// current team) when it has stopped, else nil.
func stopped(image int) error {
	if img.ImageStopped(image) {
		return fmt.Errorf("%w: image %d", coarray.ErrStoppedImage, image)
	}
	return nil
}

// access is a coindexed access to image (an index in the current team) of
// the section r of coarray h, from or into buf (n bytes, the section's
// elements in order): put writes.
func access(h C.uintptr_t, image C.int, r *C.gocaf_shape, buf unsafe.Pointer, n C.size_t, put bool) error {
	co := coarrays[uintptr(h)]
	if co == nil {
		return fmt.Errorf("%w: coindexed access to a coarray the runtime did not register (an allocatable component?)", coarray.ErrNotSupported)
	}
	rank, err := img.NodeOf(int(image))
	if err == nil {
		err = stopped(int(image))
	}
	if err != nil {
		return err
	}
	b := mem(buf, n)
	local := rank == mpi.World().Rank()
	var t target
	if !local {
		if t, err = where(rank, co.addrs[rank], false); err != nil {
			return err
		}
	}
	var runErr error
	k := 0 // bytes of b done
	runs(r, func(off, length int) bool {
		if off < 0 || off+length > len(co.mem) {
			runErr = fmt.Errorf("%w: bytes %d..%d of its %d", coarray.ErrBounds, off, off+length, len(co.mem))
			return false
		}
		part := b[k : k+length]
		k += length
		switch {
		case local && put:
			copy(co.mem[off:], part)
		case local:
			copy(part, co.mem[off:off+length])
		default:
			runErr = t.move(part, rank, off, put)
		}
		return runErr == nil
	})
	if local || (runErr != nil && k == 0) {
		return runErr
	}
	return errors.Join(runErr, t.complete(rank, put))
}

// runs calls f with the byte offset and length of each contiguous run of
// the section r, in element order, until f returns false. The leading
// dimensions that lie contiguous make one block; the rest are walked.
func runs(r *C.gocaf_shape, f func(off, length int) bool) {
	rank := int(r.rank)
	base := int(uintptr(unsafe.Pointer(r.base)))
	for k := range rank {
		if r.extent[k] <= 0 {
			return
		}
	}
	block, inner := int(r.elem), 0
	for inner < rank && int(r.sm[inner]) == block {
		block *= int(r.extent[inner])
		inner++
	}
	var idx [C.GFC_MAX_DIMENSIONS]int
	start, length := -1, 0
	for {
		off := base
		for k := inner; k < rank; k++ {
			off += idx[k] * int(r.sm[k])
		}
		if start >= 0 && off == start+length {
			length += block
		} else {
			if start >= 0 && !f(start, length) {
				return
			}
			start, length = off, block
		}
		k := inner
		for ; k < rank; k++ {
			if idx[k]++; idx[k] < int(r.extent[k]) {
				break
			}
			idx[k] = 0
		}
		if k == rank {
			f(start, length)
			return
		}
	}
}

// gocaf_put writes buf (n bytes) into the section r of coarray h on image.
//
//export gocaf_put
func gocaf_put(h C.uintptr_t, image C.int, r *C.gocaf_shape, buf unsafe.Pointer, n C.size_t, msg *C.char, msgLen C.size_t) C.int {
	return result(access(h, image, r, buf, n, true), msg, msgLen)
}

// gocaf_get reads the section r of coarray h on image into buf (n bytes).
//
//export gocaf_get
func gocaf_get(h C.uintptr_t, image C.int, r *C.gocaf_shape, buf unsafe.Pointer, n C.size_t, msg *C.char, msgLen C.size_t) C.int {
	return result(access(h, image, r, buf, n, false), msg, msgLen)
}

// The by-reference calls (gfortran's x[i]%a(:) where a is an allocatable
// component) walk the other image's memory by address: the memory of a
// component is attached to the window when allocated (gocaf_attach), so
// an address read from the other image's descriptor is a displacement of
// the window as it stands.

// gocaf_attach attaches the memory of an allocatable component of a coarray
// (allocated by this image alone).
//
//export gocaf_attach
func gocaf_attach(mem unsafe.Pointer, size C.size_t, msg *C.char, msgLen C.size_t) C.int {
	if coWin == nil {
		return 0
	}
	_, err := coWin.Attach(unsafe.Slice((*byte)(mem), max(int(size), 1)))
	return result(err, msg, msgLen)
}

// gocaf_detach ends gocaf_attach.
//
//export gocaf_detach
func gocaf_detach(mem unsafe.Pointer, size C.size_t) {
	if coWin != nil {
		_ = coWin.Detach(unsafe.Slice((*byte)(mem), max(int(size), 1)))
	}
}

// gocaf_base sets *base to the address of coarray h's memory on image (an
// index of the current team), in that image's process.
//
//export gocaf_base
func gocaf_base(h C.uintptr_t, image C.int, base *C.uintptr_t, msg *C.char, msgLen C.size_t) C.int {
	co := coarrays[uintptr(h)]
	if co == nil {
		return result(fmt.Errorf("%w: a coindexed reference into a coarray the runtime did not register", coarray.ErrNotSupported), msg, msgLen)
	}
	rank, err := img.NodeOf(int(image))
	if err == nil {
		err = stopped(int(image))
	}
	switch {
	case err != nil:
		return result(err, msg, msgLen)
	case rank == mpi.World().Rank():
		*base = C.uintptr_t(uintptr(unsafe.Pointer(unsafe.SliceData(co.mem))))
	default:
		*base = C.uintptr_t(co.addrs[rank])
	}
	return 0
}

// gocaf_xfer moves n runs of bytes between buf (total bytes, the runs one
// after the other) and the addresses addrs (lens bytes each) in the process
// of image, another image: put writes there. (caf.c copies its own.)
//
//export gocaf_xfer
func gocaf_xfer(image C.int, addrs *C.uintptr_t, lens *C.size_t, n C.int, buf unsafe.Pointer, total C.size_t, put C.int, msg *C.char, msgLen C.size_t) C.int {
	rank, err := img.NodeOf(int(image))
	if err != nil {
		return result(err, msg, msgLen)
	}
	as, ls, b := unsafe.Slice(addrs, int(n)), unsafe.Slice(lens, int(n)), mem(buf, total)
	k := 0
	var used []target
	for i := 0; i < len(as) && err == nil; i++ {
		part := b[k : k+int(ls[i])]
		k += int(ls[i])
		var t target
		if t, err = where(rank, int(as[i]), false); err != nil {
			break
		}
		if !slices.ContainsFunc(used, func(u target) bool { return u.win == t.win && (u.local == nil) == (t.local == nil) }) {
			used = append(used, t)
		}
		err = t.move(part, rank, 0, put != 0)
	}
	for _, t := range used {
		err = errors.Join(err, t.complete(rank, put != 0))
	}
	return result(err, msg, msgLen)
}
