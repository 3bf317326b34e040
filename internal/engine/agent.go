package engine

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"
)

// Progress: where the engine's operations advance, in the modes that
// package sync documents for users (sync.ProgressMode, the same values):
// inside the node's calls only (Polling), or also on an agent goroutine
// (Goroutine, Periodic). The agent never runs an operation that is not
// agent-safe (one that calls user functions registered without AMSafe): it
// only records its transfers' completions, and the node's next call steps
// it.

// ProgressMode says who makes progress (sync.ProgressMode's values).
type ProgressMode int

const (
	// Polling: progress only inside the node's calls.
	Polling ProgressMode = iota
	// Goroutine: a goroutine polls while collectives are in flight.
	Goroutine
	// Periodic: a goroutine polls every interval while collectives are in flight.
	Periodic
)

// String names the mode.
func (m ProgressMode) String() string {
	switch m {
	case Polling:
		return "polling"
	case Goroutine:
		return "goroutine"
	case Periodic:
		return "periodic"
	}
	return fmt.Sprintf("ProgressMode(%d)", int(m))
}

// DefaultInterval is the Periodic agent's interval when none is given.
const DefaultInterval = 100 * time.Microsecond

// Errors of the agent; test with errors.Is.
var (
	ErrAgent   = errors.New("gocoll: progress agent already running or stopped")
	ErrStopped = errors.New("gocoll: progress agent stopped")
)

// AgentSafe is implemented by operations that tell whether the progress
// agent may step them; an operation without it is safe.
type AgentSafe interface {
	AgentSafe() bool
}

func agentSafe(op Op) bool {
	if s, ok := op.(AgentSafe); ok {
		return s.AgentSafe()
	}
	return true
}

type agent struct {
	mode     ProgressMode
	interval time.Duration
	stop     chan struct{}
	stopped  chan struct{}
}

// StartAgent starts the engine's progress agent in mode (Goroutine or
// Periodic; interval is Periodic's, 0 meaning DefaultInterval). An engine
// has at most one agent, started once.
func (e *Engine) StartAgent(mode ProgressMode, interval time.Duration) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.agent != nil {
		return ErrAgent
	}
	switch mode {
	case Goroutine, Periodic:
	default:
		return fmt.Errorf("%w: mode %v has no agent", ErrAgent, mode)
	}
	if interval <= 0 {
		interval = DefaultInterval
	}
	a := &agent{mode: mode, interval: interval, stop: make(chan struct{}), stopped: make(chan struct{})}
	e.agent = a
	e.hasAgent.Store(true)
	go e.runAgent(a)
	return nil
}

// Drain makes progress until no operation is unfinished: what the node
// still owes its peers. ctx bounds it.
func (e *Engine) Drain(ctx context.Context) error {
	return e.WaitUntil(ctx, func() bool { return e.unfinished.Load() == 0 })
}

// WaitUntil makes progress, pacing itself as waits do, until done reports
// true (called between polls, with the engine's lock held), ctx is done, or
// the conduit fails.
func (e *Engine) WaitUntil(ctx context.Context, done func() bool) error {
	if err := Reentrant(); err != nil {
		return err
	}
	return waitFor(ctx, e, func() (bool, error) {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.progressLocked()
		return done(), e.fail
	}, watchOf(e, nil), nil)
}

// StopAgent drains the engine (see Drain), then ends the agent.
func (e *Engine) StopAgent(ctx context.Context) error {
	e.mu.Lock()
	a := e.agent
	e.mu.Unlock()
	if a == nil {
		return ErrAgent
	}
	err := e.Drain(ctx)
	select {
	case <-a.stop:
		return ErrStopped
	default:
		close(a.stop)
	}
	<-a.stopped
	return err
}

// runAgent is the agent's goroutine.
func (e *Engine) runAgent(a *agent) {
	defer close(a.stopped)
	var tick *time.Ticker
	if a.mode == Periodic {
		tick = time.NewTicker(a.interval)
		defer tick.Stop()
	}
	for {
		if !e.busy() { // park until an operation starts
			select {
			case <-a.stop:
				return
			case <-e.wake:
			}
		}
		if tick != nil {
			select {
			case <-a.stop:
				return
			case <-tick.C:
			}
		} else {
			select {
			case <-a.stop:
				return
			default:
			}
		}
		if e.waiters.Load() > 0 {
			// A goroutine of the node waits, and so polls: two pollers
			// would only share the processors the node's work needs.
			select {
			case <-a.stop:
				return
			case <-e.unwaited:
			}
			continue
		}
		if e.mu.TryLock() { // else the node's own goroutine is making progress
			e.progress(true)
			e.mu.Unlock()
		}
		if tick == nil {
			if e.idle != nil {
				e.idle()
			}
			runtime.Gosched() // the node's goroutines come first
		}
	}
}

// busy reports whether an operation is unfinished.
func (e *Engine) busy() bool { return e.unfinished.Load() > 0 }

// Done returns a channel that is closed once the handle's sync would
// succeed (or fail), so that a program can select on a collective beside
// its other channels. Somebody must make progress for it to close: the
// progress agent, or the node's own calls. Done does not sync the handle:
// Try or Wait still must.
func (h Handle) Done() <-chan struct{} {
	if !h.Valid() {
		return closedChan
	}
	for h.pending() { // until the node's other images arrived and started it
		p := (*Pending)(h.ref)
		s := p.state.Load()
		if genOf(s) != h.gen || s&pFinished != 0 {
			return closedChan // dead, or done without the engine: Try tells which
		}
		if s&pStarted == 0 {
			runtime.Gosched()
			continue
		}
		if _, err := h.resolve(); err != nil {
			return closedChan
		}
	}
	e := (*Engine)(h.ref)
	e.mu.Lock()
	defer e.mu.Unlock()
	s := h.slot - 1
	if int(s) >= len(e.slots) || e.slots[s].gen != h.gen || !e.slots[s].live(h.part) {
		return closedChan
	}
	en := &e.slots[s]
	if en.err != nil || e.fail != nil || en.op.Syncable() {
		return closedChan
	}
	if en.watch == nil {
		en.watch = make(chan struct{})
		e.watched = append(e.watched, s)
	}
	return en.watch
}

var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// closeWatches closes the Done channels of the operations that can sync.
func (e *Engine) closeWatches() {
	keep := e.watched[:0]
	for _, s := range e.watched {
		en := &e.slots[s]
		switch {
		case en.watch == nil: // released
		case en.err != nil || e.fail != nil || en.op.Syncable():
			close(en.watch)
			en.watch = nil
		default:
			keep = append(keep, s)
		}
	}
	e.watched = keep
}
