// Package engine is the table of live collective operations of one node
// and the handles that sync them: what makes progress (polling, the
// progress agent), waits and their pacing, the stall watchdog, and the
// guard around user code (reduction functions) that runs inside it. An
// operation may have one handle per image of the node (StartShared), and
// images that join an operation before it starts hold pending handles
// (Pending) that find it once it does. A blocking operation may run with
// no slot at all, the conduit to itself, where nothing else could use the
// engine meanwhile (alone.go).
//
// Package coll starts its operations here; package sync gives users the
// handles (sync.Handle wraps Handle) and the errors they may see.
package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	stdsync "sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// Errors of handles and the engine; test with errors.Is.
var (
	// ErrDeadHandle: the handle was already synced (or never came from this engine).
	ErrDeadHandle = errors.New("gocoll: handle already synced")
	// ErrTooMany: more operations outstanding than the engine can tell apart.
	ErrTooMany = errors.New("gocoll: too many outstanding operations")
)

// Op is one node's part of a live collective operation. The engine calls its
// methods with the engine lock held, from whichever goroutine is making progress.
type Op interface {
	// Bind tells the operation its slot, which its transfers' tokens carry;
	// the engine calls it once, before the first Step.
	Bind(slot uint32)
	// Complete records that the operation's transfer idx has completed.
	Complete(idx uint32)
	// Step advances the operation as far as it can go without waiting.
	Step() error
	// Syncable reports whether a sync of the operation's handle may succeed
	// now, as its output sync mode defines.
	Syncable() bool
	// Finished reports whether the operation needs no more progress on this node.
	Finished() bool
	// Retire tells the operation that the engine has dropped it (finished
	// and synced, or failed): nothing refers to it any more, so it may be reused.
	Retire()
}

// Quieter is implemented by operations that can tell whether a transfer
// of theirs is in flight (posted or started, and not complete). The
// engine keeps the slot of a failed operation that is not quiet (its
// late completions must find it, and its buffers must not be reused)
// until it is; an operation without the method is taken to be quiet.
type Quieter interface {
	Quiet() bool
}

func quiet(op Op) bool {
	q, ok := op.(Quieter)
	return !ok || q.Quiet()
}

// Abandoner is implemented by operations that want to hear when they
// failed and left the table with a transfer still in flight: nothing
// will sync or step them again, and Retire comes once they are quiet.
type Abandoner interface {
	Abandon()
}

// Token names a transfer of an operation to the conduit: the operation's
// slot in the high 32 bits, the transfer's index in the low 32.
func Token(slot, idx uint32) uint64 { return uint64(slot)<<32 | uint64(idx) }

// PollFunc asks the conduit for the tokens of transfers completed since the
// last call, appended to done.
type PollFunc func(done []uint64) ([]uint64, error)

type entry struct {
	op       Op
	err      error
	handles  int           // live handles that refer to it
	parts    []bool        // parts[p]: part p's handle is live; nil for an op of one part
	partsBuf []bool        // storage of parts, kept across reuses of the slot
	fin      bool          // counted off Engine.unfinished
	watch    chan struct{} // closed once the operation can sync (Handle.Done)
	gen      uint32        // distinguishes reuses of the slot
	ticks    uint32        // completions of its transfers (the stall watchdog's progress)
	// abandoned: the operation failed and its handles are synced, but a
	// transfer of it is still in flight, so the slot stays taken (and
	// routes the completions) until it is quiet; not counted in live
	abandoned bool
}

// live reports whether part p's handle is live.
func (en *entry) live(p uint32) bool {
	if en.parts == nil {
		return p == 0 && en.handles > 0
	}
	return int(p) < len(en.parts) && en.parts[p]
}

// kill marks part p's handle dead.
func (en *entry) kill(p uint32) {
	if en.parts != nil {
		en.parts[p] = false
	}
	en.handles--
}

