package colltest_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/gocoll/gocoll/coll/colltest"
	"github.com/stretchr/testify/require"
)

var inProcessErrors = colltest.OneSidedErrors{
	NoSegment: colltest.ErrNoSegment,
	Allocated: colltest.ErrSegmentAllocated,
	Range:     colltest.ErrSegmentRange,
}

// onEveryNode runs fn on every node of w at once and joins their errors.
func onEveryNode(w *colltest.World, fn func(cd *colltest.Conduit) error) error {
	errs := make([]error, w.Nodes())
	var wg sync.WaitGroup
	for i := range errs {
		wg.Go(func() {
			if err := fn(w.Conduit(i)); err != nil {
				errs[i] = fmt.Errorf("node %d: %w", i, err)
			}
		})
	}
	wg.Wait()
	w.Quiesce()
	return errors.Join(errs...)
}

// TestOneSided runs the one-sided conformance check in-process, with
// messages delivered at once and delayed at random (the copies of
// PutNotify and Get delayed with them).
func TestOneSided(t *testing.T) {
	for _, P := range []int{1, 2, 3, 5, 8} {
		for _, delay := range []time.Duration{0, 300 * time.Microsecond} {
			t.Run(fmt.Sprintf("P=%d/delay=%v", P, delay), func(t *testing.T) {
				w := colltest.NewWorld(P, colltest.Options{MaxDelay: delay, Seed: uint64(P)})
				require.NoError(t, onEveryNode(w, func(cd *colltest.Conduit) error {
					return colltest.CheckOneSided(cd, inProcessErrors)
				}))
			})
		}
	}
}

// A negative size on one node fails AllocSegment on every node, none
// waiting for the others; transfers then have no segment.
func TestAllocSegmentNegative(t *testing.T) {
	w := colltest.NewWorld(3, colltest.Options{})
	require.NoError(t, onEveryNode(w, func(cd *colltest.Conduit) error {
		size := 64
		if cd.Node() == 1 {
			size = -1
		}
		_, err := cd.AllocSegment(size)
		if !errors.Is(err, colltest.ErrSegmentRange) {
			return fmt.Errorf("AllocSegment: got %v, want ErrSegmentRange", err)
		}
		if _, err := cd.PutNotify(0, 0, 1, make([]byte, 1), 1); !errors.Is(err, colltest.ErrNoSegment) {
			return fmt.Errorf("PutNotify after a failed AllocSegment: got %v, want ErrNoSegment", err)
		}
		return nil
	}))
}

func TestOneSidedPeer(t *testing.T) {
	w := colltest.NewWorld(2, colltest.Options{})
	require.NoError(t, onEveryNode(w, func(cd *colltest.Conduit) error {
		_, err := cd.AllocSegment(8)
		return err
	}))
	cd := w.Conduit(0)
	_, err := cd.PutNotify(2, 0, 1, make([]byte, 1), 1)
	require.ErrorIs(t, err, colltest.ErrPeer)
	_, err = cd.Get(-1, 0, make([]byte, 1), 1)
	require.ErrorIs(t, err, colltest.ErrPeer)
}
