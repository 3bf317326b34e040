package mpi

/*
#include <stdlib.h>
#include "gc.h"
#include "gc_win.h"
*/
import "C"

import (
	"math"
	"unsafe"
)

// The batched nonblocking layer: point-to-point and one-sided transfers for
// a caller that keeps its own table of outstanding transfers, as
// mpiconduit's Conduit does, and cannot afford a Request per transfer (its
// allocation, its pins, a cgo call per test). It hands out bare request
// handles (Handle), sends small transfers through C memory (Bounce) so that
// nothing needs pinning, starts and tests a small transfer in the same cgo
// call, tests a whole table of handles in one more (TestsomeHandles), and
// puts with a notification or gets on a window in one cgo call that
// completes them (Win.PutNotify, Win.GetNow). Each function is one cgo call
// and allocates nothing; each checks its arguments as the rest of the
// binding does.

// Handle is a bare MPI_Request of the batched layer: it holds no pins and
// no Go state, and MPI sets it to NullHandle when it completes it.
type Handle uintptr

// NullHandle is MPI_REQUEST_NULL as a Handle.
func NullHandle() Handle { return Handle(reqNull) }

// Bounce is a buffer in C memory (malloc) for the small transfers of the
// batched layer: MPI may hold it for as long as a transfer lasts, with no
// pinning. The zero Bounce is no buffer.
type Bounce struct{ p unsafe.Pointer }

// NewBounce allocates a Bounce of n bytes (n > 0), which Free releases.
func NewBounce(n int) Bounce { return Bounce{C.malloc(C.size_t(n))} }

// Free releases b's memory; b must not be used again.
func (b Bounce) Free() { C.free(b.p) }

// Bytes is the first n bytes of b (at most its size), valid until Free.
func (b Bounce) Bytes(n int) []byte { return unsafe.Slice((*byte)(b.p), n) }

// CheckTransfer makes the checks that every point-to-point transfer of b
// with peer and tag on c makes before MPI is called (MPI is initialized, c
// is not freed, b is not nil and MPI's int can count it, peer is a rank of
// c and tag is in 0..TagUB), for a caller that moves some transfers by
// other means (mpiconduit's shared-memory rings) and must refuse what MPI
// would. A valid transfer costs one call and a few comparisons.
func (c *Comm) CheckTransfer(op string, b []byte, peer, tag int) error {
	if b != nil && uint(len(b)) <= math.MaxInt32 && state.Load() == stateInit && c != nil && !c.freed.Load() &&
		uint(peer) < uint(c.size) && uint(tag) <= uint(tagUB) {
		return nil
	}
	return c.transferErr(op, b, peer, tag)
}

func (c *Comm) transferErr(op string, b []byte, peer, tag int) error {
	if b == nil || len(b) > math.MaxInt32 {
		return sliceErr(op, b == nil, len(b))
	}
	return c.checkPeerSlow(op, peer, tag, false)
}

// IsendBounce copies b into via (which must hold len(b) bytes), starts
// sending it to dest with tag (MPI_Isend) and tests it (MPI_Test), in one
// cgo call. done reports that the send completed already (an eager send);
// otherwise via belongs to MPI until h completes.
func (c *Comm) IsendBounce(b []byte, via Bounce, dest, tag int) (h Handle, done bool, err error) {
	const op = "MPI_Isend"
	if err := c.CheckTransfer(op, b, dest, tag); err != nil {
		return 0, false, err
	}
	res := C.gc_isend_bounce(cbuf(unsafe.Pointer(unsafe.SliceData(b))), C.int(len(b)), (*C.char)(via.p),
		C.int(dest), C.int(tag), hComm(c.h))
	return bounceResult(op, res)
}

// IrecvBounce starts receiving len(b) bytes from src with tag into via
// (MPI_Irecv) and tests it (MPI_Test), in one cgo call. done reports that
// the message had arrived and b holds it; otherwise via receives it by the
// time h completes, and the caller copies it out (via.Bytes(len(b))).
func (c *Comm) IrecvBounce(b []byte, via Bounce, src, tag int) (h Handle, done bool, err error) {
	const op = "MPI_Irecv"
	if err := c.CheckTransfer(op, b, src, tag); err != nil {
		return 0, false, err
	}
	res := C.gc_irecv_bounce(cbuf(unsafe.Pointer(unsafe.SliceData(b))), C.int(len(b)), (*C.char)(via.p),
		C.int(src), C.int(tag), hComm(c.h))
	return bounceResult(op, res)
}

func bounceResult(op string, res C.gc_result) (Handle, bool, error) {
	if err := mpiErr(op, res.rc); err != nil {
		return 0, false, err
	}
	return Handle(res.req), res.flag != 0, nil
}

// IsendPinned starts sending b to dest with tag (MPI_Isend). MPI keeps b's
// address: the caller pins b (runtime.Pinner) before the call and keeps
// it pinned and unchanged until h completes.
func (c *Comm) IsendPinned(b []byte, dest, tag int) (Handle, error) {
	const op = "MPI_Isend"
	if err := c.CheckTransfer(op, b, dest, tag); err != nil {
		return 0, err
	}
	return pinnedResult(op, C.gc_isend(cbuf(unsafe.Pointer(unsafe.SliceData(b))), C.int(len(b)), hType(Byte.h),
		C.int(dest), C.int(tag), hComm(c.h)))
}

