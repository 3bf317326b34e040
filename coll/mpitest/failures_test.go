package mpitest

import (
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	"github.com/gocoll/gocoll/mpiconduit"
	"github.com/gocoll/gocoll/mpiconduit/mpi"
)

// mpiStall is the stall timeout of the failure tests: well above a
// collective's time on an oversubscribed host, and short, since every
// case waits for it.
const mpiStall = 2 * time.Second

// TestStallMPI runs colltest.Stall over MPI: the last image returns early
// or skips a Broadcast rooted at it, or a ReduceAll; the others' next call
// fails with ErrStalled naming it (or the image between it and them), one
// and two images per rank (with two, its node mate waits for it before its
// node starts). A Broadcast leaves no message in flight (every node waits
// for the root's); a ReduceAll leaves the others' small sends to the gone
// image unmatched, which must not keep their Close or the next test from
// running.
func TestStallMPI(t *testing.T) {
	np := mpi.World().Size()
	for _, T := range []int{1, 2} {
		if np*T < 2 {
			continue // one image: nobody to wait for
		}
		per := slices.Repeat([]int{T}, np)
		for _, call := range []string{"Broadcast", "ReduceAll"} {
			for _, skip := range []bool{false, true} {
				c := colltest.StallCase{Call: call, Fn: fnSum, Gone: np*T - 1, Skip: skip, Timeout: mpiStall}
				err := runImages(per, coll.Options{StallTimeout: mpiStall}, func(im *coll.Image, nd *colltest.Node) error {
					return colltest.Stall(im, nd, c)
				})
				if err != nil {
					t.Errorf("%v %s skip=%v: %v", per, call, skip, err)
				}
			}
		}
	}
}

// TestMisbehavingMPI runs colltest.Misbehaving over MPI: every rank's
// reduction function calls gocoll (each of colltest.ReentryCalls) or
// panics, one and two images per rank.
func TestMisbehavingMPI(t *testing.T) {
	w := mpi.World()
	hooks := map[string]func() *colltest.Hook{"panic": func() *colltest.Hook { return colltest.NewPanicHook(w.Rank()) }}
	for call := range colltest.ReentryCalls {
		hooks["reentry "+call] = func() *colltest.Hook { return colltest.NewReentryHook(call, 0) }
	}
	names := slices.Sorted(maps.Keys(hooks)) // one order on every rank
	for _, T := range []int{1, 2} {
		per := slices.Repeat([]int{T}, w.Size())
		for _, name := range names {
			h := hooks[name]()
			err := runImagesWith(mpiconduit.ConduitOptions{}, per, coll.Options{StallTimeout: 30 * time.Second}, h.Table(),
				func(im *coll.Image, nd *colltest.Node) error { return colltest.Misbehaving(im, nd, h, 2) })
			if err != nil {
				t.Errorf("%v %s: %v", per, name, err)
			}
		}
	}
}
