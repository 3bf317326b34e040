package engine

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"
)

// The stall watchdog. A wait (Wait, WaitAll, WaitSome, the blocking
// collectives, Drain) that has polled for the engine's stall timeout and
// seen no progress on what it waits for gives up with an error that
// errors.Is ErrStalled and says what the operations still wait for
// (Staller): a peer that skipped a call, left early or died is then an
// error, not a hang. Progress is counted only while someone polls, so an
// operation that a node left alone while it computed is not stalled: the
// clock starts when the wait does.
//
//   - Wait, WaitAll and WaitSome fail the operations they wait on (the
//     error is theirs, their handles are dead, see fail.go in package coll
//     for what stays in flight); a handle whose operation has not started
//     (the node's other images have not all called it) stays valid.
//   - WaitUntil (Drain, and so Close) reports the node's unfinished
//     operations and fails none.
//   - WaitArrivals says what its caller describes (the images that have
//     not arrived) and fails nothing.
//
// The check runs at the pace of the wait's clock readings (every 64
// polls), costs a TryLock and a look at the waited operations' completion
// counts, and allocates nothing (the watch lives in the wait's spinner).

// ErrStalled: a wait saw no progress for the stall timeout.
var ErrStalled = errors.New("gocoll: collective stalled: no progress")

// Staller is implemented by operations that can say what they wait for,
// for the error of a stalled wait ("Broadcast #12 on team 3: waiting
// for images 4, 5").
type Staller interface {
	Stalled() string
}

// SetStallTimeout sets how long a wait may see no progress before it
// fails with ErrStalled; 0 (the engine's default) never. Call it before
// any use of the engine.
func (e *Engine) SetStallTimeout(d time.Duration) { e.stallAfter = max(d, 0) }

// watch is one wait's watchdog, kept in its spinner (no allocation): it
// watches the handles hs, or, with hs nil, the node's operations (Drain).
// after 0 means none.
type watch struct {
	after time.Duration
	e     *Engine
	hs    []Handle
	// one wait's handle (Handle.Wait), when single: as a value, since a
	// slice over the caller's copy would move it to the heap on every wait
	one    Handle
	single bool
	last   uint64
	since  time.Time
	// a wait for arrivals (WaitArrivals): no progress short of its end,
	// and what it waits for in describe's words
	describe func() string
	// a wait that holds the engine's lock (RunAlone): progress is the
	// count it keeps itself, and alone says what it waits for
	count *uint64
	alone Op
}

// handles calls f with the watched handles (nil: the node's operations),
// from a frame of its own for a single handle.
func (w *watch) handles(f func(hs []Handle)) {
	if w.single {
		one := [1]Handle{w.one}
		f(one[:])
		return
	}
	f(w.hs)
}

// watchOf is the watchdog of a wait on hs (nil: the node's operations).
func watchOf(e *Engine, hs []Handle) watch {
	if e == nil {
		return watch{}
	}
	return watch{after: e.stallAfter, e: e, hs: hs}
}

// check runs the watchdog at time now: progress counts what grows with
// progress on what the wait waits for (false when it could not look now);
// after the timeout without progress, fail gives up on it: it fails what
// it can (the wait's next try reports it) and returns an error for the
// rest.
func (w *watch) check(now time.Time) error {
	if w.after <= 0 {
		return nil
	}
	var n uint64
	switch {
	case w.count != nil:
		n = *w.count
	case w.describe == nil:
		var ok bool
		if n, ok = w.progress(); !ok {
			return nil
		}
	}
	if w.since.IsZero() || n != w.last {
		w.last, w.since = n, now
		return nil
	}
	if d := now.Sub(w.since); d >= w.after {
		w.since = now // once per timeout, should fail leave something to wait for
		switch {
		case w.describe != nil:
			return fmt.Errorf("%w for %v: %s", ErrStalled, d.Round(time.Millisecond), w.describe())
		case w.count != nil:
			return stallError(w.alone, d)
		}
		if w.hs == nil && !w.single {
			return w.e.stalledNode(d)
		}
		var err error
		w.handles(func(hs []Handle) { err = w.e.failStalled(hs, d) })
		return err
	}
	return nil
}

func (w *watch) progress() (uint64, bool) {
	e := w.e
	if !e.mu.TryLock() {
		return 0, false
	}
	defer e.mu.Unlock()
	if w.hs == nil && !w.single {
		return e.completions, true // any completion on the node
	}
	var n uint64
	w.handles(func(hs []Handle) { n = e.handlesProgress(hs) })
	return n, true
}

// stallError is the error of an operation that saw no progress for d.
func stallError(op any, d time.Duration) error {
	what := "an operation"
	if s, ok := op.(Staller); ok {
		what = s.Stalled()
	}
	return fmt.Errorf("%w for %v: %s", ErrStalled, d.Round(time.Millisecond), what)
}

