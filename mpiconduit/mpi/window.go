package mpi

/*
#include "gc.h"
#include "gc_win.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Assertions of the epoch calls (MPI_MODE_*), combined with |. Each call
// accepts only the ones MPI defines for it; 0 asserts nothing.
const (
	ModeNoCheck   = int(C.MPI_MODE_NOCHECK)   // Post, Start, Lock, LockAll: no conflicting epoch can exist
	ModeNoStore   = int(C.MPI_MODE_NOSTORE)   // Fence, Post: the local window was not updated by local stores
	ModeNoPut     = int(C.MPI_MODE_NOPUT)     // Fence, Post: the local window will not be updated by RMA
	ModeNoPrecede = int(C.MPI_MODE_NOPRECEDE) // Fence: no RMA operations of this process precede it
	ModeNoSucceed = int(C.MPI_MODE_NOSUCCEED) // Fence: no RMA operations of this process follow it
)

// The assertions each epoch call accepts.
const (
	fenceModes = ModeNoStore | ModeNoPut | ModeNoPrecede | ModeNoSucceed
	postModes  = ModeNoCheck | ModeNoStore | ModeNoPut
	startModes = ModeNoCheck
	lockModes  = ModeNoCheck
)

// LockType is the kind of passive-target access epoch that Win.Lock opens.
type LockType int

// Lock types.
const (
	LockShared    = LockType(C.MPI_LOCK_SHARED)    // concurrent with other shared locks
	LockExclusive = LockType(C.MPI_LOCK_EXCLUSIVE) // alone on the target's window
)

// allTargets asks release for the buffers of every target.
const allTargets = -1

// Win is an MPI window: memory of every process of a communicator that the
// others can read and write with one-sided operations (Put, Get, Accumulate,
// ...) inside epochs (Fence, Post/Start/Complete/Wait, Lock/Unlock, LockAll/
// UnlockAll). WinAllocate exposes memory that MPI allocates, WinCreate memory
// of the caller. MPI_ERRORS_RETURN is set on every window.
//
// The Go origin buffers of one-sided operations stay pinned until a call that
// completes them (Fence, Complete, Unlock, UnlockAll, Flush*, Free); their
// contents must not be used until then. A window may be shared by goroutines
// (with ThreadMultiple); Free it when done, since it holds pinned memory.
type Win struct {
	h     C.MPI_Win
	comm  *Comm
	mem   []byte     // local window memory: MPI's (WinAllocate) or the caller's (WinCreate)
	shape []winShape // every rank's (see init), to check target ranges locally
	local runtime.Pinner
	freed atomic.Bool
	// cas64Crash: Open MPI 4's osc/rdma over btl/vader (one node) crashes the
	// process on 8-byte MPI_Compare_and_swap, in its emulated atomics.
	cas64Crash bool
	osc        string // Open MPI's one-sided component serving the window: "rdma", "ucx", or "" (osc/sm names none)
	shared     bool   // from WinAllocateShared
	dynamic    bool   // from WinCreateDynamic: displacements are addresses (Attach)

	// epoch is held shared while an operation pins its buffers and starts,
	// and exclusively by the calls that complete operations, so that these
	// release only buffers of operations that had started before them.
	epoch sync.RWMutex
	mu    sync.Mutex // guards pins, which concurrent operations share
	pins  map[int]*runtime.Pinner
}

// WinAllocate allocates size bytes of window memory on every process of c and
// makes a window of it (MPI_Win_allocate); Mem is the local part. Targets
// address it in units of dispUnit bytes. It is collective over c.
func WinAllocate(c *Comm, size, dispUnit int) (*Win, error) {
	const op = "MPI_Win_allocate"
	if err := checkWinArgs(op, c, size, dispUnit); err != nil {
		return nil, err
	}
	var base unsafe.Pointer
	var h C.MPI_Win
	if err := winErr(op, c, C.gc_win_allocate(C.MPI_Aint(size), C.int(dispUnit), c.h, &base, &h)); err != nil {
		return nil, err
	}
	return newWin(op, c, h, unsafe.Slice((*byte)(base), size), dispUnit)
}

// WinAllocateShared allocates size bytes on every process of c as one
// window whose every part each process can load and store directly
// (MPI_Win_allocate_shared); c's processes must share memory (see
// Comm.SplitShared). Mem is the local part, SharedMem any rank's. It is
// collective over c. Direct loads and stores follow the rules of the
// memory they touch: synchronize them with atomics or RMA epochs.
func WinAllocateShared(c *Comm, size int) (*Win, error) {
	const op = "MPI_Win_allocate_shared"
	if err := checkWinArgs(op, c, size, 1); err != nil {
		return nil, err
	}
	var base unsafe.Pointer
	var h C.MPI_Win
	if err := winErr(op, c, C.gc_win_allocate_shared(C.MPI_Aint(size), 1, c.h, &base, &h)); err != nil {
		return nil, err
	}
	w, err := newWin(op, c, h, unsafe.Slice((*byte)(base), size), 1)
	if err == nil {
		w.shared = true
	}
	return w, err
}

// SharedMem is rank's part of a window from WinAllocateShared, mapped into
// this process (MPI_Win_shared_query).
func (w *Win) SharedMem(rank int) ([]byte, error) {
	const op = "MPI_Win_shared_query"
	if err := w.check(op); err != nil {
		return nil, err
	}
	if !w.shared {
		return nil, misuse(ErrArg, op, "the window was not allocated shared")
	}
	if err := w.comm.checkRank(op, rank); err != nil {
		return nil, err
	}
	var base unsafe.Pointer
	var size C.longlong
	if err := mpiErr(op, C.gc_win_shared_query(w.h, C.int(rank), &base, &size)); err != nil {
		return nil, err
	}
	if size == 0 {
		return []byte{}, nil
	}
	return unsafe.Slice((*byte)(base), int(size)), nil
}

// WinAllocateOf allocates a window of n elements of T on every process of c,
// addressed in elements (MPI_Win_allocate); MemOf[T] is the local part.
func WinAllocateOf[T Element](c *Comm, n int) (*Win, error) {
	sz := DatatypeOf[T]().size
	if n < 0 || n > math.MaxInt/sz {
		return nil, misuse(ErrArg, "MPI_Win_allocate", "%d elements of %d bytes", n, sz)
	}
	return WinAllocate(c, n*sz, sz)
}

// WinCreate makes a window of mem on every process of c (MPI_Win_create),
// addressed in units of dispUnit bytes; a nil or empty mem exposes nothing.
// mem stays pinned until Free, and others may read and write it meanwhile.
// It is collective over c.
//
// With osc/pt2pt excluded (as Debian's Open MPI 4.1 does), only osc/rdma
// creates such windows, and it needs more than one process and a BTL with
// RDMA (vader within a node; not tcp). Elsewhere this is an *Error of class
// ClassWin whose Msg says so; WinAllocate works there within one node.
func WinCreate(c *Comm, mem []byte, dispUnit int) (*Win, error) {
	const op = "MPI_Win_create"
	if err := checkWinArgs(op, c, len(mem), dispUnit); err != nil {
		return nil, err
	}
	w := &Win{}
	var base unsafe.Pointer
	if len(mem) > 0 {
		base = unsafe.Pointer(unsafe.SliceData(mem))
		// MPI writes mem when others put to it, long after this call.
		w.local.Pin(base)
	}
	var h C.MPI_Win
	if err := winErr(op, c, C.gc_win_create(base, C.MPI_Aint(len(mem)), C.int(dispUnit), c.h, &h)); err != nil {
		w.local.Unpin()
		return nil, err
	}
	if err := w.init(op, c, h, mem, dispUnit); err != nil {
		w.local.Unpin()
		return nil, err
	}
	return w, nil
}

// WinCreateDynamic makes a window with no memory (MPI_Win_create_dynamic):
// each process attaches memory to it when it likes (Attach), and the
// others reach that memory at the address Attach returned, which serves as
// the displacement of Put, Get and the atomics (in bytes). It is collective.
// The binding cannot check such displacements: one outside the memory the
// target attached is MPI's error, or worse.
func WinCreateDynamic(c *Comm) (*Win, error) {
	const op = "MPI_Win_create_dynamic"
	if err := c.check(op); err != nil {
		return nil, err
	}
	var h C.MPI_Win
	if err := winErr(op, c, C.gc_win_create_dynamic(c.h, &h)); err != nil {
		return nil, err
	}
	w := &Win{dynamic: true}
	if err := w.init(op, c, h, nil, 1); err != nil {
		return nil, err
	}
	return w, nil
}

// Attach makes mem reachable through the dynamic window w (MPI_Win_attach)
// and returns its address (MPI_Get_address), the displacement at which the
// others reach its first byte. mem must stay valid and unmoved until
// Detach: memory not managed by Go (C's), or pinned by the caller.
func (w *Win) Attach(mem []byte) (int, error) {
	const op = "MPI_Win_attach"
	if err := w.checkDynamic(op, mem); err != nil {
		return 0, err
	}
	var addr C.MPI_Aint
	if err := mpiErr(op, C.gc_win_attach(w.h, unsafe.Pointer(unsafe.SliceData(mem)), C.MPI_Aint(len(mem)), &addr)); err != nil {
		return 0, err
	}
	return int(addr), nil
}

// Detach ends Attach's of mem (MPI_Win_detach). The others must not reach
// it any more.
func (w *Win) Detach(mem []byte) error {
	const op = "MPI_Win_detach"
	if err := w.checkDynamic(op, mem); err != nil {
		return err
	}
	return mpiErr(op, C.gc_win_detach(w.h, unsafe.Pointer(unsafe.SliceData(mem))))
}

func (w *Win) checkDynamic(op string, mem []byte) error {
	if err := w.check(op); err != nil {
		return err
	}
	if !w.dynamic {
		return misuse(ErrArg, op, "not a dynamic window (WinCreateDynamic)")
	}
	if len(mem) == 0 {
		return misuse(ErrArg, op, "no memory")
	}
	return nil
}

// WinCreateOf makes a window of the elements of mem, addressed in elements
// (MPI_Win_create); see WinCreate.
func WinCreateOf[T Element](c *Comm, mem []T) (*Win, error) {
	return WinCreate(c, bytesOf(mem), DatatypeOf[T]().size)
}

func checkWinArgs(op string, c *Comm, size, dispUnit int) error {
	if err := c.check(op); err != nil {
		return err
	}
	if size < 0 {
		return misuse(ErrArg, op, "size %d is negative", size)
	}
	if dispUnit <= 0 || dispUnit > math.MaxInt32 {
		return misuse(ErrArg, op, "displacement unit %d is not in 1..MaxInt32", dispUnit)
	}
	return nil
}

func newWin(op string, c *Comm, h C.MPI_Win, mem []byte, dispUnit int) (*Win, error) {
	w := &Win{}
	if err := w.init(op, c, h, mem, dispUnit); err != nil {
		return nil, err
	}
	return w, nil
}

// init sets MPI_ERRORS_RETURN and learns every rank's window shape; on
// failure it frees the window.
//
// The shape includes each rank's skew: how far its memory lies above the
// base its window publishes (MPI_WIN_BASE), from which the others' puts,
// gets and atomics reach it. MPI says the two are one address, but MPICH
// 4.0.2 over UCX publishes the address UCX registered, the base rounded
// down to 16 bytes, so that every one-sided operation on memory not
// 16-byte aligned landed that many bytes early, silently
// (testdata/mpich_window_base.c). The binding adds the target's skew to
// every displacement it passes (Win.disp); 0 everywhere else. A skew that
// the displacement unit does not divide cannot be corrected: every rank
// then refuses the window.
func (w *Win) init(op string, c *Comm, h C.MPI_Win, mem []byte, dispUnit int) error {
	w.h, w.comm, w.mem = h, c, mem
	w.pins = make(map[int]*runtime.Pinner)
	err := mpiErr(op, C.gc_set_errors_return_win(h))
	if err == nil {
		var skew C.longlong
		if len(mem) > 0 {
			skew = C.gc_win_skew(h, unsafe.Pointer(unsafe.SliceData(mem)))
		}
		shape := make([]C.longlong, 3*c.size)
		err = mpiErr("MPI_Allgather", C.gc_win_shape(c.h, C.longlong(len(mem)), C.int(dispUnit), skew, &shape[0]))
		w.shape = make([]winShape, c.size)
		for r := range w.shape {
			w.shape[r] = winShape{size: int64(shape[3*r]), unit: int64(shape[3*r+1]), skew: int64(shape[3*r+2])}
		}
	}
	for r := 0; err == nil && r < c.size; r++ {
		if sh := w.shape[r]; sh.skew < 0 || sh.skew%sh.unit != 0 {
			err = misuse(ErrArg, op, "MPI publishes rank %d's window base %d bytes below its memory, which displacements "+
				"in units of %d bytes cannot correct (MPICH over UCX rounds the base down to 16 bytes): give it memory aligned to 16 bytes",
				r, sh.skew, sh.unit)
		}
	}
	if err == nil {
		// Open MPI names a window after its component: "rdma window 3".
		var b [C.MPI_MAX_OBJECT_NAME + 1]C.char
		C.gc_win_name(h, &b[0], C.int(len(b)))
		w.osc, _, _ = strings.Cut(C.GoString(&b[0]), " ")
		w.cas64Crash, err = casCrashes(w.osc, c)
	}
	if err != nil {
		C.MPI_Win_free(&h)
	}
	return err
}

// casCrashes reports whether the window is one on which Open MPI crashes on
// 8-byte compare-and-swap (see Win.cas64Crash). Every rank reaches the same
// answer, so all or none make the collective one-node check.
func casCrashes(osc string, c *Comm) (bool, error) {
	if osc != "rdma" {
		return false, nil
	}
	var major int
	if _, err := fmt.Sscanf(LibraryVersion(), "Open MPI v%d.", &major); err != nil || major > 4 {
		return false, nil
	}
	var one C.int
	if err := mpiErr("MPI_Comm_split_type", C.gc_one_node(c.h, &one)); err != nil {
		return false, err
	}
	return one != 0, nil
}

// winErr is mpiErr for window creation. Open MPI answers MPI_ERR_WIN when no
// one-sided component can serve the window, which says nothing of why, so
// the likely cause is added to Msg.
func winErr(op string, c *Comm, rc C.int) error {
	err := mpiErr(op, rc)
	var e *Error
	if !errors.As(err, &e) || e.Class != ClassWin || Library != "openmpi" {
		return err
	}
	var b [256]C.char
	osc := "?"
	if C.gc_osc_param(&b[0], C.int(len(b))) == 0 {
		osc = C.GoString(&b[0])
	}
	switch {
	case oscAllows(osc, "pt2pt") && provided == ThreadMultiple:
		e.Msg += fmt.Sprintf("; Open MPI selected its osc/pt2pt one-sided component (MCA osc=%q), "+
			"which refuses windows under MPI_THREAD_MULTIPLE: run with `--mca osc ^pt2pt` "+
			"(or OMPI_MCA_osc=^pt2pt) so that osc/rdma serves the window", osc)
	case op == "MPI_Win_create" && c.size == 1:
		e.Msg += fmt.Sprintf("; Open MPI 4.1's osc/rdma cannot create a window over caller memory on a "+
			"one-process communicator when osc/pt2pt is excluded (MCA osc=%q): use WinAllocate, "+
			"which osc/sm serves, or more processes", osc)
	default:
		e.Msg += fmt.Sprintf("; no one-sided component of Open MPI could serve the window (MCA osc=%q): "+
			"windows need osc/rdma with a BTL that has RDMA to every process (vader within a node; "+
			"tcp has none), WinAllocate within one node can use osc/sm, and osc/pt2pt refuses "+
			"MPI_THREAD_MULTIPLE", osc)
	}
	return e
}

// oscAllows reports whether an MCA selection value ("", "a,b" or "^a,b")
// lets component name be used.
func oscAllows(param, name string) bool {
	if param == "" {
		return true
	}
	list, exclude := strings.CutPrefix(param, "^")
	return slices.Contains(strings.Split(list, ","), name) != exclude
}

// hv is the window's handle as a cgo argument (see gc.h).
func (w *Win) hv() C.uintptr_t { return hWin(w.h) }

// check is the common misuse check of every window operation.
func (w *Win) check(op string) error {
	if err := checkState(op); err != nil {
		return err
	}
	if w == nil || w.comm == nil {
		return misuse(ErrArg, op, "nil window, or one not made by WinAllocate or WinCreate")
	}
	if w.freed.Load() {
		return misuse(ErrFreed, op, "window was freed")
	}
	return nil
}

// Mem is the local window memory (nil after Free). Others may read and write
// it during epochs; MPI's memory rules say when local loads and stores are safe.
func (w *Win) Mem() []byte {
	if w == nil || w.freed.Load() {
		return nil
	}
	return w.mem
}

// MemOf is the local window memory as elements of T (nil after Free). The
// memory must be aligned for T, as MPI's (WinAllocate) is.
func MemOf[T Element](w *Win) []T {
	m := w.Mem()
	if m == nil {
		return nil
	}
	var z T
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(m))), len(m)/int(unsafe.Sizeof(z)))
}

// Component is the name of Open MPI's one-sided (osc) component that serves
// the window, as the window's name gives it: "rdma", or "" for a component
// that names none (osc/sm).
func (w *Win) Component() string { return w.osc }

// Comm is the communicator the window was made over; ranks of the window's
// operations are ranks of it.
func (w *Win) Comm() *Comm { return w.comm }

// Free releases the window (MPI_Win_free) and unpins every buffer it held.
// It is collective; every epoch must be closed. Any later use returns ErrFreed.
func (w *Win) Free() error {
	const op = "MPI_Win_free"
	if err := w.check(op); err != nil {
		return err
	}
	w.epoch.Lock()
	defer w.epoch.Unlock()
	if w.freed.Load() {
		return misuse(ErrFreed, op, "window was freed")
	}
	// A copy, so that w.h stays immutable for concurrent readers; a window
	// that MPI refuses to free (an open epoch) stays usable.
	h := w.h
	if err := mpiErr(op, C.MPI_Win_free(&h)); err != nil {
		return err
	}
	w.freed.Store(true)
	w.release(allTargets)
	w.local.Unpin()
	return nil
}

// release unpins the origin buffers of operations to target (or all targets),
// which a completion call has just completed.
func (w *Win) release(target int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for t, p := range w.pins {
		if target == allTargets || t == target {
			p.Unpin()
			delete(w.pins, t)
		}
	}
}

// checkTarget validates the target rank and that nbytes at disp fit in the
// target's window, which MPI itself does not check for every component.
func (w *Win) checkTarget(op string, target, disp, nbytes int) error {
	if err := w.check(op); err != nil {
		return err
	}
	if err := w.comm.checkRank(op, target, ProcNull); err != nil {
		return err
	}
	if disp < 0 {
		return misuse(ErrArg, op, "displacement %d is negative", disp)
	}
	if target == ProcNull || w.dynamic {
		return nil
	}
	size, unit := int(w.shape[target].size), int(w.shape[target].unit)
	if disp > size/unit || nbytes > size-disp*unit {
		return misuse(ErrArg, op, "%d bytes at displacement %d (unit %d) exceed rank %d's window of %d bytes",
			nbytes, disp, unit, target, size)
	}
	return nil
}

// disp is the displacement MPI must be given for disp of target's window:
// disp plus target's skew (see init), in target's units.
func (w *Win) disp(target, disp int) C.MPI_Aint {
	if target == ProcNull || w.dynamic {
		return C.MPI_Aint(disp)
	}
	sh := w.shape[target]
	return C.MPI_Aint(int64(disp) + sh.skew/sh.unit)
}

// winShape is one rank's window as every rank learns it at creation: its
// size in bytes, its displacement unit, and its skew (see init).
type winShape struct{ size, unit, skew int64 }

// rma runs an origin-side operation: checks, pins the Go buffers MPI uses
// until completion, and calls MPI.
func (w *Win) rma(op string, target, disp, nbytes int, call func() C.int, ptrs ...unsafe.Pointer) error {
	if err := w.checkTarget(op, target, disp, nbytes); err != nil {
		return err
	}
	w.epoch.RLock()
	defer w.epoch.RUnlock()
	if w.freed.Load() {
		return misuse(ErrFreed, op, "window was freed")
	}
	if target != ProcNull && nbytes > 0 {
		w.mu.Lock()
		p := w.pins[target]
		if p == nil {
			p = new(runtime.Pinner)
			w.pins[target] = p
		}
		for _, x := range ptrs {
			if x != nil {
				p.Pin(x)
			}
		}
		w.mu.Unlock()
	}
	// A refused operation's buffers stay pinned until the next completion
	// call or Free: harmless, and simpler than undoing one pin.
	return mpiErr(op, call())
}

func checkOp(op string, o Op) error {
	if o.opInfo == nil || o.user != 0 {
		return misuse(ErrArg, op, "one-sided accumulation needs a predefined operator, not %q", o.String())
	}
	return nil
}

// Put writes b to target's window at disp (MPI_Put). b is pinned and must
// not change until the operation completes.
func (w *Win) Put(b []byte, target, disp int) error {
	x, err := byteBuf("MPI_Put", b)
	if err != nil {
		return err
	}
	return w.put(x, target, disp)
}

// Put writes the elements of b to target's window at disp (MPI_Put).
func Put[T Element](w *Win, b []T, target, disp int) error {
	x, err := typedBuf("MPI_Put", b)
	if err != nil {
		return err
	}
	return w.put(x, target, disp)
}

func (w *Win) put(x buf, target, disp int) error {
	return w.rma("MPI_Put", target, disp, int(x.n)*x.dt.size, func() C.int {
		return C.gc_put(cbuf(x.p), x.n, hType(x.dt.h), C.int(target), w.disp(target, disp), w.hv())
	}, x.p)
}

// Get reads len(b) bytes of target's window at disp into b (MPI_Get); b holds
// them once the operation completes.
func (w *Win) Get(b []byte, target, disp int) error {
	x, err := byteBuf("MPI_Get", b)
	if err != nil {
		return err
	}
	return w.get(x, target, disp)
}

// Get reads len(b) elements of target's window at disp into b (MPI_Get).
func Get[T Element](w *Win, b []T, target, disp int) error {
	x, err := typedBuf("MPI_Get", b)
	if err != nil {
		return err
	}
	return w.get(x, target, disp)
}

func (w *Win) get(x buf, target, disp int) error {
	return w.rma("MPI_Get", target, disp, int(x.n)*x.dt.size, func() C.int {
		return C.gc_get(cbuf(x.p), x.n, hType(x.dt.h), C.int(target), w.disp(target, disp), w.hv())
	}, x.p)
}

// Accumulate combines b into target's window at disp with the predefined
// operator op, element-wise and atomically per element (MPI_Accumulate);
// OpReplace makes it an atomic Put. On bytes MPI accepts only the bitwise
// operators, OpReplace and OpNoOp.
func (w *Win) Accumulate(b []byte, target, disp int, op Op) error {
	x, err := byteBuf("MPI_Accumulate", b)
	if err != nil {
		return err
	}
	return w.accumulate(x, target, disp, op)
}

// Accumulate combines the elements of b into target's window at disp with op
// (MPI_Accumulate).
func Accumulate[T Element](w *Win, b []T, target, disp int, op Op) error {
	x, err := typedBuf("MPI_Accumulate", b)
	if err != nil {
		return err
	}
	return w.accumulate(x, target, disp, op)
}

func (w *Win) accumulate(x buf, target, disp int, o Op) error {
	const op = "MPI_Accumulate"
	if err := checkOp(op, o); err != nil {
		return err
	}
	return w.rma(op, target, disp, int(x.n)*x.dt.size, func() C.int {
		return C.gc_accumulate(cbuf(x.p), x.n, hType(x.dt.h), C.int(target), w.disp(target, disp), hOp(o.h), w.hv())
	}, x.p)
}

// GetAccumulate fetches len(result) bytes of target's window at disp into
// result and combines the first len(result) bytes of origin into them with
// op, atomically per element (MPI_Get_accumulate). With OpNoOp it is an
// atomic read and origin may be nil.
func (w *Win) GetAccumulate(origin, result []byte, target, disp int, op Op) error {
	const name = "MPI_Get_accumulate"
	r, err := byteBuf(name, result)
	if err != nil {
		return err
	}
	o, err := originFor(name, origin == nil, func() (buf, error) { return byteBuf(name, origin) }, r, op)
	if err != nil {
		return err
	}
	return w.getAccumulate(o, r, target, disp, op)
}

// GetAccumulate fetches len(result) elements of target's window at disp into
// result and combines origin into them with op (MPI_Get_accumulate).
func GetAccumulate[T Element](w *Win, origin, result []T, target, disp int, op Op) error {
	const name = "MPI_Get_accumulate"
	r, err := typedBuf(name, result)
	if err != nil {
		return err
	}
	o, err := originFor(name, origin == nil, func() (buf, error) { return typedBuf(name, origin) }, r, op)
	if err != nil {
		return err
	}
	return w.getAccumulate(o, r, target, disp, op)
}

// originFor is the origin of a GetAccumulate whose result is r: as long as r,
// or empty for OpNoOp, whose origin MPI ignores.
func originFor(name string, isNil bool, mk func() (buf, error), r buf, op Op) (buf, error) {
	if isNil && op.opInfo != nil && op.h == OpNoOp.h {
		return buf{n: 0, dt: r.dt}, nil
	}
	o, err := mk()
	if err != nil {
		return buf{}, err
	}
	if o.n < r.n {
		return buf{}, misuse(ErrShortBuffer, name, "origin has %d elements, result %d", o.n, r.n)
	}
	o.n = r.n
	return o, nil
}

func (w *Win) getAccumulate(o, r buf, target, disp int, op Op) error {
	const name = "MPI_Get_accumulate"
	if err := checkOp(name, op); err != nil {
		return err
	}
	return w.rma(name, target, disp, int(r.n)*r.dt.size, func() C.int {
		return C.gc_get_accumulate(cbuf(o.p), o.n, hType(o.dt.h), cbuf(r.p), r.n, hType(r.dt.h),
			C.int(target), w.disp(target, disp), hOp(op.h), w.hv())
	}, o.p, r.p)
}

// FetchAndOp fetches the byte of target's window at disp into *result and
// combines origin into it with op, atomically (MPI_Fetch_and_op).
func (w *Win) FetchAndOp(origin byte, result *byte, target, disp int, op Op) error {
	if result == nil {
		return misuse(ErrNilBuffer, "MPI_Fetch_and_op", "a result is required")
	}
	o := new(byte) // MPI reads the origin until completion
	*o = origin
	return w.fetchAndOp(unsafe.Pointer(o), unsafe.Pointer(result), Byte, target, disp, op)
}

// FetchAndOp fetches the element of target's window at disp into *result and
// combines origin into it with op, atomically (MPI_Fetch_and_op): with OpSum
// a fetch-and-add, with OpReplace a swap, with OpNoOp an atomic read.
// *result holds the old value once the operation completes.
func FetchAndOp[T Element](w *Win, origin T, result *T, target, disp int, op Op) error {
	if result == nil {
		return misuse(ErrNilBuffer, "MPI_Fetch_and_op", "a result is required")
	}
	o := new(T)
	*o = origin
	return w.fetchAndOp(unsafe.Pointer(o), unsafe.Pointer(result), DatatypeOf[T](), target, disp, op)
}

func (w *Win) fetchAndOp(o, r unsafe.Pointer, dt Datatype, target, disp int, op Op) error {
	const name = "MPI_Fetch_and_op"
	if err := checkOp(name, op); err != nil {
		return err
	}
	call := func() C.int {
		return C.gc_fetch_and_op(cbuf(o), cbuf(r), hType(dt.h), C.int(target), w.disp(target, disp), hOp(op.h), w.hv())
	}
	if w.ucxAtomicsWrong(dt) {
		// One element of MPI_Get_accumulate is the same operation, atomic too.
		call = func() C.int {
			return C.gc_get_accumulate(cbuf(o), 1, hType(dt.h), cbuf(r), 1, hType(dt.h),
				C.int(target), w.disp(target, disp), hOp(op.h), w.hv())
		}
	}
	return w.rma(name, target, disp, dt.size, call, o, r)
}

// ucxAtomicsWrong reports whether MPI_Fetch_and_op on dt goes wrong on this
// window. Open MPI 4.1's osc/ucx turns it (with MPI_SUM, MPI_REPLACE or
// MPI_NO_OP) into a UCX atomic of the element's size whatever the type: a
// float64 sum adds the bit patterns as integers, and UCX refuses 1-byte
// elements ("invalid atomic operation datatype") while the call succeeds
// with the result unwritten. Its MPI_Get_accumulate is right for every type
// (TestWinGetAccumulate, TestWinFetchAndOp in scripts/multihost-tests.sh).
func (w *Win) ucxAtomicsWrong(dt Datatype) bool {
	return w.osc == "ucx" && !(dt.kind == kindInt && (dt.size == 4 || dt.size == 8))
}

// CompareAndSwap fetches the byte of target's window at disp into *result
// and, if it equals compare, replaces it with origin, atomically
// (MPI_Compare_and_swap). On osc/ucx windows it returns ErrDatatype (see
// the typed CompareAndSwap).
func (w *Win) CompareAndSwap(origin, compare byte, result *byte, target, disp int) error {
	if result == nil {
		return misuse(ErrNilBuffer, "MPI_Compare_and_swap", "a result is required")
	}
	o := &[2]byte{origin, compare} // MPI reads both until completion
	return w.compareAndSwap(unsafe.Pointer(&o[0]), unsafe.Pointer(&o[1]), unsafe.Pointer(result), Byte, target, disp)
}

// CompareAndSwap fetches the element of target's window at disp into *result
// and, if it equals compare, replaces it with origin, atomically
// (MPI_Compare_and_swap). MPI accepts integer types only. *result holds the
// old value once the operation completes. 8-byte types return ErrDatatype on
// windows where Open MPI 4 would crash on them (osc/rdma within one node),
// and types of other sizes than 4 and 8 bytes where it would leave the result
// unwritten (osc/ucx).
func CompareAndSwap[T Element](w *Win, origin, compare T, result *T, target, disp int) error {
	if result == nil {
		return misuse(ErrNilBuffer, "MPI_Compare_and_swap", "a result is required")
	}
	o := &[2]T{origin, compare}
	return w.compareAndSwap(unsafe.Pointer(&o[0]), unsafe.Pointer(&o[1]), unsafe.Pointer(result), DatatypeOf[T](), target, disp)
}

func (w *Win) compareAndSwap(o, c, r unsafe.Pointer, dt Datatype, target, disp int) error {
	const name = "MPI_Compare_and_swap"
	if err := w.checkTarget(name, target, disp, dt.size); err != nil {
		return err
	}
	if dt.size == 8 && w.cas64Crash {
		return misuse(ErrDatatype, name, "Open MPI 4's osc/rdma over btl/vader crashes the process on "+
			"8-byte compare-and-swap (Open MPI issue 7967); use a 4-byte integer type, or run across nodes")
	}
	if w.osc == "ucx" && dt.size != 4 && dt.size != 8 {
		// As for MPI_Fetch_and_op (see ucxAtomicsWrong), without another call
		// that does the same.
		return misuse(ErrDatatype, name, "Open MPI 4.1's osc/ucx passes compare-and-swap to UCX atomics, "+
			"which take 4- or 8-byte elements only (%d-byte elements fail with the result unwritten): "+
			"use a 4- or 8-byte integer type", dt.size)
	}
	return w.rma(name, target, disp, dt.size, func() C.int {
		return C.gc_compare_and_swap(cbuf(o), cbuf(c), cbuf(r), hType(dt.h), C.int(target), w.disp(target, disp), w.hv())
	}, o, r)
}

func checkAssert(op string, assert, allowed int) error {
	if assert&^allowed != 0 {
		return misuse(ErrArg, op, "assertion %#x has bits outside %#x", assert, allowed)
	}
	return nil
}

// complete runs a call that completes this process's operations to target
// (or all targets), then unpins their buffers. It excludes operations that
// start meanwhile, whose buffers it could not know to be complete.
func (w *Win) complete(op string, target int, call func() C.int) error {
	if err := w.check(op); err != nil {
		return err
	}
	if target != allTargets {
		if err := w.comm.checkRank(op, target); err != nil {
			return err
		}
	}
	w.epoch.Lock()
	defer w.epoch.Unlock()
	if w.freed.Load() {
		return misuse(ErrFreed, op, "window was freed")
	}
	if err := mpiErr(op, call()); err != nil {
		return err
	}
	w.release(target)
	if target == w.comm.rank || target == allTargets {
		return w.progressUCX()
	}
	return nil
}

// progressUCX lets MPI progress after a completion that concerns this
// process's own window, on osc/ucx. There, another host's atomics and puts
// on this process's window take effect only inside MPI's progress, and
// neither an operation on the own window nor its flush makes any: a
// process that spins on its own window with MPI_Compare_and_swap and
// MPI_Win_flush (a lock it is the home of) never saw another host's
// release (TestWinCompareAndSwap in scripts/multihost-tests.sh failed in 4
// runs of 7 so; with this, in none of 6).
func (w *Win) progressUCX() error {
	if w.osc != "ucx" {
		return nil
	}
	return w.comm.Progress()
}

// Fence closes the current active-target epoch of every process of the
// window's communicator and opens the next (MPI_Win_fence); it completes
// every operation this process started. It is collective. assert is 0 or
// ModeNoStore, ModeNoPut, ModeNoPrecede, ModeNoSucceed.
func (w *Win) Fence(assert int) error {
	const op = "MPI_Win_fence"
	if err := checkAssert(op, assert, fenceModes); err != nil {
		return err
	}
	return w.complete(op, allTargets, func() C.int { return C.gc_win_fence(C.int(assert), w.hv()) })
}

// ranksOf validates a group of ranks of the window's communicator.
func (w *Win) ranksOf(op string, group []int) ([]C.int, error) {
	cr := make([]C.int, len(group)+1) // +1: never a zero-length array for C
	seen := make(map[int]bool, len(group))
	for i, r := range group {
		if err := w.comm.checkRank(op, r); err != nil {
			return nil, err
		}
		if seen[r] {
			return nil, misuse(ErrArg, op, "rank %d listed twice", r)
		}
		seen[r] = true
		cr[i] = C.int(r)
	}
	return cr, nil
}

// Post opens an exposure epoch for the processes of group (ranks of the
// window's communicator), which access the window between their Start and
// Complete (MPI_Win_post). Wait or Test closes it. assert is 0 or ModeNoCheck,
// ModeNoStore, ModeNoPut.
func (w *Win) Post(group []int, assert int) error {
	const op = "MPI_Win_post"
	if err := w.check(op); err != nil {
		return err
	}
	if err := checkAssert(op, assert, postModes); err != nil {
		return err
	}
	cr, err := w.ranksOf(op, group)
	if err != nil {
		return err
	}
	return mpiErr(op, C.gc_win_post(w.h, C.int(len(group)), &cr[0], C.int(assert)))
}

// Start opens an access epoch to the windows of group (ranks of the window's
// communicator), which must Post (MPI_Win_start); Complete closes it.
// assert is 0 or ModeNoCheck.
func (w *Win) Start(group []int, assert int) error {
	const op = "MPI_Win_start"
	if err := w.check(op); err != nil {
		return err
	}
	if err := checkAssert(op, assert, startModes); err != nil {
		return err
	}
	cr, err := w.ranksOf(op, group)
	if err != nil {
		return err
	}
	return mpiErr(op, C.gc_win_start(w.h, C.int(len(group)), &cr[0], C.int(assert)))
}

// Complete closes the access epoch of Start and completes its operations
// (MPI_Win_complete).
func (w *Win) Complete() error {
	return w.complete("MPI_Win_complete", allTargets, func() C.int { return C.gc_win_complete(w.hv()) })
}

// Wait blocks until every process of the Post group has called Complete,
// closing the exposure epoch (MPI_Win_wait).
func (w *Win) Wait() error {
	const op = "MPI_Win_wait"
	if err := w.check(op); err != nil {
		return err
	}
	return mpiErr(op, C.gc_win_wait(w.hv()))
}

// Test is the nonblocking Wait (MPI_Win_test): true when the exposure epoch
// has closed.
func (w *Win) Test() (bool, error) {
	const op = "MPI_Win_test"
	if err := w.check(op); err != nil {
		return false, err
	}
	res := C.gc_win_test(w.hv())
	if err := mpiErr(op, res.rc); err != nil {
		return false, err
	}
	return res.flag != 0, nil
}

// Lock opens a passive-target access epoch to rank's window (MPI_Win_lock);
// Unlock closes it. assert is 0 or ModeNoCheck.
func (w *Win) Lock(lt LockType, rank, assert int) error {
	const op = "MPI_Win_lock"
	if err := w.check(op); err != nil {
		return err
	}
	if lt != LockShared && lt != LockExclusive {
		return misuse(ErrArg, op, "lock type %d is neither LockShared nor LockExclusive", lt)
	}
	if err := w.comm.checkRank(op, rank); err != nil {
		return err
	}
	if err := checkAssert(op, assert, lockModes); err != nil {
		return err
	}
	return mpiErr(op, C.gc_win_lock(C.int(lt), C.int(rank), C.int(assert), w.hv()))
}

// Unlock closes the epoch of Lock and completes the operations to rank, at
// the origin and at the target (MPI_Win_unlock).
func (w *Win) Unlock(rank int) error {
	return w.complete("MPI_Win_unlock", rank, func() C.int { return C.gc_win_unlock(C.int(rank), w.hv()) })
}

// LockAll opens a shared passive-target access epoch to every window of the
// communicator (MPI_Win_lock_all); UnlockAll closes it. assert is 0 or
// ModeNoCheck.
func (w *Win) LockAll(assert int) error {
	const op = "MPI_Win_lock_all"
	if err := w.check(op); err != nil {
		return err
	}
	if err := checkAssert(op, assert, lockModes); err != nil {
		return err
	}
	return mpiErr(op, C.gc_win_lock_all(C.int(assert), w.hv()))
}

// UnlockAll closes the epoch of LockAll and completes every operation
// (MPI_Win_unlock_all).
func (w *Win) UnlockAll() error {
	return w.complete("MPI_Win_unlock_all", allTargets, func() C.int { return C.gc_win_unlock_all(w.hv()) })
}

// Flush completes the operations to rank at the origin and the target,
// inside a passive-target epoch (MPI_Win_flush).
func (w *Win) Flush(rank int) error {
	return w.complete("MPI_Win_flush", rank, func() C.int { return C.gc_win_flush(C.int(rank), w.hv()) })
}

// FlushAll completes every operation at the origin and the targets
// (MPI_Win_flush_all).
func (w *Win) FlushAll() error {
	return w.complete("MPI_Win_flush_all", allTargets, func() C.int { return C.gc_win_flush_all(w.hv()) })
}

// FlushLocal completes the operations to rank at the origin: their buffers
// may be reused and Get results read (MPI_Win_flush_local).
func (w *Win) FlushLocal(rank int) error {
	return w.complete("MPI_Win_flush_local", rank, func() C.int { return C.gc_win_flush_local(C.int(rank), w.hv()) })
}

// FlushLocalAll completes every operation at the origin
// (MPI_Win_flush_local_all).
func (w *Win) FlushLocalAll() error {
	return w.complete("MPI_Win_flush_local_all", allTargets, func() C.int { return C.gc_win_flush_local_all(w.hv()) })
}

// Sync synchronizes the public and private copies of the local window
// (MPI_Win_sync), so that local loads see remote updates completed before
// and remote accesses see local stores; it completes no operation.
func (w *Win) Sync() error {
	const op = "MPI_Win_sync"
	if err := w.check(op); err != nil {
		return err
	}
	if err := mpiErr(op, C.gc_win_sync(w.hv())); err != nil {
		return err
	}
	return w.progressUCX() // what remote hosts completed must reach the window
}
