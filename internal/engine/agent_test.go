package engine

import (
	"context"
	stdsync "sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// lockedConduit is a fake conduit safe for the agent's goroutine.
type lockedConduit struct {
	mu    stdsync.Mutex
	queue []uint64
	polls int
}

func (c *lockedConduit) poll(done []uint64) ([]uint64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.polls++
	done = append(done, c.queue...)
	c.queue = c.queue[:0]
	return done, nil
}

func (c *lockedConduit) deliver(t uint64) {
	c.mu.Lock()
	c.queue = append(c.queue, t)
	c.mu.Unlock()
}

func (c *lockedConduit) pollCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.polls
}

// stepOp finishes once its one transfer completed and it was stepped after
// that; steps counts its Steps. unsafe ops are not agent-safe.
type stepOp struct {
	slot       uint32
	got, steps int
	seen       bool // stepped after the completion
	unsafe     bool
}

func (o *stepOp) Bind(slot uint32) { o.slot = slot }
func (o *stepOp) Complete(uint32)  { o.got++ }
func (o *stepOp) Step() error {
	o.steps++
	if o.got > 0 {
		o.seen = true
	}
	return nil
}
func (o *stepOp) Syncable() bool  { return o.seen }
func (o *stepOp) Finished() bool  { return o.seen }
func (o *stepOp) Retire()         {}
func (o *stepOp) AgentSafe() bool { return !o.unsafe }

func TestAgentModes(t *testing.T) {
	for _, mode := range []ProgressMode{Goroutine, Periodic} {
		t.Run(mode.String(), func(t *testing.T) {
			cd := &lockedConduit{}
			e := NewEngine(cd.poll, nil)
			require.NoError(t, e.StartAgent(mode, 50*time.Microsecond))
			require.ErrorIs(t, e.StartAgent(mode, 0), ErrAgent)
			// Idle: the agent parks, no polls.
			time.Sleep(5 * time.Millisecond)
			idle := cd.pollCount()
			time.Sleep(20 * time.Millisecond)
			require.Equal(t, idle, cd.pollCount(), "an idle agent polls nothing")

			op := &stepOp{}
			h, err := e.Start(op)
			require.NoError(t, err)
			done := h.Done()
			select {
			case <-done:
				t.Fatal("Done closed before the operation could sync")
			default:
			}
			cd.deliver(Token(op.slot, 0)) // nobody calls the engine: the agent must
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("the agent made no progress")
			}
			ok, err := h.Try()
			require.NoError(t, err)
			require.True(t, ok)
			// Not agent-safe: the agent records the completion, the node's call steps it.
			u := &stepOp{unsafe: true}
			h, err = e.Start(u)
			require.NoError(t, err)
			before := cd.pollCount()
			cd.deliver(Token(u.slot, 0))
			for cd.pollCount() < before+3 {
				time.Sleep(100 * time.Microsecond)
			}
			e.mu.Lock()
			require.Equal(t, 1, u.steps, "the agent stepped an operation that is not agent-safe")
			e.mu.Unlock()
			require.NoError(t, h.Wait(context.Background()))
			require.True(t, u.seen)
			// Stop drains what is unfinished.
			last := &stepOp{}
			h, err = e.Start(last)
			require.NoError(t, err)
			go func() { time.Sleep(2 * time.Millisecond); cd.deliver(Token(last.slot, 0)) }()
			require.NoError(t, e.StopAgent(context.Background()))
			require.True(t, last.seen, "stopped before the node's operation finished")
			require.ErrorIs(t, e.StopAgent(context.Background()), ErrStopped)
			require.NoError(t, h.Wait(context.Background()))
		})
	}
}

func TestAgentMisuse(t *testing.T) {
	e := NewEngine((&lockedConduit{}).poll, nil)
	require.ErrorIs(t, e.StartAgent(Polling, 0), ErrAgent)
	require.ErrorIs(t, e.StopAgent(context.Background()), ErrAgent)
	require.Equal(t, "periodic", Periodic.String())
	// Done of the invalid handle is closed.
	select {
	case <-(Handle{}).Done():
	default:
		t.Fatal("Done of the invalid handle must be closed")
	}
}
