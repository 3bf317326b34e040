package engine

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// userOp runs user code in its Step number at (0: the first, at Start).
type userOp struct {
	slot         uint32
	steps, at    int
	user         func()
	inFlight     int // transfers not complete
	completed    []uint32
	retired      int
	abandoned    int
	finishedWhen int // completions after which it is finished
}

func (o *userOp) Bind(slot uint32) { o.slot = slot }
func (o *userOp) Complete(idx uint32) {
	o.completed = append(o.completed, idx)
	o.inFlight--
}
func (o *userOp) Step() error {
	o.steps++
	if o.steps-1 == o.at && o.user != nil {
		CallUser(o.user)
	}
	return nil
}
func (o *userOp) Syncable() bool { return o.Finished() }
func (o *userOp) Finished() bool { return o.finishedWhen > 0 && len(o.completed) >= o.finishedWhen }
func (o *userOp) Retire()        { o.retired++ }
func (o *userOp) Quiet() bool    { return o.inFlight == 0 }
func (o *userOp) Abandon()       { o.abandoned++ }

// TestReentryFromUserCode: every public call made from user code that the
// engine runs returns ErrReentrant instead of waiting for the lock its own
// goroutine holds, and the operation fails with ErrReentrant.
func TestReentryFromUserCode(t *testing.T) {
	cd := &fakeConduit{}
	e := NewEngine(cd.poll, nil)
	other, _ := e.Start(&userOp{finishedWhen: 1}) // a live operation to sync from inside
	require.True(t, other.Valid())
	calls := map[string]func() error{
		"Poll": e.Poll,
		"Wait": func() error { return other.Wait(context.Background()) },
		"Try":  func() error { _, err := other.Try(); return err },
		"WaitAll": func() error {
			return WaitAll(context.Background(), []Handle{other})
		},
		"TrySome": func() error { _, err := TrySome([]Handle{other}); return err },
		"Drain":   func() error { return e.Drain(context.Background()) },
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			var got error
			for _, at := range []int{0, 1} { // at Start, and on a later step
				op := &userOp{at: at, user: func() { got = call() }, inFlight: 1, finishedWhen: 1}
				h, err := e.Start(op)
				if at == 1 {
					require.NoError(t, err)
					cd.queue = append(cd.queue, Token(op.slot, 0))
					err = h.Wait(context.Background())
				}
				require.ErrorIs(t, got, ErrReentrant, "the call from user code")
				require.ErrorIs(t, err, ErrReentrant, "the operation's error")
			}
		})
	}
	// Nothing of the failed operations is left, and the engine works.
	cd.queue = append(cd.queue, Token(uint32(other.slot-1), 0))
	require.NoError(t, other.Wait(context.Background()))
	require.Equal(t, 0, e.Live())
	require.Zero(t, reentries.Load(), "every re-entry was taken by its CallUser")
}

// TestNoReentryElsewhere: while one goroutine runs user code, another's
// calls are not refused.
func TestNoReentryElsewhere(t *testing.T) {
	inside, leave := make(chan struct{}), make(chan struct{})
	go CallUser(func() { close(inside); <-leave })
	<-inside
	require.NoError(t, Reentrant())
	close(leave)
}

// TestPanicReachesTheSyncer: a panic of user code fails the operation,
// leaves the engine usable and is raised again, as a *PanicError holding
// the value, on the goroutine that syncs the handle.
func TestPanicReachesTheSyncer(t *testing.T) {
	cd := &fakeConduit{}
	e := NewEngine(cd.poll, nil)
	op := &userOp{at: 1, user: func() { panic("boom") }, finishedWhen: 1, inFlight: 1}
	h, err := e.Start(op)
	require.NoError(t, err)
	cd.queue = append(cd.queue, Token(op.slot, 0))
	var pe *PanicError
	func() {
		defer func() {
			r := recover()
			var ok bool
			pe, ok = r.(*PanicError)
			require.True(t, ok, "recovered %v", r)
		}()
		_ = h.Wait(context.Background())
	}()
	require.Equal(t, "boom", pe.Value)
	require.Contains(t, string(pe.Stack), "user_test.go", "the stack of the panic")
	require.Equal(t, 0, e.Live())
	require.Equal(t, 1, op.retired)
	_, err = h.Try()
	require.ErrorIs(t, err, ErrDeadHandle, "the handle is dead")

	// At initiation: Start returns the error (the caller raises it).
	_, err = e.Start(&userOp{user: func() { panic(errors.New("early")) }})
	require.ErrorAs(t, err, &pe)
	require.EqualError(t, pe.Unwrap(), "early")
	require.Panics(t, func() { _ = Rethrow(err) })
	require.Equal(t, 0, e.Live())
}

// TestAbandonedKeepsItsSlot: a failed operation with a transfer in flight
// leaves Live once synced but keeps its slot, so that its late completion
// reaches it (not an operation that took the slot), and is retired then.
func TestAbandonedKeepsItsSlot(t *testing.T) {
	cd := &fakeConduit{}
	e := NewEngine(cd.poll, nil)
	op := &userOp{at: 1, user: func() { panic("boom") }, inFlight: 2, finishedWhen: 2}
	h, err := e.Start(op)
	require.NoError(t, err)
	cd.queue = append(cd.queue, Token(op.slot, 0)) // one of two completes, then the panic
	require.Panics(t, func() { _ = h.Wait(context.Background()) })
	require.Equal(t, 0, e.Live(), "not live")
	require.Equal(t, 1, op.abandoned)
	require.Zero(t, op.retired, "not retired while a transfer is in flight")

	next := &userOp{finishedWhen: 1, inFlight: 1}
	h2, err := e.Start(next)
	require.NoError(t, err)
	require.NotEqual(t, op.slot, next.slot, "the slot is still the failed operation's")
	cd.queue = append(cd.queue, Token(op.slot, 1), Token(next.slot, 0))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, h2.Wait(ctx))
	require.Equal(t, []uint32{0, 1}, op.completed, "the late completion reached the failed operation")
	require.Equal(t, 1, op.retired, "retired once quiet")
	require.Equal(t, 0, e.Live())
	_, free := e.Start(&userOp{})
	require.NoError(t, free)
}
