package main

/*
#include "caf.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gocoll/gocoll/coarray"
	"github.com/gocoll/gocoll/mpiconduit/mpi"
)

// The atomic subroutines, events and locks (CRITICAL is a lock on image 1).
// Each is a 32-bit integer in a coarray's memory: an atomic variable where
// the program put it, an event's count or a lock's holder (0, or the
// holding image's index in the initial team) in a slot of its own per
// element (eventSlot bytes). All of them change only by MPI's atomic
// operations (MPI_Fetch_and_op, MPI_Compare_and_swap, MPI_Accumulate),
// the image's own included, so that they are atomic with respect to each
// other; without a window (one process) they are the processor's.

// eventSlot is the bytes of one lock or event element.
const eventSlot = 8

// Atomic operations of gocaf_atomic.
const (
	atomicDefine = iota
	atomicAdd
	atomicAnd
	atomicOr
	atomicXor
	atomicRef
	atomicCas
)

var atomicOps = [...]mpi.Op{atomicAdd: mpi.OpSum, atomicAnd: mpi.OpBand, atomicOr: mpi.OpBor, atomicXor: mpi.OpBxor, atomicRef: mpi.OpNoOp}

// word is the int32 at byte off of coarray h on image (an index of the
// current team; 0 is this image): its rank, and its address here when it
// is this process's and no window serves it.
type word struct {
	rank, addr int      // addr: the displacement in win
	win        *mpi.Win // the window that serves it
	local      *int32   // without a window (then rank is this process's)
}

func wordOf(h C.uintptr_t, image C.int, off C.size_t) (word, error) {
	co := coarrays[uintptr(h)]
	if co == nil {
		return word{}, fmt.Errorf("%w: an atomic, event or lock in a coarray the runtime did not register", coarray.ErrNotSupported)
	}
	i := int(image)
	if i == 0 {
		i = img.ThisImage()
	}
	rank, err := img.NodeOf(i)
	if err == nil {
		err = stopped(i)
	}
	if err != nil {
		return word{}, err
	}
	if int(off)+4 > len(co.mem) || int(off)%4 != 0 {
		return word{}, fmt.Errorf("%w: 4 bytes at %d of its %d", coarray.ErrBounds, off, len(co.mem))
	}
	t, err := where(rank, co.addrs[rank]+int(off), true)
	switch {
	case err != nil && rank == mpi.World().Rank():
		return word{rank: rank, local: (*int32)(unsafe.Pointer(&co.mem[off]))}, nil
	case err != nil:
		return word{}, err
	case t.local != nil: // one node and no window: the processor's atomics on the shared heap
		return word{rank: rank, local: (*int32)(unsafe.Pointer(&t.local[t.disp]))}, nil
	}
	return word{rank: rank, win: t.win, addr: t.disp}, nil
}

// fetchOp applies op with v to w and returns the value before.
func (w word) fetchOp(op int, v int32) (int32, error) {
	if w.local != nil {
		switch op {
		case atomicDefine:
			atomic.StoreInt32(w.local, v)
			return 0, nil
		case atomicAdd:
			return atomic.AddInt32(w.local, v) - v, nil
		case atomicAnd:
			return atomic.AndInt32(w.local, v), nil
		case atomicOr:
			return atomic.OrInt32(w.local, v), nil
		case atomicXor:
			for {
				old := atomic.LoadInt32(w.local)
				if atomic.CompareAndSwapInt32(w.local, old, old^v) {
					return old, nil
				}
			}
		}
		return atomic.LoadInt32(w.local), nil
	}
	var old int32
	var err error
	if op == atomicDefine {
		err = mpi.Accumulate(w.win, []int32{v}, w.rank, w.addr, mpi.OpReplace)
	} else {
		err = mpi.FetchAndOp(w.win, v, &old, w.rank, w.addr, atomicOps[op])
	}
	return old, errors.Join(err, w.win.Flush(w.rank))
}

// cas sets w to v when it holds cmp, and returns what it held.
func (w word) cas(cmp, v int32) (int32, error) {
	if w.local != nil {
		for {
			if atomic.CompareAndSwapInt32(w.local, cmp, v) {
				return cmp, nil
			}
			if old := atomic.LoadInt32(w.local); old != cmp {
				return old, nil
			}
		}
	}
	var old int32
	err := mpi.CompareAndSwap(w.win, v, cmp, &old, w.rank, w.addr)
	return old, errors.Join(err, w.win.Flush(w.rank))
}

// backoff waits a little between the tries of a wait for another image.
func backoff(try int) {
	if try < 100 {
		runtime.Gosched()
		return
	}
	time.Sleep(20 * time.Microsecond)
}

// gocaf_atomic is ATOMIC_DEFINE, ATOMIC_REF, ATOMIC_ADD/AND/OR/XOR (and
// their FETCH forms: *old gets the value before) and ATOMIC_CAS (cmp) on
// the 32-bit integer or logical at byte off of coarray h on image.
//
//export gocaf_atomic
func gocaf_atomic(h C.uintptr_t, image C.int, off C.size_t, op C.int, value C.int32_t, cmp C.int32_t, old *C.int32_t, msg *C.char, msgLen C.size_t) C.int {
	w, err := wordOf(h, image, off)
	var was int32
	if err == nil {
		if op == atomicCas {
			was, err = w.cas(int32(cmp), int32(value))
		} else {
			was, err = w.fetchOp(int(op), int32(value))
		}
	}
	if err == nil && old != nil {
		*old = C.int32_t(was)
	}
	return result(err, msg, msgLen)
}

// What gocaf_lock and gocaf_unlock found, besides an error: the standard's
// STAT_LOCKED, STAT_LOCKED_OTHER_IMAGE and STAT_UNLOCKED.
const (
	lockOK = iota
	lockLocked
	lockOtherImage
	lockUnlocked
)

// me is this image's index in the initial team: what a lock it holds says.
func me() int32 { return int32(mpi.World().Rank() + 1) }

// gocaf_lock is LOCK of element index of lock coarray h on image: it waits
// until the lock is free and takes it, or with try (ACQUIRED_LOCK=) takes
// it only if free (*acquired says). lockLocked: this image holds it.
//
//export gocaf_lock
func gocaf_lock(h C.uintptr_t, image C.int, index C.size_t, try C.int, acquired *C.int, msg *C.char, msgLen C.size_t) C.int {
	w, err := wordOf(h, image, index*eventSlot)
	for k := 0; err == nil; k++ {
		var held int32
		if held, err = w.cas(0, me()); err != nil {
			break
		}
		switch {
		case held == 0:
			if acquired != nil {
				*acquired = 1
			}
			return lockOK
		case held == me():
			result(fmt.Errorf("coarray: the lock is held by this image already"), msg, msgLen)
			return -lockLocked
		case try != 0:
			*acquired = 0
			return lockOK
		}
		backoff(k)
	}
	return result(err, msg, msgLen)
}

// gocaf_unlock is UNLOCK of element index of lock coarray h on image:
// lockUnlocked when nobody held it, lockOtherImage when another image does.
//
//export gocaf_unlock
func gocaf_unlock(h C.uintptr_t, image C.int, index C.size_t, msg *C.char, msgLen C.size_t) C.int {
	w, err := wordOf(h, image, index*eventSlot)
	var held int32
	if err == nil {
		held, err = w.cas(me(), 0)
	}
	switch {
	case err != nil:
		return result(err, msg, msgLen)
	case held == 0:
		result(fmt.Errorf("coarray: the lock is not locked"), msg, msgLen)
		return -lockUnlocked
	case held != me():
		result(fmt.Errorf("coarray: the lock is held by image %d", held), msg, msgLen)
		return -lockOtherImage
	}
	return lockOK
}

// gocaf_event_post is EVENT POST of element index of event coarray h on
// image: its count goes up by one.
//
//export gocaf_event_post
func gocaf_event_post(h C.uintptr_t, image C.int, index C.size_t, msg *C.char, msgLen C.size_t) C.int {
	w, err := wordOf(h, image, index*eventSlot)
	if err == nil {
		_, err = w.fetchOp(atomicAdd, 1)
	}
	return result(err, msg, msgLen)
}

// gocaf_event_wait is EVENT WAIT of element index of this image's part of
// event coarray h: it waits until the count is at least until (1 when
// absent) and takes that many off.
//
//export gocaf_event_wait
func gocaf_event_wait(h C.uintptr_t, index C.size_t, until C.int, msg *C.char, msgLen C.size_t) C.int {
	n := max(int32(until), 1)
	w, err := wordOf(h, 0, index*eventSlot)
	for k := 0; err == nil; k++ {
		var count int32
		if count, err = w.fetchOp(atomicRef, 0); err == nil && count >= n {
			_, err = w.fetchOp(atomicAdd, -n)
			break
		}
		backoff(k)
	}
	return result(err, msg, msgLen)
}

// gocaf_event_query is EVENT_QUERY of element index of event coarray h on
// image: *count gets its count.
//
//export gocaf_event_query
func gocaf_event_query(h C.uintptr_t, image C.int, index C.size_t, count *C.int, msg *C.char, msgLen C.size_t) C.int {
	w, err := wordOf(h, image, index*eventSlot)
	var c int32
	if err == nil {
		c, err = w.fetchOp(atomicRef, 0)
	}
	*count = C.int(c)
	return result(err, msg, msgLen)
}