// Engine is the table of live operations on one node and the handles that
// refer to them. Progress is made inside initiation, Try, Wait and Poll:
// the conduit is polled, completions go to their operations, and operations
// step. All methods are safe for concurrent use.
type Engine struct {
	mu    stdsync.Mutex
	poll  PollFunc
	idle  func() // called by waits between polls; may be nil
	slots []entry
	free  []uint32
	live  int
	done  []uint64 // reused buffer of completed tokens
	fail  error    // a conduit failure, reported by every later sync
	// goroutines waiting on the engine, and operations waiting for more of
	// the node's goroutines to arrive: while there are others, waits yield
	// the processor on every poll (see spinner)
	waiters, arriving atomic.Int32
	lockBusy          atomic.Uint32 // tries that found the lock taken (Handle.try)
	shared            bool          // several goroutines use the engine (Shared)
	aloneLost         bool          // a RunAlone failed with a transfer in flight (alone.go)
	outnumbered       bool          // they outnumber the Go processors (GOMAXPROCS)
	// for the progress agent (agent.go)
	unfinished atomic.Int32  // live operations not finished (changed under mu)
	wake       chan struct{} // a first unfinished operation started
	owed       []uint32      // slots the agent could not step (not agent-safe)
	watched    []uint32      // slots with a Done channel to close
	agent      *agent
	hasAgent   atomic.Bool   // agent is set (read without the lock by Try)
	unwaited   chan struct{} // the last waiter left (the agent resumes)
	// the stall watchdog (watchdog.go)
	stallAfter  time.Duration
	completions uint64 // transfers completed on the node (under mu)
	// FailIf's request while it runs, which a RunAlone wait (holding mu)
	// reads without the lock
	failing atomic.Pointer[failRequest]
}

// Arriving tells the engine that an operation waits for delta more (or,
// negative, fewer) goroutines of the node to arrive; meanwhile waiting
// goroutines yield to them on every poll.
func (e *Engine) Arriving(delta int) { e.arriving.Add(int32(delta)) }

// crowded reports whether a waiter shares the engine with other goroutines
// it may be waiting for.
func (e *Engine) crowded() bool { return e.waiters.Load() > 1 || e.arriving.Load() > 0 }

// NewEngine makes an engine that polls the conduit with poll. Waits call
// idle (when not nil) after each poll that left them waiting: a conduit
// may yield the processor there when processes outnumber processors.
func NewEngine(poll PollFunc, idle func()) *Engine {
	return &Engine{poll: poll, idle: idle, wake: make(chan struct{}, 1), unwaited: make(chan struct{}, 1)}
}

// Shared tells the engine that several goroutines use it, the node's
// images (how many: images), so that their waits count each other and
// yield (see spinner); an engine used by one goroutine spares that cost.
// Call it before any use.
func (e *Engine) Shared(images int) {
	e.shared = true
	e.outnumbered = images > runtime.GOMAXPROCS(0)
}

// MaxLive is the most operations that may be live on a node at once: above
// the spec's floor of 2^16-1, and few enough that package coll's 17-bit
// sequence numbers never name two live operations of a team alike.
const MaxLive = 1<<17 - 1

// Start takes a slot for op, binds op to it, steps it once and returns
// its handle; the zero Handle when it completed during initiation. The
// conduit is polled (progress on every live operation) unless op is the
// only live operation and needs nothing more to sync: a blocking
// collective whose transfers all completed as they started costs no poll.
func (e *Engine) Start(op Op) (Handle, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	slot, err := e.enter(op, 1)
	if err != nil {
		return Handle{}, err
	}
	return e.handOut(slot, 0)
}

// Ticket names an operation started with StartShared.
type Ticket struct {
	slot, gen uint32
}

// StartShared is Start for an operation with one handle per part (the
// images of a node that each call a collective with AllThreads): it
// returns part's handle and a ticket that leads the other parts to it (see
// Pending). The operation stays in the table until every part's handle is
// synced; an error of its first Step is kept for every part to see.
func (e *Engine) StartShared(op Op, parts, part int) (Handle, Ticket, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	slot, err := e.enter(op, parts)
	if err != nil {
		return Handle{}, Ticket{}, err
	}
	t := Ticket{slot, e.slots[slot].gen}
	h, err := e.handOut(slot, uint32(part))
	return h, t, err
}

// enter takes a slot for op, binds op to it and steps it once. With one
// part an error of that step gives the slot back; with several it is kept
// in the slot for every part to see.
func (e *Engine) enter(op Op, parts int) (uint32, error) {
	if e.live >= MaxLive {
		return 0, fmt.Errorf("%w: %d live", ErrTooMany, e.live)
	}
	var slot uint32
	if n := len(e.free); n > 0 {
		slot = e.free[n-1]
		e.free = e.free[:n-1]
	} else {
		slot = uint32(len(e.slots))
		e.slots = append(e.slots, entry{})
	}
	e.live++
	en := &e.slots[slot]
	en.op, en.err, en.handles, en.parts = op, nil, parts, nil
	if parts > 1 { // one live flag per part
		if cap(en.partsBuf) < parts {
			en.partsBuf = make([]bool, parts)
		}
		en.parts = en.partsBuf[:parts]
		for p := range en.parts {
			en.parts[p] = true
		}
	}
	en.fin, en.watch, en.abandoned, en.ticks = false, nil, false, 0
	// Only an agent parks on wake: without one, a send on the full
	// channel would take its lock on every call. (An agent started since
	// the load sees the count, and does not park.)
	if e.unfinished.Add(1) == 1 && e.hasAgent.Load() {
		select { // wake a parked agent
		case e.wake <- struct{}{}:
		default:
		}
	}
	op.Bind(slot)
	if err := runStep(op); err != nil {
		e.slots[slot].err = err
		if parts == 1 {
			e.slots[slot].handles = 0
			e.drop(slot)
			return 0, err
		}
	}
	e.noteFinished(slot)
	return slot, nil
}

