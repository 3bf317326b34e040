package mpitest

import (
	"context"
	"fmt"
	"testing"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	"github.com/gocoll/gocoll/mpiconduit/mpi"
	"github.com/gocoll/gocoll/reducefn"
	gsync "github.com/gocoll/gocoll/sync"
)

// TestAggregatesMPI: aggregates of 1..64 members of every data-movement
// kind, root, size and sync mode give each member's data, with one and two
// images per rank (every image calling, and a representative), on TeamAll
// and on the odd/even split of it.
func TestAggregatesMPI(t *testing.T) {
	np := mpi.World().Size()
	for i, per := range tables(np)[:2] {
		t.Run(fmt.Sprint(per), func(t *testing.T) {
			err := runImages(per, coll.Options{}, func(im *coll.Image, nd *colltest.Node) error {
				cfg := colltest.AggregateConfig{Seed: uint64(np*10 + i)}
				if err := colltest.Aggregates(im, nd, im.TeamAll(), cfg); err != nil {
					return fmt.Errorf("TeamAll: %w", err)
				}
				half, err := im.Split(im.TeamAll(), im.ImageNum()%2, 0)
				if err != nil {
					return err
				}
				cfg.Members = []int{5, 17}
				if err := colltest.Aggregates(im, nd, half, cfg); err != nil {
					return fmt.Errorf("odd/even team: %w", err)
				}
				return im.Destroy(half)
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestAggregatesLargeMPI: aggregates whose members' blocks are around and
// above the sizes where aggregation changes how they travel (packed into
// one message, each on its own tag, each its own schedule) and where the
// conduit's paths change (shared-memory rings, MPI with a header message
// first) give each member's data, with one and two images per rank.
func TestAggregatesLargeMPI(t *testing.T) {
	np := mpi.World().Size()
	for i, per := range tables(np)[:2] {
		t.Run(fmt.Sprint(per), func(t *testing.T) {
			err := runImages(per, coll.Options{}, func(im *coll.Image, nd *colltest.Node) error {
				cfg := colltest.AggregateConfig{Seed: uint64(np*10 + i + 5), Members: []int{1, 3, 16}, Rounds: 4,
					Sizes: []int{8, 2100, 4097, 8192, 9000, 40000}}
				return colltest.Aggregates(im, nd, im.TeamAll(), cfg)
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestAggregateReduceAllMPI: 16 aggregated integer sums, one image per
// rank, equal native MPI_Allreduce's, in every output mode.
func TestAggregateReduceAllMPI(t *testing.T) {
	w := mpi.World()
	np := w.Size()
	per := make([]int, np)
	for i := range per {
		per[i] = 1
	}
	err := runImages(per, coll.Options{}, func(im *coll.Image, _ *colltest.Node) error {
		for _, out := range []gsync.Flags{gsync.OutNoSync, gsync.OutMySync, gsync.OutAllSync} {
			const k = 16
			srcs, dsts := make([][]int64, k), make([][]int64, k)
			var last gsync.Handle
			for m := range k {
				srcs[m], dsts[m] = []int64{int64(w.Rank()*100 + m), int64(m * m)}, make([]int64, 2)
				f := gsync.InMySync | out | gsync.Local
				if m < k-1 {
					f |= gsync.Aggregate
				}
				h, err := im.ReduceAllNB(im.TeamAll(), reducefn.Bytes(dsts[m]), reducefn.Bytes(srcs[m]), coll.Layout{BlockSize: 2}, 8, 2*np, fnSum, 0, f)
				if err != nil {
					return err
				}
				last = h
			}
			if err := last.Wait(context.Background()); err != nil {
				return err
			}
			for m := range k {
				want := make([]int64, 2)
				if err := mpi.Allreduce(w, srcs[m], want, mpi.OpSum); err != nil {
					return err
				}
				if got := dsts[m][0]; got != want[0]+want[1] {
					return fmt.Errorf("%v member %d: got %d, want %d", out, m, got, want[0]+want[1])
				}
			}
		}
		return im.Barrier(im.TeamAll())
	})
	if err != nil {
		t.Fatal(err)
	}
}
