package engine

import "context"

// A blocking operation run without a slot (RunAlone). On a node whose
// engine serves one goroutine and holds no live operation, a blocking
// collective needs nothing the table gives: no handle to hand out, no
// other operation to step between its polls, no agent to share progress
// with. RunAlone then runs it under the engine's lock from its first step
// to its end, polling the conduit itself: the slot, the handle and the
// wait's tries are what a small collective saves (package coll runs a
// blocking call's cached schedule so). The lock keeps every other poller out, the progress agent
// included (it only tries the lock), so every completion the conduit
// reports is the operation's.

// AloneSlot is the slot an operation run by RunAlone is bound to: above
// any slot of the table (MaxLive), so that a late completion of one that
// failed, should a later poll of the table see it, finds no operation.
const AloneSlot = ^uint32(0)

// RunAlone runs op, the initiation of a blocking collective, to its end
// with the conduit to itself, when it can: when the engine was not made
// Shared and holds no live operation. It then binds op to AloneSlot,
// steps it, and polls until op is Finished, passing op the completions of
// AloneSlot's tokens and stepping it after each poll that had some; the
// polls are paced as Wait's are (idle, ctx, the stall watchdog, whose
// error names what op's Stalled says). ran reports whether it ran op; if
// not, nothing happened and the caller starts op's work in the engine.
//
// An error of op's Step (a panic of its user code included, as Run makes
// it), of ctx, of the watchdog or of a FailIf that matches op ends the run; as for an operation of the
// table, op is then Retired if it is Quiet, and otherwise Abandoned if it
// implements Abandoner, never Retired: its transfers in flight keep its
// buffers, and since their completions, if they ever come, carry
// AloneSlot's tokens, which a later run would take for its own, the
// engine runs nothing alone from then on. A conduit failure fails the engine as a
// poll's does.
func (e *Engine) RunAlone(ctx context.Context, op Op) (ran bool, err error) {
	if e.shared {
		return false, nil
	}
	if err := Reentrant(); err != nil {
		return true, err
	}
	// No defer: this is on the path of the smallest collectives, and
	// nothing below panics (runStep recovers op's panics).
	e.mu.Lock()
	if e.live > 0 || e.fail != nil || e.aloneLost {
		e.mu.Unlock()
		return false, nil
	}
	op.Bind(AloneSlot)
	err = e.runAlone(ctx, op)
	switch {
	case err == nil || quiet(op):
		op.Retire()
	default:
		e.aloneLost = true
		if a, ok := op.(Abandoner); ok {
			a.Abandon()
		}
	}
	e.mu.Unlock()
	return true, err
}

// runAlone is RunAlone's loop, with the lock held.
func (e *Engine) runAlone(ctx context.Context, op Op) error {
	if err := runStep(op); err != nil {
		return err
	}
	if op.Finished() { // its data was there: no wait to set up
		return nil
	}
	return e.aloneWait(ctx, op)
}

// aloneWait polls for op's transfers and steps it until it is finished.
func (e *Engine) aloneWait(ctx context.Context, op Op) error {
	sp := spinner{w: watch{after: e.stallAfter, e: e, count: &e.completions, alone: op}, idle: e.idle}
	for !op.Finished() {
		done, err := e.poll(e.done[:0])
		e.done = done
		if err != nil {
			e.fail = err
			return err
		}
		if len(done) == 0 {
			if err := e.failAlone(op); err != nil {
				return err
			}
			if err := sp.spin(ctx); err != nil {
				return err
			}
			continue
		}
		for _, t := range done {
			if uint32(t>>32) == AloneSlot {
				op.Complete(uint32(t))
			}
		}
		e.completions += uint64(len(done))
		if err := runStep(op); err != nil {
			return err
		}
	}
	return nil
}