// noteFinished counts the operation in slot off the unfinished ones once it
// finished or failed.
func (e *Engine) noteFinished(slot uint32) {
	en := &e.slots[slot]
	if !en.fin && en.op != nil && (en.err != nil || en.op.Finished()) {
		en.fin = true
		e.unfinished.Add(-1)
	}
}

// Pending is the record of an operation that the parts of a node join
// before it starts (the images of a node calling a collective with
// AllThreads: the last to arrive starts it). Parts that arrived before hold
// pending handles, which find the operation through the record once Start
// published its ticket. A record may serve one operation after another:
// Reuse begins a new generation, and handles of earlier ones are dead. Its
// zero value is a record in generation 0, not started.
//
// A handle of an earlier generation may still be tried (a misuse that
// must end in ErrDeadHandle) while the record serves the next one: what it
// reads is atomic, a ticket counts only if the generation is unchanged
// after reading it, and a part's sync is a compare-and-swap on a word
// that names the generation, so a stale handle can neither race with the
// new use nor sync one of its parts.
type Pending struct {
	// What a waiting part polls, in one word on a cache line of its own
	// (the record's owner pads before it): the generation, and whether the
	// operation started or finished. The part that finishes the operation
	// fills the next line, which nobody reads meanwhile, then sets the
	// word once; a rendezvous of a node's images moves as few lines
	// between their cores as it can.
	state atomic.Uint64
	_     [56]byte
	left  atomic.Int32
	// An operation that ran to its end without the engine (Finish): the
	// parts' sync words (armed(gen) until the part synced; the first
	// len(few) here, the rest in more, grown, never shrunk, so that parts
	// index them whatever the generation), its error, and what to do once
	// every part synced.
	few     [4]atomic.Uint32
	err     error
	release func()
	// written once per use, or seldom
	tk       atomic.Uint64          // the started operation's Ticket, slot<<32 | gen
	e        atomic.Pointer[Engine] // set by Attach
	alone    atomic.Bool            // set by Attach
	more     atomic.Pointer[[]atomic.Uint32]
	describe func() string // what a stalled wait says (Describe)
}

// The state word: flags, and the generation above them.
const (
	pStarted  = 1
	pFinished = 2
	pGenShift = 2
)

func genOf(state uint64) uint32 { return uint32(state >> pGenShift) }

// armed is the sync word of a part of generation gen that has not synced;
// a part that synced holds armed(gen) - 1. Words keep the generation's low
// 31 bits: a stale handle is told from a live one unless it is 2^31
// generations old.
func armed(gen uint32) uint32 { return gen<<1 | 1 }

// word is part's sync word, nil if it has none.
func (p *Pending) word(part uint32) *atomic.Uint32 {
	if part < uint32(len(p.few)) {
		return &p.few[part]
	}
	if w := p.more.Load(); w != nil && int(part)-len(p.few) < len(*w) {
		return &(*w)[int(part)-len(p.few)]
	}
	return nil
}

// Attach ties the record to engine e, before any of its handles exist.
// With alone, the operation never starts in the engine: it ends in Finish,
// run by the last part to arrive, and a wait on a part's handle looks at
// the record only (no engine lock, no count of the engine's waiters).
func (p *Pending) Attach(e *Engine, alone bool) {
	// stored only when changed: the record is reused call after call, and
	// a line written on every use would move between the parts' cores
	if p.e.Load() != e {
		p.e.Store(e)
	}
	if p.alone.Load() != alone {
		p.alone.Store(alone)
	}
}

// Gen is the record's generation.
func (p *Pending) Gen() uint32 { return genOf(p.state.Load()) }

// Start publishes the ticket of the started operation.
func (p *Pending) Start(t Ticket) {
	p.tk.Store(uint64(t.slot)<<32 | uint64(t.gen))
	p.state.Or(pStarted)
}

