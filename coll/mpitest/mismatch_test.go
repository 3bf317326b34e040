package mpitest

import (
	"fmt"
	"testing"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	"github.com/gocoll/gocoll/mpiconduit"
	"github.com/gocoll/gocoll/mpiconduit/mpi"
)

// TestMismatchMPI runs the disagreement matrix (colltest.Mismatches) over
// MPI, one rank per image: with checked mode every rank gets ErrMismatch,
// without it no rank succeeds with wrong data (a hang is bounded by the
// rank's wait and logged). Each case has a conduit of its own, so that what
// a disagreeing case leaves unmatched meets no other case; those conduits
// are not closed (their transfers may never complete).
func TestMismatchMPI(t *testing.T) {
	w := mpi.World()
	if w.Size() < 2 {
		t.Skip("a disagreement needs at least 2 ranks")
	}
	for _, checked := range []bool{true, false} {
		for _, c := range colltest.Mismatches() {
			t.Run(fmt.Sprintf("checked=%v/%s", checked, c.Name), func(t *testing.T) {
				cd, err := mpiconduit.NewConduit(w)
				if err != nil {
					t.Fatal(err)
				}
				im, err := coll.Init(cd, nil, 0, colltest.MismatchFns, 0, coll.Options{Check: checked})
				if err != nil {
					t.Fatal(err)
				}
				// Without checks a disagreement may hang: the wait bounds
				// it. With them every rank must get ErrMismatch: the wait
				// is a hang guard.
				wait := 3 * time.Second
				if checked {
					wait = 30 * time.Second
				}
				o := colltest.RunMismatch(im, c, wait, 0)
				if err := colltest.CheckMismatch(o, checked); err != nil {
					t.Fatalf("rank %d of %d: %v", w.Rank(), w.Size(), err)
				}
				t.Logf("rank %d: %v", w.Rank(), o)
			})
		}
	}
}
