package sync

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// stuckOp never completes: it waits for a peer that never sends.
type stuckOp struct {
	userOp
	what string
}

func (o *stuckOp) Stalled() string { return o.what }

// TestStallWatchdog: a wait that sees no progress for the stall timeout
// fails with ErrStalled saying what the operation waits for; the operation
// is over (its handle dead, not live); a wait whose operation progresses
// more often than the timeout does not stall; without a timeout nothing
// stalls.
func TestStallWatchdog(t *testing.T) {
	const after = 250 * time.Millisecond
	cd := &lockedConduit{}
	e := NewEngine(cd.poll, nil)
	e.SetStallTimeout(after)

	op := &stuckOp{userOp: userOp{inFlight: 1, finishedWhen: 1}, what: "Broadcast #7 on TeamAll: waiting for images [3]"}
	h, err := e.Start(op)
	require.NoError(t, err)
	t0 := time.Now()
	err = h.Wait(context.Background())
	require.ErrorIs(t, err, ErrStalled)
	require.Contains(t, err.Error(), op.what)
	require.GreaterOrEqual(t, time.Since(t0), after)
	require.Equal(t, 0, e.Live(), "the stalled operation is over")
	_, err = h.Try()
	require.ErrorIs(t, err, ErrDeadHandle)
	cd.deliver(Token(op.slot, 0)) // its late completion finds it, and frees the slot
	require.NoError(t, e.Poll())
	require.Equal(t, 1, op.retired)

	// WaitAll fails every operation still waited for.
	a, b := &stuckOp{userOp: userOp{finishedWhen: 1}, what: "a"}, &stuckOp{userOp: userOp{finishedWhen: 1}, what: "b"}
	ha, _ := e.Start(a)
	hb, _ := e.Start(b)
	hs := []Handle{ha, hb}
	err = WaitAll(context.Background(), hs)
	require.ErrorIs(t, err, ErrStalled)
	require.Equal(t, 0, e.Live())

	// Progress more often than the timeout, for longer: no stall.
	const steps, every = 8, after / 5
	slow := &userOp{finishedWhen: steps, inFlight: steps}
	h, _ = e.Start(slow)
	go func() {
		for i := range steps {
			time.Sleep(every)
			cd.deliver(Token(slow.slot, uint32(i)))
		}
	}()
	require.NoError(t, h.Wait(context.Background()), "progress every %v", every)

	// Drain reports the unfinished operations and fails none.
	left := &stuckOp{userOp: userOp{finishedWhen: 1, inFlight: 1}, what: "the last one"}
	h, _ = e.Start(left)
	err = e.Drain(context.Background())
	require.ErrorIs(t, err, ErrStalled)
	require.Contains(t, err.Error(), "the last one")
	require.Equal(t, 1, e.Live())
	cd.deliver(Token(left.slot, 0))
	require.NoError(t, h.Wait(context.Background()))

	// A pending handle whose operation never starts: ErrStalled from the
	// record's description; the handle stays valid.
	var p Pending
	p.Attach(e, false)
	p.Describe(func() string { return "images 2, 3 of the node have not called it" })
	ph := e.PendingHandle(&p, p.Gen(), 1)
	err = ph.Wait(context.Background())
	require.ErrorIs(t, err, ErrStalled)
	require.Contains(t, err.Error(), "images 2, 3")
	ok, err := ph.Try()
	require.False(t, ok)
	require.NoError(t, err)

	// No timeout: no watchdog.
	e.SetStallTimeout(0)
	stuck := &stuckOp{userOp: userOp{finishedWhen: 1}}
	h, _ = e.Start(stuck)
	ctx, cancel := context.WithTimeout(context.Background(), 3*after)
	defer cancel()
	require.ErrorIs(t, h.Wait(ctx), context.DeadlineExceeded)
}