// Finish publishes that the operation is over without the engine (it
// needed no transfer and ran to its end when the last part arrived), with
// err. The parts in done have synced already (they hold no pending handle);
// every other part's handle syncs once, and when the last of them did,
// release runs (the record may then serve another operation). release also
// runs at once when no other part remains.
func (p *Pending) Finish(parts int, err error, release func(), done ...int) {
	if extra := parts - len(p.few); extra > 0 {
		if w := p.more.Load(); w == nil || len(*w) < extra {
			words := make([]atomic.Uint32, extra)
			p.more.Store(&words)
		}
	}
	// Only the words of parts that are to sync are stored: the others
	// (in done, below 64; any beyond are synced after, as a handle would)
	// keep a value of an earlier generation, which no handle of this one
	// can sync, as a synced word would be.
	a := armed(p.Gen())
	var synced uint64
	left := parts
	for _, d := range done {
		if d < 64 && synced&(1<<d) == 0 {
			synced |= 1 << d
			left--
		}
	}
	for i := range parts {
		if i >= 64 || synced&(1<<i) == 0 {
			p.word(uint32(i)).Store(a)
		}
	}
	for _, d := range done {
		if d >= 64 && p.word(uint32(d)).CompareAndSwap(a, a-1) {
			left--
		}
	}
	if left == 0 {
		release()
		return
	}
	p.err, p.release = err, release
	p.left.Store(int32(left))
	p.state.Or(pFinished)
}

// Drop marks part done, a part that holds no handle, after Finish: as a
// handle's sync would, it counts the part off, and the last part's drop or
// sync runs release.
func (p *Pending) Drop(part int) {
	a := armed(p.Gen())
	if w := p.word(uint32(part)); w != nil && w.CompareAndSwap(a, a-1) && p.left.Add(-1) == 0 {
		p.release()
	}
}

// Reuse begins the record's next generation, not started.
func (p *Pending) Reuse() {
	p.state.Store(uint64(p.Gen()+1) << pGenShift) // not started, not finished
}

// PendingHandle is part's handle of the operation pending in p's
// generation gen; it becomes the operation's handle once it starts.
// The record must be attached to e.
func (e *Engine) PendingHandle(p *Pending, gen uint32, part int) Handle {
	return Handle{ref: unsafe.Pointer(p), gen: gen, part: uint32(part) | pendingPart}
}

// busyQueue: one in busyQueue tries that find the engine's lock taken
// queues for it (Handle.try).
const busyQueue = 16

// What became of a pending handle (resolve).
const (
	notStarted = iota
	started    // the handle is now its operation's
	finished   // synced: the operation ended without the engine
)

// resolve turns a pending handle into the handle of its operation once
// that started, or syncs it when the operation finished without the
// engine.
func (h *Handle) resolve() (int, error) {
	p := (*Pending)(h.ref)
	part := h.part &^ pendingPart
	s := p.state.Load()
	switch {
	case genOf(s) != h.gen:
		return notStarted, ErrDeadHandle
	case s&pFinished != 0:
		a := armed(h.gen)
		if w := p.word(part); w == nil || !w.CompareAndSwap(a, a-1) {
			return notStarted, ErrDeadHandle // synced already, or of an earlier generation
		}
		err := p.err
		if p.left.Add(-1) == 0 {
			p.release()
		}
		return finished, err
	case s&pStarted == 0:
		return notStarted, nil
	}
	tk, e := p.tk.Load(), p.e.Load()
	if p.Gen() != h.gen { // the record moved on while we read
		return notStarted, ErrDeadHandle
	}
	*h = Handle{ref: unsafe.Pointer(e), slot: uint32(tk>>32) + 1, gen: uint32(tk), part: part}
	return started, nil
}

// handOut returns part's handle of the operation in slot, polling first
// when it cannot sync yet or others are live: the zero Handle (and the
// part's handle dead) when its sync already succeeds, the operation's
// error when it failed.
func (e *Engine) handOut(slot, part uint32) (Handle, error) {
	en := &e.slots[slot]
	op := en.op
	if en.err == nil && (e.live > 1 || !op.Syncable()) {
		e.progressLocked()
	}
	en = &e.slots[slot]
	if en.op == op && (en.err != nil || op.Syncable()) {
		return Handle{}, e.syncPart(slot, part)
	}
	return Handle{ref: unsafe.Pointer(e), slot: slot + 1, gen: en.gen, part: part}, nil
}

// drop releases the slot of an operation that needs no more progress and
// has no live handle, or abandons it when it failed with a transfer still
// in flight.
func (e *Engine) drop(slot uint32) {
	en := &e.slots[slot]
	if en.err == nil || quiet(en.op) {
		e.release(slot)
		return
	}
	if en.abandoned {
		return
	}
	en.abandoned = true
	e.live--
	e.noteFinished(slot)
	if en.watch != nil {
		close(en.watch)
		en.watch = nil
	}
	if a, ok := en.op.(Abandoner); ok {
		a.Abandon()
	}
}