// IrecvPinned starts receiving len(b) bytes from src with tag into b
// (MPI_Irecv); b is pinned by the caller until h completes.
func (c *Comm) IrecvPinned(b []byte, src, tag int) (Handle, error) {
	const op = "MPI_Irecv"
	if err := c.CheckTransfer(op, b, src, tag); err != nil {
		return 0, err
	}
	return pinnedResult(op, C.gc_irecv(cbuf(unsafe.Pointer(unsafe.SliceData(b))), C.int(len(b)), hType(Byte.h),
		C.int(src), C.int(tag), hComm(c.h)))
}

func pinnedResult(op string, res C.gc_start) (Handle, error) {
	if err := mpiErr(op, res.rc); err != nil {
		return 0, err
	}
	return Handle(res.req), nil
}

// TestsomeHandles tests every handle of hs in one cgo call (MPI_Testsome):
// it sets the completed ones to NullHandle, writes their indices to idx
// (which needs len(hs) entries) and returns how many there are, 0 when
// none completed or none is active. With no handles it calls no MPI, but
// still reports ErrNotInitialized or ErrFinalized outside Init..Finalize,
// so that a caller that polls other sources too learns of it.
func TestsomeHandles(hs []Handle, idx []int32) (int, error) {
	const op = "MPI_Testsome"
	if err := checkState(op); err != nil || len(hs) == 0 {
		return 0, err
	}
	if len(idx) < len(hs) {
		return 0, misuse(ErrShortBuffer, op, "%d indices for %d handles", len(idx), len(hs))
	}
	res := C.gc_testsome(C.int(len(hs)), (*C.uintptr_t)(unsafe.Pointer(&hs[0])), (*C.int)(unsafe.Pointer(&idx[0])))
	if err := mpiErr(op, res.rc); err != nil {
		return 0, err
	}
	if res.flag == C.MPI_UNDEFINED {
		return 0, nil
	}
	return int(res.flag), nil
}

// Progress lets MPI advance its pending work, without waiting for
// anything: one MPI_Iprobe for any message on c, whose answer it drops. A
// caller that waits by other means than MPI calls (mpiconduit's
// shared-memory rings) calls it now and then: MPI may advance another
// process's one-sided operations on this process's windows only inside
// this process's MPI calls, and MPICH 4.0.2 over UCX does, so that an
// MPI_Win_flush targeting a process that makes no MPI call never returns.
// MPI_Iprobe is a call that progresses there; MPI_Test of a null request,
// MPI_Testsome of no request and MPI_Win_sync are not
// (testdata/flush_progress.c shows each in C).
func (c *Comm) Progress() error {
	const op = "MPI_Iprobe"
	if err := c.check(op); err != nil {
		return err
	}
	return mpiErr(op, C.gc_progress(hComm(c.h)))
}

// The one-sided part of the batched layer: transfers on a window in a
// passive-target epoch (LockAll), each one cgo call that also completes
// it, so that MPI keeps no pointer to the caller's buffer past the call
// and nothing is pinned. Neither may run concurrently with w.Free.

var (
	putNotifySteps = [...]string{"MPI_Put", "MPI_Win_flush", "MPI_Isend", "MPI_Test"}
	getNowSteps    = [...]string{"MPI_Get", "MPI_Win_flush_local"}
)

// PutNotify writes b into target's part of w at disp (in w's displacement
// units) and completes it there (MPI_Put, MPI_Win_flush), then starts
// sending a zero-byte notification to target with tag on c and tests it
// (MPI_Isend, MPI_Test): all in one cgo call, so that when the
// notification is received the bytes are in place. c must have w's group
// in the same order (a Dup of w's communicator, say). done reports that
// the notification completed already; otherwise h completes it.
func (w *Win) PutNotify(b []byte, target, disp int, c *Comm, tag int) (h Handle, done bool, err error) {
	const op = "MPI_Put"
	if err := w.checkNow(op, b, target, disp); err != nil {
		return 0, false, err
	}
	if err := c.CheckTransfer("MPI_Isend", b, target, tag); err != nil {
		return 0, false, err
	}
	if c.size != w.comm.size {
		return 0, false, misuse(ErrArg, op, "the notification's communicator has %d processes, the window's %d", c.size, w.comm.size)
	}
	res := C.gc_put_notify(cbuf(unsafe.Pointer(unsafe.SliceData(b))), C.int(len(b)), C.int(target), w.disp(target, disp),
		w.hv(), C.int(tag), hComm(c.h))
	if res.rc != C.MPI_SUCCESS {
		return 0, false, newError(putNotifySteps[res.index], res.rc)
	}
	return Handle(res.req), res.flag != 0, nil
}

// GetNow reads len(b) bytes of src's part of w at disp into b and
// completes the read (MPI_Get, MPI_Win_flush_local), in one cgo call.
func (w *Win) GetNow(b []byte, src, disp int) error {
	const op = "MPI_Get"
	if err := w.checkNow(op, b, src, disp); err != nil {
		return err
	}
	res := C.gc_get_now(cbuf(unsafe.Pointer(unsafe.SliceData(b))), C.int(len(b)), C.int(src), w.disp(src, disp), w.hv())
	if res.rc != C.MPI_SUCCESS {
		return newError(getNowSteps[res.index], res.rc)
	}
	return nil
}

// checkNow is the misuse check of PutNotify and GetNow: a buffer MPI can
// count, a real rank (not ProcNull) and a range inside its window.
func (w *Win) checkNow(op string, b []byte, rank, disp int) error {
	if b == nil || len(b) > math.MaxInt32 {
		return sliceErr(op, b == nil, len(b))
	}
	if err := w.check(op); err != nil {
		return err
	}
	if err := w.comm.checkRank(op, rank); err != nil {
		return err
	}
	return w.checkTarget(op, rank, disp, len(b))
}
