package engine

import (
	"context"
	"errors"
	"runtime"
	stdsync "sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fakeOp is an operation whose progress the test controls: each poll
// delivers the tokens queued in the fake conduit.
type fakeOp struct {
	slot      uint32
	need, got int
	retired   int
	syncAt    int // completions after which a sync may succeed
	fail      error
}

func (o *fakeOp) Bind(slot uint32) { o.slot = slot }
func (o *fakeOp) Complete(uint32)  { o.got++ }
func (o *fakeOp) Step() error      { return o.fail }
func (o *fakeOp) Syncable() bool   { return o.got >= o.syncAt }
func (o *fakeOp) Finished() bool   { return o.got >= o.need }
func (o *fakeOp) Retire()          { o.retired++ }

type fakeConduit struct {
	queue []uint64
	polls int
}

func (c *fakeConduit) poll(done []uint64) ([]uint64, error) {
	c.polls++
	done = append(done, c.queue...)
	c.queue = c.queue[:0]
	return done, nil
}

func start(t *testing.T, e *Engine, op *fakeOp) (Handle, uint32) {
	t.Helper()
	h, err := e.Start(op)
	require.NoError(t, err)
	return h, op.slot
}

func TestHandleLifecycle(t *testing.T) {
	cd := &fakeConduit{}
	e := NewEngine(cd.poll, nil)

	// Completed at initiation: the invalid handle, which syncs at once.
	h, _ := start(t, e, &fakeOp{})
	require.False(t, h.Valid())
	ok, err := h.Try()
	require.True(t, ok)
	require.NoError(t, err)
	require.Equal(t, 0, e.Live())

	// Pending until its completions arrive.
	op := &fakeOp{need: 2, syncAt: 2}
	h, slot := start(t, e, op)
	require.True(t, h.Valid())
	ok, err = h.Try()
	require.False(t, ok)
	require.NoError(t, err)
	cd.queue = append(cd.queue, Token(slot, 0), Token(slot, 1))
	ok, err = h.Try()
	require.True(t, ok)
	require.NoError(t, err)
	require.Equal(t, 0, e.Live(), "synced and finished: the slot is free")
	require.Equal(t, 1, op.retired, "a dropped operation is retired once")

	// Syncing a dead handle is an error, not a hang.
	_, err = h.Try()
	require.ErrorIs(t, err, ErrDeadHandle)
	require.ErrorIs(t, h.Wait(context.Background()), ErrDeadHandle)

	// A reused slot does not revive the old handle.
	h2, slot2 := start(t, e, &fakeOp{need: 1, syncAt: 1})
	require.Equal(t, slot, slot2)
	_, err = h.Try()
	require.ErrorIs(t, err, ErrDeadHandle)

	// Wait honours its context.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, h2.Wait(ctx), context.DeadlineExceeded)
	cd.queue = append(cd.queue, Token(slot2, 0))
	require.NoError(t, h2.Wait(context.Background()))
}

func TestSyncedButUnfinishedLingers(t *testing.T) {
	cd := &fakeConduit{}
	e := NewEngine(cd.poll, nil)
	// OUT_NOSYNC-like: syncable before finished.
	h, slot := start(t, e, &fakeOp{need: 3, syncAt: 1})
	cd.queue = append(cd.queue, Token(slot, 0))
	require.NoError(t, h.Wait(context.Background()))
	require.Equal(t, 1, e.Live(), "the operation stays until it finishes")
	cd.queue = append(cd.queue, Token(slot, 1), Token(slot, 2))
	require.NoError(t, e.Poll())
	require.Equal(t, 0, e.Live())
}

func TestAllAndSome(t *testing.T) {
	cd := &fakeConduit{}
	e := NewEngine(cd.poll, nil)
	hs := make([]Handle, 4)
	slots := make([]uint32, 4)
	for i := range hs {
		hs[i], slots[i] = start(t, e, &fakeOp{need: 1, syncAt: 1})
	}
	hs = append(hs, Handle{}) // the invalid handle is ignored
	ok, err := TrySome(hs)
	require.NoError(t, err)
	require.False(t, ok)
	cd.queue = append(cd.queue, Token(slots[2], 0))
	require.NoError(t, WaitSome(context.Background(), hs))
	require.False(t, hs[2].Valid(), "a synced entry becomes the invalid handle")
	require.True(t, hs[0].Valid())
	ok, err = TryAll(hs)
	require.NoError(t, err)
	require.False(t, ok)
	for _, s := range []uint32{slots[0], slots[1], slots[3]} {
		cd.queue = append(cd.queue, Token(s, 0))
	}
	require.NoError(t, WaitAll(context.Background(), hs))
	for _, h := range hs {
		require.False(t, h.Valid())
	}
	ok, err = TrySome(hs)
	require.True(t, ok, "no valid handle left")
	require.NoError(t, err)
}

func TestOperationErrorIsReportedOnce(t *testing.T) {
	cd := &fakeConduit{}
	e := NewEngine(cd.poll, nil)
	boom := errors.New("boom")
	op := &fakeOp{need: 2, syncAt: 2}
	h, slot := start(t, e, op)
	op.fail = boom
	cd.queue = append(cd.queue, Token(slot, 0))
	require.ErrorIs(t, h.Wait(context.Background()), boom)
	_, err := h.Try()
	require.ErrorIs(t, err, ErrDeadHandle)
	require.Equal(t, 0, e.Live())
}

// Initiation makes progress on the other live operations, and skips the
// poll only when the new operation is alone and already syncable.
func TestStartPollsWhenOthersAreLive(t *testing.T) {
	cd := &fakeConduit{}
	e := NewEngine(cd.poll, nil)
	h, _ := start(t, e, &fakeOp{})
	require.False(t, h.Valid())
	require.Equal(t, 0, cd.polls, "alone and complete: no poll")

	pending := &fakeOp{need: 1, syncAt: 1}
	hp, slot := start(t, e, pending)
	require.Equal(t, 1, cd.polls, "not syncable: polled")
	cd.queue = append(cd.queue, Token(slot, 0))
	done := &fakeOp{}
	h, _ = start(t, e, done)
	require.False(t, h.Valid())
	require.Equal(t, 2, cd.polls, "another operation live: polled")
	require.Equal(t, 1, pending.got, "the other operation progressed in the initiation")
	require.Equal(t, 1, done.retired)
	ok, err := hp.Try()
	require.True(t, ok)
	require.NoError(t, err)
	require.Equal(t, 1, pending.retired)
	require.Equal(t, 0, e.Live())
}

// A wait tells the engine's idle hook about every poll that left it
// waiting (a conduit yields the processor there when oversubscribed).
func TestWaitCallsIdle(t *testing.T) {
	cd := &fakeConduit{}
	idles := 0
	var slot uint32
	e := NewEngine(cd.poll, func() {
		idles++
		if idles == 3 {
			cd.queue = append(cd.queue, Token(slot, 0))
		}
	})
	op := &fakeOp{need: 1, syncAt: 1}
	h, s := start(t, e, op)
	slot = s
	require.NoError(t, h.Wait(context.Background()))
	require.Equal(t, 3, idles)

	// WaitAll uses the hook of its handles' engine (as WaitSome does).
	idles = 0
	h1, s1 := start(t, e, &fakeOp{need: 1, syncAt: 1})
	slot = s1
	require.NoError(t, WaitAll(context.Background(), []Handle{h1}))
	require.Equal(t, 3, idles)
}

func TestSharedParts(t *testing.T) {
	cd := &fakeConduit{}
	e := NewEngine(cd.poll, nil)
	p := &Pending{}
	p.Attach(e, false)
	// Parts 0 and 1 arrive first and get pending handles.
	h0, h1 := e.PendingHandle(p, 0, 0), e.PendingHandle(p, 0, 1)
	require.True(t, h0.Valid())
	ok, err := h0.Try()
	require.NoError(t, err)
	require.False(t, ok, "not started")
	ok, err = TryAll([]Handle{h0, h1})
	require.NoError(t, err)
	require.False(t, ok)
	// Part 2 arrives last and starts the operation.
	op := &fakeOp{need: 1, syncAt: 1}
	h2, tk, err := e.StartShared(op, 3, 2)
	require.NoError(t, err)
	p.Start(tk)
	cd.queue = append(cd.queue, Token(op.slot, 0))
	require.NoError(t, WaitAll(context.Background(), []Handle{h2, h0}))
	require.Equal(t, 1, e.Live(), "part 1 has not synced")
	require.Zero(t, op.retired)
	require.NoError(t, h1.Wait(context.Background()))
	require.Equal(t, 0, e.Live())
	require.Equal(t, 1, op.retired)
	_, err = h0.Try()
	require.ErrorIs(t, err, ErrDeadHandle)
	p.Reuse() // the record serves another operation
	_, err = h1.Try()
	require.ErrorIs(t, err, ErrDeadHandle, "a handle of an earlier use")
	ok, err = TryAll([]Handle{h1})
	require.ErrorIs(t, err, ErrDeadHandle)
	require.False(t, ok)
}

func TestSharedPartsError(t *testing.T) {
	cd := &fakeConduit{}
	e := NewEngine(cd.poll, nil)
	boom := errors.New("boom")
	p := &Pending{}
	p.Attach(e, false)
	h0 := e.PendingHandle(p, 0, 0)
	op := &fakeOp{need: 1, syncAt: 1, fail: boom}
	h1, tk, err := e.StartShared(op, 2, 1)
	require.ErrorIs(t, err, boom, "the last part sees the error at once")
	require.False(t, h1.Valid())
	require.Equal(t, 1, e.Live(), "kept for the other part")
	p.Start(tk)
	require.ErrorIs(t, h0.Wait(context.Background()), boom)
	require.Equal(t, 0, e.Live())
	require.Equal(t, 1, op.retired)
}

// TestMaxLive: the engine refuses an operation beyond MaxLive live ones
// (coll's sequence numbers tell that many apart), and takes one again once
// one left.
func TestMaxLive(t *testing.T) {
	cd := &fakeConduit{}
	e := NewEngine(cd.poll, nil)
	hs := make([]Handle, 0, MaxLive)
	ops := make([]fakeOp, MaxLive)
	for i := range ops {
		ops[i] = fakeOp{need: 1, syncAt: 1}
		h, err := e.Start(&ops[i])
		require.NoError(t, err)
		hs = append(hs, h)
	}
	_, err := e.Start(&fakeOp{need: 1, syncAt: 1})
	require.ErrorIs(t, err, ErrTooMany)
	cd.queue = append(cd.queue, Token(ops[0].slot, 0))
	require.NoError(t, hs[0].Wait(context.Background()))
	_, err = e.Start(&fakeOp{})
	require.NoError(t, err)
}

// TestStalePendingHandle: a handle of a record's earlier generation, tried
// again and again (a misuse), always reports ErrDeadHandle, never races
// with the record serving the next operations (run with -race), and never
// syncs one of their parts: each new handle syncs once. Operations alternate
// between ending without the engine (Finish) and running in it (Start).
func TestStalePendingHandle(t *testing.T) {
	cd := &fakeConduit{}
	e := NewEngine(cd.poll, nil)
	p := &Pending{}
	var stale atomic.Pointer[Handle] // the latest dead handle
	var stop atomic.Bool
	done := make(chan struct{})
	go func() { // tries the latest dead handle, over and over
		defer close(done)
		for !stop.Load() {
			h := stale.Load()
			if h == nil {
				continue
			}
			if ok, err := h.Try(); ok || (err != nil && !errors.Is(err, ErrDeadHandle)) {
				t.Errorf("a dead handle's Try: %v, %v", ok, err)
				return
			} // (false, nil): another goroutine held the engine, "not yet"
		}
	}()
	syncOnce := func(h Handle) {
		for {
			ok, err := h.Try()
			require.NoError(t, err)
			if ok {
				return
			}
		}
	}
	for i := range 5000 {
		// Part 0 syncs, and its handle is tried again while part 2 syncs
		// and the record moves on to its next use.
		p.Attach(e, false) // as each use of a record does
		h0, h2 := e.PendingHandle(p, p.Gen(), 0), e.PendingHandle(p, p.Gen(), 2)
		if i%2 == 0 {
			p.Finish(3, nil, p.Reuse, 1) // part 1 synced as it ran; the last sync releases
			syncOnce(h0)
			stale.Store(&h0)
			syncOnce(h2)
		} else {
			h1, tk, err := e.StartShared(&fakeOp{}, 3, 1)
			require.NoError(t, err)
			p.Start(tk)
			syncOnce(h0)
			stale.Store(&h0)
			syncOnce(h1)
			syncOnce(h2)
			p.Reuse()
		}
	}
	stop.Store(true)
	<-done
}

// TestTryNotStarvedOfTheLock: a goroutine that syncs with Try or Wait while
// others take the engine's lock in a loop (images spinning in TryAll, each
// pass polling under the lock) must get the lock and sync. Tries that only
// ever use TryLock lost it to such loops at every attempt: the model test at
// np 8 with three images per process spun for minutes.
func TestTryNotStarvedOfTheLock(t *testing.T) {
	for _, how := range []string{"Try", "Wait"} {
		t.Run(how, func(t *testing.T) {
			cd := &fakeConduit{}
			e := NewEngine(cd.poll, nil)
			e.Shared(2)
			p := &Pending{}
			p.Attach(e, false)
			h0 := e.PendingHandle(p, 0, 0)
			op := &fakeOp{} // syncable at once: part 1 syncs as it starts it
			h1, tk, err := e.StartShared(op, 2, 1)
			require.NoError(t, err)
			require.False(t, h1.Valid())
			p.Start(tk)

			// One processor for the three: the syncing goroutine then runs
			// only when it preempts another, mostly inside its critical
			// section, as happens to images when processes outnumber cores.
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
			// Two other images: lock, poll for a while, unlock, again.
			var stop atomic.Bool
			var hogs, running stdsync.WaitGroup
			for range 2 {
				running.Add(1)
				hogs.Go(func() {
					for n := 0; !stop.Load(); n++ {
						e.mu.Lock()
						if n == 0 {
							running.Done()
						}
						for t0 := time.Now(); time.Since(t0) < 20*time.Microsecond; {
						}
						e.mu.Unlock()
					}
				})
			}
			running.Wait()
			defer func() { stop.Store(true); hogs.Wait() }()

			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if how == "Wait" {
				require.NoError(t, h0.Wait(ctx), "the wait never got the engine's lock")
			} else {
				for {
					ok, err := h0.Try()
					require.NoError(t, err)
					if ok {
						break
					}
					require.NoError(t, ctx.Err(), "the tries never got the engine's lock")
				}
			}
			require.Equal(t, 0, e.Live())
		})
	}
}

// TestAlonePending: an operation that ends without the engine (Attach with
// alone): the waits of its parts read the record only, so they complete
// while another goroutine holds the engine's lock throughout, and they see
// the operation's error. Six parts: beyond the record's inline sync words.
// After the record's next use began, a handle of this one is dead.
func TestAlonePending(t *testing.T) {
	cd := &fakeConduit{}
	e := NewEngine(cd.poll, nil)
	e.Shared(6) // parts
	boom := errors.New("boom")
	const parts = 6
	for round, want := range []error{nil, boom} {
		p := &Pending{}
		p.Attach(e, true)
		released := make(chan struct{})
		hs := make([]Handle, parts)
		for i := range hs {
			hs[i] = e.PendingHandle(p, p.Gen(), i)
		}
		e.mu.Lock() // a wait that took the lock would never return
		errs := make(chan error, parts)
		for i := range parts - 1 { // part 5 runs the operation: it holds no handle
			go func() { errs <- hs[i].Wait(context.Background()) }()
		}
		p.Finish(parts, want, func() { close(released) }, parts-1)
		for range parts - 1 {
			require.ErrorIs(t, <-errs, want, "round %d", round)
		}
		<-released // by the last part to sync
		e.mu.Unlock()
		p.Reuse()
		for i := range parts {
			_, err := hs[i].Try()
			require.ErrorIs(t, err, ErrDeadHandle, "part %d after its sync and the record's reuse", i)
		}
	}
}