func (e *Engine) release(slot uint32) {
	en := &e.slots[slot]
	if !en.fin {
		en.fin = true
		e.unfinished.Add(-1)
	}
	if en.watch != nil {
		close(en.watch)
		en.watch = nil
	}
	en.op.Retire()
	en.op, en.err, en.handles = nil, nil, 0
	en.gen++
	e.free = append(e.free, slot)
	if !en.abandoned {
		e.live--
	}
	en.abandoned = false
}

// Poll makes progress on every live operation without waiting.
func (e *Engine) Poll() error {
	if err := Reentrant(); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.progressLocked()
	return e.fail
}

// pollIfFree makes progress unless another goroutine is in the engine.
func (e *Engine) pollIfFree() {
	if e.mu.TryLock() {
		e.progressLocked()
		e.mu.Unlock()
	}
}

// Live is the number of operations still live on this node, synced or not.
func (e *Engine) Live() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.live
}

// progressLocked polls the conduit once and steps the operations that had
// completions; operations that are finished and synced leave the table.
func (e *Engine) progressLocked() bool { return e.progress(false) }

// progress polls the conduit once and steps the operations that had
// completions; onAgent is set on the progress agent, which leaves the
// operations that are not agent-safe to the application's goroutines
// (owed). Operations that are finished and synced leave the table.
func (e *Engine) progress(onAgent bool) bool {
	if e.fail != nil {
		return false
	}
	if !onAgent && len(e.owed) > 0 {
		for _, slot := range e.owed {
			e.step(slot)
		}
		e.owed = e.owed[:0]
	}
	done, err := e.poll(e.done[:0])
	e.done = done
	if err != nil {
		e.fail = err
		return false
	}
	for _, t := range done {
		slot := uint32(t >> 32)
		if int(slot) < len(e.slots) && e.slots[slot].op != nil {
			e.slots[slot].op.Complete(uint32(t))
			e.slots[slot].ticks++
		}
	}
	e.completions += uint64(len(done))
	for _, t := range done {
		slot := uint32(t >> 32)
		if int(slot) >= len(e.slots) {
			continue
		}
		if en := &e.slots[slot]; en.abandoned {
			if quiet(en.op) {
				e.release(slot)
			}
			continue
		}
		if onAgent && !agentSafe(e.slots[slot].op) {
			e.owed = append(e.owed, slot)
			continue
		}
		e.step(slot)
	}
	if len(e.watched) > 0 {
		e.closeWatches()
	}
	return len(done) > 0
}

// step advances the operation in slot, if live and not failed.
func (e *Engine) step(slot uint32) {
	en := &e.slots[slot]
	if en.op == nil || en.err != nil {
		return
	}
	if err := runStep(en.op); err != nil {
		en.err = err
	}
	e.noteFinished(slot)
	e.dropIfDone(slot)
}

// stepOp steps op; a panic of the user code it ran is its error (Run).
func runStep(op Op) error { return Run(op.Step) }

// syncPart marks part's handle of the operation in slot synced and
// returns the operation's error.
func (e *Engine) syncPart(slot, part uint32) error {
	en := &e.slots[slot]
	err := en.err
	en.kill(part)
	e.dropIfDone(slot)
	return err
}

// dropIfDone releases the slot once no handle refers to its operation and
// the operation needs no more progress (finished, or failed).
func (e *Engine) dropIfDone(slot uint32) {
	if en := &e.slots[slot]; en.handles == 0 && !en.abandoned && (en.err != nil || en.op.Finished()) {
		e.drop(slot)
	}
}

// Handle names one node's part of a non-blocking collective. The zero
// Handle is the invalid handle: an operation that completed during
// initiation. A handle is dead once synced; syncing it again is an error.
// Handles are not collective: each node syncs its own, in any order.
type Handle struct {
	// the engine, or for a pending handle (part has pendingPart) the
	// operation's Pending record: one pointer keeps the handle small, and
	// handles are passed around by value on every call
	ref  unsafe.Pointer
	slot uint32 // slot+1; 0 in the invalid handle
	gen  uint32
	part uint32 // which image's handle, for operations shared by a node's images
}

// pendingPart marks a pending handle's part.
const pendingPart = 1 << 31

func (h Handle) pending() bool { return h.part&pendingPart != 0 }

// engine is the handle's engine.
func (h Handle) engine() *Engine {
	if h.pending() {
		return (*Pending)(h.ref).e.Load()
	}
	return (*Engine)(h.ref)
}

