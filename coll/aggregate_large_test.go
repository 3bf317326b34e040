package coll_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"testing"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	"github.com/gocoll/gocoll/loggp"
	gsync "github.com/gocoll/gocoll/sync"
)

// TestAggregatesSizeChoice: where the cost model picks another tree for
// larger blocks of the same collective (here gather and scatter on eight
// nodes: a flat tree for 50-byte blocks, a binomial one for 3000), members
// of both sizes in one aggregate run their own trees: a skeleton is fused
// only with members that share it.
func TestAggregatesSizeChoice(t *testing.T) {
	const P = 8
	o := coll.Options{Model: loggp.Params{L: 1, O: 1, Gap: 1, G: 0.0001}}
	if o.TreeFor(coll.TreeBlocks, P, 32) == o.TreeFor(coll.TreeBlocks, P, 2048) {
		t.Fatal("the model picks one tree for both sizes: the test needs another")
	}
	per := make([]int, P)
	for i := range per {
		per[i] = 1
	}
	err := colltest.RunImages(per, colltest.Options{MaxDelay: 10 * time.Microsecond, Seed: 9}, o, nil, 20*time.Second,
		func(im *coll.Image, nd *colltest.Node) error {
			all := im.TeamAll()
			me := im.ImageNum()
			sizes := []int{50, 3000, 50, 3000}
			dsts, srcs := make([][]byte, len(sizes)), make([][]byte, len(sizes))
			var h gsync.Handle
			for m, n := range sizes {
				dsts[m], srcs[m] = make([]byte, P*n), make([]byte, n)
				for i := range srcs[m] {
					srcs[m][i] = byte(m + me + i)
				}
				f := gsync.InMySync | gsync.OutMySync | gsync.Local
				if m < len(sizes)-1 {
					f |= gsync.Aggregate
				}
				var err error
				if h, err = im.GatherNB(all, 0, dsts[m], srcs[m], n, f); err != nil {
					return err
				}
			}
			if err := h.Wait(context.Background()); err != nil {
				return err
			}
			for m, n := range sizes {
				for i := 0; me == 0 && i < P*n; i++ {
					if got, want := dsts[m][i], byte(m+i/n+i%n); got != want {
						return fmt.Errorf("gather %d of %d bytes: byte %d = %d, want %d", m, n, i, got, want)
					}
				}
			}
			cfg := colltest.AggregateConfig{Seed: 3, Sizes: []int{50, 3000}, Members: []int{2, 5, 16}, Rounds: 3}
			return colltest.Aggregates(im, nd, all, cfg)
		})
	if err != nil {
		t.Fatal(err)
	}
}

// TestAggregateManySchedules: an aggregate whose members need more
// schedules than fit in a few bits of a transfer's index (every member of
// a shape of its own) completes with every member's data.
func TestAggregateManySchedules(t *testing.T) {
	const k = 300
	err := colltest.RunImages([]int{1, 1, 1}, colltest.Options{}, coll.Options{}, table, time.Minute, func(im *coll.Image, _ *colltest.Node) error {
		all := im.TeamAll()
		me := im.ImageNum()
		dsts, srcs := make([][]byte, k), make([][]byte, k)
		var h gsync.Handle
		for m := range k {
			f := gsync.InMySync | gsync.OutMySync | gsync.Local
			if m < k-1 {
				f |= gsync.Aggregate
			}
			es := 8 * (m + 1) // every member its own element size: its own schedule
			dsts[m], srcs[m] = make([]byte, es), make([]byte, es)
			for i := 0; i < es; i += 8 {
				binary.LittleEndian.PutUint64(srcs[m][i:], uint64(m*10+i+me))
			}
			var err error
			if h, err = im.ReduceAllNB(all, dsts[m], srcs[m], coll.Cyclic, es, all.Size(), fnSumI64, 0, f); err != nil {
				return err
			}
		}
		if err := h.Wait(context.Background()); err != nil {
			return err
		}
		for m := range k {
			for i := 0; i < len(dsts[m]); i += 8 {
				if got, want := binary.LittleEndian.Uint64(dsts[m][i:]), uint64(3*(m*10+i)+3); got != want {
					return fmt.Errorf("member %d word %d: %d, want %d", m, i/8, got, want)
				}
			}
		}
		return im.Barrier(all)
	})
	if err != nil {
		t.Fatal(err)
	}
}
