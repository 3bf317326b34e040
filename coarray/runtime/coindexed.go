package main

/*
#include "caf.h"
*/
import "C"

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unsafe"

	"github.com/gocoll/gocoll/coarray"
	"github.com/gocoll/gocoll/mpiconduit/mpi"
)

// Coarrays and coindexed access. Every image attaches the memory of each
// coarray it registers to one dynamic MPI window over MPI_COMM_WORLD (one
// process per image: an image's rank is its node), and the images of the
// registering team learn each other's addresses of it. A coindexed write
// is MPI_Put of each contiguous run of the remote section, then
// MPI_Win_flush (the data is in place before the statement ends, so the
// image's next access, or any image after a synchronization, sees it); a
// read is MPI_Get of each run and MPI_Win_flush_local. The window stays in
// one passive-target epoch (MPI_Win_lock_all) from start to end. An access
// to the image itself is a copy; so is every access when MPI has no window
// (Open MPI makes none for one process).

// coWin is the coarrays' window; nil when MPI made none (coWinErr says why).
var (
	coWin    *mpi.Win
	coWinErr error
)

// openWindow makes the coarrays' window and opens its epoch.
func openWindow() {
	w, err := mpi.WinCreateDynamic(mpi.World())
	if err == nil {
		if err = w.LockAll(0); err != nil {
			_ = w.Free()
		}
	}
	if err != nil {
		coWinErr = fmt.Errorf("MPI made no window for coindexed access: %w", err)
		return
	}
	coWin = w
}

// closeWindow ends the epoch and frees the window (collective, before
// MPI_Finalize).
func closeWindow() error {
	if coWin == nil {
		return nil
	}
	err := errors.Join(coWin.UnlockAll(), coWin.Free())
	coWin = nil
	return err
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
	addr := 0
	var err error
	if coWin != nil {
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
	if co != nil && coWin != nil {
		_ = coWin.Detach(co.mem)
	}
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
	if err != nil {
		return err
	}
	b := mem(buf, n)
	local := rank == mpi.World().Rank()
	if !local && coWin == nil {
		return fmt.Errorf("%w: %w", coarray.ErrNotSupported, coWinErr)
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
		case put:
			runErr = coWin.Put(part, rank, co.addrs[rank]+off)
		default:
			runErr = coWin.Get(part, rank, co.addrs[rank]+off)
		}
		return runErr == nil
	})
	if local || (runErr != nil && k == 0) {
		return runErr
	}
	if put {
		return errors.Join(runErr, coWin.Flush(rank))
	}
	return errors.Join(runErr, coWin.FlushLocal(rank))
}

// runs calls f with the byte offset and length of each contiguous run of
// the section r, in element order, until f returns false.
func runs(r *C.gocaf_shape, f func(off, length int) bool) {
	rank, elem := int(r.rank), int(r.elem)
	base := int(uintptr(unsafe.Pointer(r.base)))
	n := 1
	for k := range rank {
		n *= max(int(r.extent[k]), 0)
	}
	if n == 0 {
		return
	}
	var idx [C.GFC_MAX_DIMENSIONS]int
	start, length := -1, 0
	for range n {
		off := base
		for k := range rank {
			off += idx[k] * int(r.sm[k])
		}
		switch {
		case start >= 0 && off == start+length:
			length += elem
		default:
			if start >= 0 && !f(start, length) {
				return
			}
			start, length = off, elem
		}
		for k := range rank {
			if idx[k]++; idx[k] < int(r.extent[k]) {
				break
			}
			idx[k] = 0
		}
	}
	f(start, length)
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
	switch {
	case err != nil:
		return result(err, msg, msgLen)
	case rank == mpi.World().Rank():
		*base = C.uintptr_t(uintptr(unsafe.Pointer(unsafe.SliceData(co.mem))))
	case coWin == nil:
		return result(fmt.Errorf("%w: %w", coarray.ErrNotSupported, coWinErr), msg, msgLen)
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
	if err == nil && coWin == nil {
		err = fmt.Errorf("%w: %w", coarray.ErrNotSupported, coWinErr)
	}
	if err != nil {
		return result(err, msg, msgLen)
	}
	as, ls, b := unsafe.Slice(addrs, int(n)), unsafe.Slice(lens, int(n)), mem(buf, total)
	k := 0
	for i := 0; i < len(as) && err == nil; i++ {
		part := b[k : k+int(ls[i])]
		k += int(ls[i])
		if put != 0 {
			err = coWin.Put(part, rank, int(as[i]))
		} else {
			err = coWin.Get(part, rank, int(as[i]))
		}
	}
	if put != 0 {
		err = errors.Join(err, coWin.Flush(rank))
	} else {
		err = errors.Join(err, coWin.FlushLocal(rank))
	}
	return result(err, msg, msgLen)
}