// Valid reports whether h is not the invalid handle.
func (h Handle) Valid() bool { return h.slot != 0 || h.pending() }

// Unsynced reports whether h's sync has not succeeded yet: a try would
// not find it dead. A pending handle whose record moved on to a later
// operation counts as synced (so a caller that keeps a handle to refuse a
// second start misses that case rather than refusing a valid one).
func (h Handle) Unsynced() bool {
	if h.pending() {
		p := (*Pending)(h.ref)
		s := p.state.Load()
		switch {
		case genOf(s) != h.gen:
			return false
		case s&pFinished != 0:
			w := p.word(h.part &^ pendingPart)
			return w != nil && w.Load() == armed(h.gen)
		case s&pStarted == 0:
			return true
		}
		tk := p.tk.Load()
		if p.Gen() != h.gen { // the record moved on while we read
			return false
		}
		h = Handle{ref: unsafe.Pointer(p.e.Load()), slot: uint32(tk>>32) + 1, gen: uint32(tk), part: h.part &^ pendingPart}
	}
	if h.slot == 0 {
		return false
	}
	e := (*Engine)(h.ref)
	e.mu.Lock()
	defer e.mu.Unlock()
	s := h.slot - 1
	return int(s) < len(e.slots) && e.slots[s].gen == h.gen && e.slots[s].live(h.part)
}

// trySync is Try with the lock held; it releases the handle on success.
func (e *Engine) trySync(h Handle) (bool, error) {
	s := h.slot - 1
	if int(s) >= len(e.slots) || e.slots[s].gen != h.gen || !e.slots[s].live(h.part) {
		return false, ErrDeadHandle
	}
	en := &e.slots[s]
	if en.err == nil && e.fail != nil {
		en.err = e.fail
	}
	if en.err == nil && !en.op.Syncable() {
		return false, nil
	}
	return true, e.syncPart(s, h.part)
}

// Try makes progress and reports whether the operation's sync succeeded.
// After success (or an error of the operation) the handle is dead. An
// operation that failed because its reduction function panicked raises
// that panic again here, as a *PanicError. A loop of tries should yield
// between them (runtime.Gosched), as Wait does, where images outnumber
// cores: a spinning image takes the processor from the images it waits for.
func (h Handle) Try() (bool, error) {
	if err := Reentrant(); err != nil {
		return false, err
	}
	ok, err := h.try()
	return ok, Rethrow(err)
}

// try is Try without the checks of a public call.
func (h Handle) try() (bool, error) {
	if !h.Valid() {
		return true, nil
	}
	if h.pending() {
		return h.tryPending()
	}
	e := (*Engine)(h.ref)
	// Another goroutine in the engine (another image of the node) is making
	// progress for everyone: report "not yet" rather than queue for the
	// lock, mostly. But goroutines that take the lock in a loop (TryAll,
	// TrySome, Poll) can keep it busy at every try, and the operation they
	// wait for may need this goroutine's next call: so every busyQueue-th
	// busy try on the engine queues, and a queued Lock is handed the lock
	// within a millisecond (sync.Mutex's starvation mode). The progress
	// agent holds the lock for one poll at a time, and a Try after Done
	// closed must succeed: with an agent, always queue.
	if !e.mu.TryLock() {
		if !e.hasAgent.Load() && e.lockBusy.Add(1)%busyQueue != 0 {
			return false, nil
		}
		e.mu.Lock()
	}
	defer e.mu.Unlock()
	if ok, err := e.trySync(h); ok || err != nil {
		return ok, err
	}
	e.progressLocked()
	return e.trySync(h)
}

// tryPending is Try of a pending handle.
func (h Handle) tryPending() (bool, error) {
	switch state, err := h.resolve(); {
	case state == finished:
		return true, err
	case err != nil || state == notStarted:
		// Nothing to sync yet; waits make progress for the others now and
		// then (spinner), not on every try: the lock is what the image that
		// starts the operation needs.
		return false, err
	}
	return h.try()
}

// Wait makes progress until the sync succeeds, ctx is done, or the
// operation fails; a panic of its reduction function is raised again, as
// Try does.
func (h Handle) Wait(ctx context.Context) error {
	if err := Reentrant(); err != nil {
		return err
	}
	e, w, p := h.watched()
	return Rethrow(waitFor(ctx, e, h.try, w, p))
}

// WaitReady waits as Wait does on h, a pending handle (pacing, the stall
// watchdog, ctx), but until ready reports true rather than for h's
// operation: for a part that needs only what the other parts published as
// they arrived, and that the part ending the operation counts as done
// (Finish's done). ready is called between polls.
func (h Handle) WaitReady(ctx context.Context, ready func() bool) error {
	if err := Reentrant(); err != nil {
		return err
	}
	e, w, p := h.watched()
	return waitFor(ctx, e, func() (bool, error) { return ready(), nil }, w, p)
}

