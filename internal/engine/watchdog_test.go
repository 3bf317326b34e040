package engine

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

// tickOp is an operation whose transfers complete one by one until the
// last (index lastTick), which finishes it.
type tickOp struct {
	slot uint32
	last bool
}

const lastTick = 1<<32 - 1

func (o *tickOp) Bind(slot uint32)    { o.slot = slot }
func (o *tickOp) Complete(idx uint32) { o.last = o.last || idx == lastTick }
func (o *tickOp) Step() error         { return nil }
func (o *tickOp) Syncable() bool      { return o.last }
func (o *tickOp) Finished() bool      { return o.last }
func (o *tickOp) Retire()             {}

// TestStallWatchdog: a wait that sees no progress for the stall timeout
// fails with ErrStalled saying what the operation waits for; the operation
// is over (its handle dead, not live); a wait whose operation progresses
// does not stall, however long it lasts; without a timeout nothing stalls.
// (TestStallWatchClock pins when a stall comes.)
func TestStallWatchdog(t *testing.T) {
	const after = 250 * time.Millisecond
	cd := &lockedConduit{}
	e := NewEngine(cd.poll, nil)
	e.SetStallTimeout(after)

	op := &stuckOp{userOp: userOp{inFlight: 1, finishedWhen: 1}, what: "Broadcast #7 on TeamAll: waiting for images [3]"}
	h, err := e.Start(op)
	require.NoError(t, err)
	err = h.Wait(context.Background())
	require.ErrorIs(t, err, ErrStalled)
	require.Contains(t, err.Error(), op.what)
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

	// Progress at every poll, for twice the timeout: no stall. Each of the
	// wait's looks at the clock follows a poll that completed a transfer,
	// so however the wait is delayed it sees progress.
	ticking := &tickOp{}
	var end time.Time
	var n uint32
	et := NewEngine(func(done []uint64) ([]uint64, error) {
		n++
		if !end.IsZero() && time.Now().After(end) {
			n = lastTick
		}
		return append(done, Token(ticking.slot, n)), nil
	}, nil)
	et.SetStallTimeout(after)
	h, err = et.Start(ticking)
	require.NoError(t, err)
	end = time.Now().Add(2 * after)
	require.NoError(t, h.Wait(context.Background()), "a transfer completed at every poll")

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

// TestStallWatchClock drives a wait's watchdog with times of its own, as
// a wait does with its clock readings: the clock starts at the wait's
// first look; a completion of the waited operation starts it again; a
// stall comes after exactly the timeout without one, and its error says
// how long and what the operation waits for.
func TestStallWatchClock(t *testing.T) {
	const after = time.Second
	cd := &fakeConduit{}
	e := NewEngine(cd.poll, nil)
	e.SetStallTimeout(after)
	op := &stuckOp{userOp: userOp{inFlight: 8, finishedWhen: 8}, what: "Broadcast #3 on TeamAll: waiting for images [1]"}
	h, err := e.Start(op)
	require.NoError(t, err)
	w := watchOf(e, []Handle{h})

	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	require.NoError(t, w.check(now), "the first look starts the clock")
	require.NoError(t, w.check(now.Add(after-time.Nanosecond)), "short of the timeout")
	// A completion at every timeout and a half, four times: no stall.
	for i := range 4 {
		cd.queue = append(cd.queue, Token(op.slot, uint32(i)))
		require.NoError(t, e.Poll())
		now = now.Add(after + after/2)
		require.NoError(t, w.check(now), "completion %d", i)
		ok, err := h.Try()
		require.NoError(t, err, "completion %d", i)
		require.False(t, ok)
	}
	require.NoError(t, w.check(now.Add(after-time.Nanosecond)), "short of the timeout after the last completion")
	ok, err := h.Try()
	require.NoError(t, err)
	require.False(t, ok)
	require.NoError(t, w.check(now.Add(after)), "the stall fails the operation, the wait's next try reports it")
	_, err = h.Try()
	require.ErrorIs(t, err, ErrStalled)
	require.Contains(t, err.Error(), "no progress for 1s: "+op.what)
	require.Equal(t, 0, e.Live())

	// A wait that counts its progress itself (RunAlone) gets the error
	// from the watchdog.
	var count uint64
	aw := watch{after: after, e: e, count: &count, alone: op}
	require.NoError(t, aw.check(now))
	count++
	require.NoError(t, aw.check(now.Add(after)), "a count that grew")
	err = aw.check(now.Add(2*after - time.Nanosecond))
	require.NoError(t, err, "short of the timeout after it grew")
	err = aw.check(now.Add(2 * after))
	require.ErrorIs(t, err, ErrStalled)
	require.Contains(t, err.Error(), "no progress for 1s: "+op.what)
}
