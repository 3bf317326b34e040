package engine

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// aloneOp is a RunAlone operation: it needs the completions of its own
// tokens (idx 0..need-1), fails its Step with fail, and says it is stalled.
type aloneOp struct {
	userOp
	fail error
}

func (o *aloneOp) Step() error {
	if err := o.userOp.Step(); err != nil {
		return err
	}
	return o.fail
}

func (o *aloneOp) Stalled() string {
	return fmt.Sprintf("alone op, %d transfers in flight", o.inFlight)
}

// feeder is a conduit whose poll hands out queued tokens, a few polls
// apart, the way completions trickle in.
type feeder struct {
	queue []uint64
	polls int
}

func (c *feeder) poll(done []uint64) ([]uint64, error) {
	c.polls++
	if c.polls%3 == 0 && len(c.queue) > 0 {
		done = append(done, c.queue[0])
		c.queue = c.queue[1:]
	}
	return done, nil
}

// TestRunAlone: a blocking operation runs with the conduit to itself only
// where nothing else can use the engine (not Shared, nothing live), to its
// end; it gets its own completions, not others'; what it leaves in flight
// when it fails is Abandoned, and what is quiet Retired; the
// stall watchdog and the context bound it.
func TestRunAlone(t *testing.T) {
	t.Run("runs to its end", func(t *testing.T) {
		cd := &feeder{queue: []uint64{Token(AloneSlot, 0), Token(3, 7), Token(AloneSlot, 1)}}
		e := NewEngine(cd.poll, nil)
		op := &aloneOp{userOp: userOp{finishedWhen: 2, inFlight: 2}}
		ran, err := e.RunAlone(context.Background(), op)
		require.True(t, ran)
		require.NoError(t, err)
		require.Equal(t, AloneSlot, op.slot)
		require.Equal(t, []uint32{0, 1}, op.completed, "its own tokens, not slot 3's")
		require.Equal(t, 4, op.steps, "stepped at the start and after each of the 3 polls that had completions")
		require.Equal(t, 1, op.retired)
		require.Zero(t, op.abandoned)
		require.Equal(t, 0, e.Live())
	})
	t.Run("not where the engine is shared or busy", func(t *testing.T) {
		cd := &fakeConduit{}
		e := NewEngine(cd.poll, nil)
		h, slot := start(t, e, &fakeOp{need: 1, syncAt: 1})
		op := &aloneOp{userOp: userOp{finishedWhen: 1}}
		ran, err := e.RunAlone(context.Background(), op)
		require.False(t, ran, "an operation is live")
		require.NoError(t, err)
		require.Zero(t, op.steps)
		cd.queue = append(cd.queue, Token(slot, 0))
		require.NoError(t, h.Wait(context.Background()))
		cd.queue = append(cd.queue, Token(AloneSlot, 0))
		ran, err = e.RunAlone(context.Background(), &aloneOp{userOp: userOp{inFlight: 1, finishedWhen: 1}})
		require.True(t, ran, "nothing live any more")
		require.NoError(t, err)

		shared := NewEngine(cd.poll, nil)
		shared.Shared(2)
		ran, _ = shared.RunAlone(context.Background(), op)
		require.False(t, ran, "a shared engine")
		require.Zero(t, op.steps)
	})
	t.Run("fails", func(t *testing.T) {
		boom := errors.New("boom")
		for _, inFlight := range []int{0, 1} {
			e := NewEngine((&feeder{queue: []uint64{Token(AloneSlot, 0)}}).poll, nil)
			op := &aloneOp{userOp: userOp{inFlight: inFlight, finishedWhen: 1}, fail: boom}
			ran, err := e.RunAlone(context.Background(), op)
			require.True(t, ran)
			require.ErrorIs(t, err, boom)
			require.Equal(t, 1-inFlight, op.retired, "a failed run is retired only when quiet")
			require.Equal(t, inFlight, op.abandoned, "abandoned only with a transfer in flight")
			require.Equal(t, 0, e.Live())
			ran, _ = e.RunAlone(context.Background(), &aloneOp{userOp: userOp{finishedWhen: 1}})
			require.Equal(t, inFlight == 0, ran, "nothing runs alone after a run left a transfer in flight")
		}
	})
	t.Run("user code", func(t *testing.T) {
		e := NewEngine((&fakeConduit{}).poll, nil)
		var got error
		op := &aloneOp{userOp: userOp{user: func() { got = e.Poll() }, finishedWhen: 1}}
		ran, err := e.RunAlone(context.Background(), op)
		require.True(t, ran)
		require.ErrorIs(t, got, ErrReentrant, "the call from user code")
		require.ErrorIs(t, err, ErrReentrant, "the operation's error")
		require.Zero(t, reentries.Load())
	})
	t.Run("stalls", func(t *testing.T) {
		e := NewEngine((&fakeConduit{}).poll, nil)
		e.SetStallTimeout(20 * time.Millisecond)
		op := &aloneOp{userOp: userOp{inFlight: 1, finishedWhen: 1}}
		// A hang guard only: without the watchdog the run would end
		// with DeadlineExceeded instead of ErrStalled.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		ran, err := e.RunAlone(ctx, op)
		require.True(t, ran)
		require.ErrorIs(t, err, ErrStalled)
		require.Contains(t, err.Error(), "alone op, 1 transfers in flight")
		require.Equal(t, 1, op.abandoned)
	})
	t.Run("context", func(t *testing.T) {
		e := NewEngine((&fakeConduit{}).poll, nil)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
		defer cancel()
		ran, err := e.RunAlone(ctx, &aloneOp{userOp: userOp{inFlight: 1, finishedWhen: 1}})
		require.True(t, ran)
		require.ErrorIs(t, err, context.DeadlineExceeded)
	})
}