// WaitArrivals waits until ready reports true (called between polls), for
// what the node's other images publish as they arrive at a call that
// needs no operation in the engine: paced as a wait for a pending
// handle's arrivals is (it yields to them), bounded by ctx, and with the
// stall watchdog, whose error (ErrStalled) says describe()'s words.
func (e *Engine) WaitArrivals(ctx context.Context, ready func() bool, describe func() string) error {
	if err := Reentrant(); err != nil {
		return err
	}
	sp := spinner{w: watch{after: e.stallAfter, e: e, describe: describe}, idle: e.idle, arriving: true}
	if e.shared {
		sp.e = e
	}
	return spinUntil(ctx, &sp, func() (bool, error) { return ready(), nil })
}

// watched is what a wait on h alone (Wait, WaitReady) needs: h's engine,
// which paces it, a stall watchdog on h, and h's record if h is pending.
func (h Handle) watched() (*Engine, watch, *Pending) {
	e := h.engine()
	w := watchOf(e, nil)
	w.one, w.single = h, true // held by value: a slice of it would escape with the spinner
	var p *Pending
	if h.pending() {
		p = (*Pending)(h.ref)
	}
	return e, w, p
}

// waitFor calls try until it reports success or an error, pacing the
// loop with a spinner that calls idle between tries and runs the
// stall watchdog w. arrivals is the record of a pending handle waited
// for (the first, for several), nil if none is.
func waitFor(ctx context.Context, e *Engine, try func() (bool, error), w watch, arrivals *Pending) error {
	sp := spinner{w: w, arrivals: arrivals}
	if e != nil {
		sp.idle = e.idle
		if e.shared {
			sp.e = e
		}
		// A wait for a single operation that ends in Finish, not in the
		// engine (Attach's alone), reads its record only and is not counted
		// among the engine's waiters: a line the node's images would
		// otherwise pass between them on every call.
		alone := w.single && arrivals != nil && arrivals.alone.Load()
		if (e.shared || e.hasAgent.Load()) && !alone {
			e.waiters.Add(1)
			err := spinUntil(ctx, &sp, try)
			// Only an agent listens (StartAgent sets hasAgent before it
			// runs): the channel's lock is a cache line that the images'
			// waits would otherwise pass between them on every call.
			if e.waiters.Add(-1) == 0 && e.hasAgent.Load() {
				select { // the agent may poll again
				case e.unwaited <- struct{}{}:
				default:
				}
			}
			return err
		}
	}
	return spinUntil(ctx, &sp, try)
}

// spinUntil is waitFor's loop.
func spinUntil(ctx context.Context, sp *spinner, try func() (bool, error)) error {
	for {
		ok, err := try()
		if ok || err != nil {
			return err
		}
		if err := sp.spin(ctx); err != nil {
			return err
		}
	}
}

// syncEach polls every engine the handles use once, then tries each valid
// handle, turning the synced ones into the invalid handle. It reports how
// many valid handles there were and how many synced, and the first error.
// The lock is taken once per run of handles of one engine, so that a pass
// over tens of thousands of handles stays cheap.
func syncEach(hs []Handle) (valid, synced int, first error) {
	var polled, locked *Engine
	for i := range hs {
		h := hs[i]
		if !h.Valid() {
			continue
		}
		valid++
		if h.pending() {
			state, err := h.resolve()
			if err != nil || state == finished {
				first = cmp.Or(first, err)
				hs[i] = Handle{}
				synced++
				continue
			}
			if state == notStarted {
				continue
			}
		}
		e := (*Engine)(h.ref)
		if e != locked {
			if locked != nil {
				locked.mu.Unlock()
			}
			e.mu.Lock()
			locked = e
		}
		if e != polled { // usually every handle shares one engine
			e.progressLocked()
			polled = e
		}
		ok, err := e.trySync(h)
		if err != nil && first == nil {
			first = err
		}
		if ok || err != nil {
			hs[i] = Handle{}
			synced++
		}
	}
	if locked != nil {
		locked.mu.Unlock()
	}
	return valid, synced, first
}

// TryAll makes progress and reports whether every handle synced; the ones
// that did become the invalid handle. The first error is returned (a
// panic of a reduction function raised again, as Try does).
func TryAll(hs []Handle) (bool, error) {
	if err := Reentrant(); err != nil {
		return false, err
	}
	ok, err := tryAll(hs)
	return ok, Rethrow(err)
}