// handlesProgress counts the completions of the handles' operations, and
// their starting (pending handles) and syncing (the invalid handle), with
// e.mu held.
func (e *Engine) handlesProgress(hs []Handle) uint64 {
	var n uint64
	for _, h := range hs {
		switch {
		case !h.Valid():
			n += 1 << 32
		case h.pending():
			if p := (*Pending)(h.ref); p.state.Load()&(pStarted|pFinished) != 0 {
				n += 1 << 32
			}
		default:
			if s := h.slot - 1; int(s) < len(e.slots) && e.slots[s].gen == h.gen {
				n += uint64(e.slots[s].ticks)
			} else {
				n += 1 << 32 // gone
			}
		}
	}
	return n
}

// failStalled fails the operations of the handles that are still live
// with ErrStalled; the error of the handles whose operation did not start
// is returned (they stay valid).
func (e *Engine) failStalled(hs []Handle, d time.Duration) error {
	var pend []error
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, h := range hs {
		if !h.Valid() {
			continue
		}
		if h.pending() {
			p := (*Pending)(h.ref)
			s := p.state.Load()
			if genOf(s) != h.gen || s&pFinished != 0 {
				continue
			}
			if s&pStarted == 0 {
				what := "an operation whose node's images have not all called it"
				if p.describe != nil {
					what = p.describe()
				}
				pend = append(pend, fmt.Errorf("%w for %v: %s", ErrStalled, d.Round(time.Millisecond), what))
				continue
			}
			tk, pe := p.tk.Load(), p.e.Load()
			if p.Gen() != h.gen { // the record moved on while we read
				continue
			}
			h = Handle{ref: unsafe.Pointer(pe), slot: uint32(tk>>32) + 1, gen: uint32(tk), part: h.part &^ pendingPart}
		}
		s := h.slot - 1
		if int(s) >= len(e.slots) || e.slots[s].gen != h.gen {
			continue
		}
		en := &e.slots[s]
		if en.op == nil || en.err != nil || en.op.Syncable() {
			continue
		}
		en.err = stallError(en.op, d)
		e.noteFinished(s)
	}
	if len(e.watched) > 0 {
		e.closeWatches()
	}
	return errors.Join(pend...)
}

// stalledNode is the error of a stalled WaitUntil: the node's unfinished
// operations (it fails none), nil if there are none.
func (e *Engine) stalledNode(d time.Duration) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	var what []string
	for s := range e.slots {
		en := &e.slots[s]
		if en.op != nil && !en.fin && !en.abandoned {
			what = append(what, stallError(en.op, d).Error())
		}
	}
	if len(what) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrStalled, strings.Join(what, "; "))
}

// Describe sets what a stalled wait on the record's pending handles says
// the operation waits for (the parts that have not arrived); f is called
// with no lock held. Set it once, before handles exist.
func (p *Pending) Describe(f func() string) { p.describe = f }

// FailIf fails, with err, the operations in flight (started, not yet
// syncable, not failed) for which match is true, as the watchdog fails a
// stalled one but at once: their waits return err on their next try. It
// is for operations that wait on a peer known not to come (package coll's
// ImageGone); it returns how many it failed. Any goroutine may call it;
// match runs under the engine's lock, or, for an operation that RunAlone
// runs (holding the lock for its whole wait), in that wait, which reads
// the request while it has nothing to do.
func (e *Engine) FailIf(match func(Op) bool, err error) int {
	r := &failRequest{match: match, err: err}
	e.failing.Store(r)
	e.mu.Lock()
	defer e.mu.Unlock()
	e.failing.CompareAndSwap(r, nil)
	n := int(r.alone.Load())
	for s := range e.slots {
		en := &e.slots[s]
		if en.op == nil || en.err != nil || en.op.Syncable() || !match(en.op) {
			continue
		}
		en.err = r.errOf(en.op)
		e.noteFinished(uint32(s))
		n++
	}
	if n > 0 && len(e.watched) > 0 {
		e.closeWatches()
	}
	return n
}

// failRequest is a FailIf in progress.
type failRequest struct {
	match func(Op) bool
	err   error
	alone atomic.Int32 // operations of RunAlone it failed
}

// errOf is the request's error for op, naming what op waited for.
func (r *failRequest) errOf(op Op) error {
	if st, ok := op.(Staller); ok {
		return fmt.Errorf("%w (%s)", r.err, st.Stalled())
	}
	return r.err
}

// failAlone is the error of a FailIf that asks to fail op, run by
// RunAlone, or nil.
func (e *Engine) failAlone(op Op) error {
	r := e.failing.Load()
	if r == nil || !r.match(op) {
		return nil
	}
	r.alone.Add(1)
	return r.errOf(op)
}