func tryAll(hs []Handle) (bool, error) {
	valid, synced, err := syncEach(hs)
	return synced == valid && err == nil, err
}

// WaitAll makes progress until every handle synced.
func WaitAll(ctx context.Context, hs []Handle) error {
	if err := Reentrant(); err != nil {
		return err
	}
	e := engineOf(hs)
	return Rethrow(waitFor(ctx, e, func() (bool, error) { return tryAll(hs) }, watchOf(e, hs), firstPending(hs)))
}

// TrySome makes progress and reports whether at least one valid handle
// synced; those become the invalid handle. With no valid handle it reports true.
func TrySome(hs []Handle) (bool, error) {
	if err := Reentrant(); err != nil {
		return false, err
	}
	ok, err := trySome(hs)
	return ok, Rethrow(err)
}

func trySome(hs []Handle) (bool, error) {
	valid, synced, err := syncEach(hs)
	return synced > 0 || valid == 0, err
}

// WaitSome makes progress until at least one valid handle synced.
func WaitSome(ctx context.Context, hs []Handle) error {
	if err := Reentrant(); err != nil {
		return err
	}
	e := engineOf(hs)
	return Rethrow(waitFor(ctx, e, func() (bool, error) { return trySome(hs) }, watchOf(e, hs), firstPending(hs)))
}

// spinner paces a wait loop. Polling is what makes progress, so a waiter
// spins; but it yields the processor every yieldEvery so that other
// goroutines (other images, in-process nodes) run, and so that the runtime
// does not take a goroutine that stays in cgo calls for long as hogging its
// thread. Yielding on every poll would be far worse when the waiter is
// alone: for a goroutine locked to its OS thread each runtime.Gosched is a
// thread hand-off costing tens of microseconds. But where several of the
// node's goroutines use the engine (its images), one may be waiting for
// another's next step, so then waits yield often: a wait for a goroutine
// polling for all, every 8 polls; a wait for the node's other images to
// arrive, every 8 polls too when they outnumber the processors (one may
// be waiting for this one's), but only every 256 when each can have a
// processor of its own: they are running, and two waiting images that
// yielded on every call would pass the scheduler's lock between their
// cores on every call, several times what the call costs. The context
// is checked at the same pace.
type spinner struct {
	n    int
	last time.Time
	e    *Engine
	idle func()
	w    watch // the wait's stall watchdog
	// the record of a pending handle the wait is for (the first, for a
	// wait on several): while its operation has not started, the wait
	// waits for the node's other images to arrive, so it yields to them as
	// a crowded engine's waits do
	arrivals *Pending
	arriving bool // the wait is for arrivals alone (WaitArrivals)
}

// firstPending is the record of the first pending handle in hs, nil if
// none is.
func firstPending(hs []Handle) *Pending {
	for _, h := range hs {
		if h.pending() {
			return (*Pending)(h.ref)
		}
	}
	return nil
}

// engineOf is the engine of the first valid handle.
func engineOf(hs []Handle) *Engine {
	for _, h := range hs {
		if h.Valid() {
			return h.engine()
		}
	}
	return nil
}

// forArrivals reports whether the wait is for the node's other images to
// arrive: WaitArrivals, or a pending handle whose operation has not
// started (on an engine they share).
func (s *spinner) forArrivals() bool {
	return s.e != nil && (s.arriving || s.arrivals != nil && s.arrivals.state.Load()&pStarted == 0)
}

const (
	spinCheck  = 64 // polls between clock readings
	yieldEvery = 50 * time.Microsecond
)

func (s *spinner) spin(ctx context.Context) error {
	if s.idle != nil {
		s.idle()
	}
	if s.n%8 == 0 && s.e != nil && s.e.crowded() || s.forArrivals() && (s.n%8 == 0 && s.e.outnumbered || s.n%256 == 255) {
		// What this wait needs may be another goroutine's next step (an
		// image still to arrive, or one polling for all): let it run.
		runtime.Gosched()
	}
	s.n++
	if s.n%spinCheck != 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	now := time.Now()
	if err := s.w.check(now); err != nil {
		return err
	}
	if s.last.IsZero() {
		s.last = now
	} else if now.Sub(s.last) >= yieldEvery {
		// A wait on an operation yet to start (Pending) polls for the
		// node's other operations only here, seldom: the image it waits
		// for may be computing the node's part meanwhile, and polls from
		// another thread (into MPI) slowed that by up to 3x.
		if s.e != nil {
			s.e.pollIfFree()
		}
		runtime.Gosched()
		s.last = time.Now()
	}
	return nil
}
