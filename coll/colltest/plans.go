package colltest

import (
	"context"
	"fmt"
	"slices"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/images"
	gsync "github.com/gocoll/gocoll/sync"
)

// planKinds are the collectives TestPlans makes plans of, each with its
// serial model: the destination of team rank me, given every rank's
// source (src(r)), blocks of n elements, root 1 % P.
var planKinds = []struct {
	name  string
	srcN  func(n, P int) int // source length
	dstN  func(n, P int) int // destination length
	call  func(im *coll.Image, t *images.Team, dst, src []int64, n int, f gsync.Flags, nb bool) (gsync.Handle, error)
	model func(dst []int64, src func(r int) []int64, me, n, P int) // nil where dst does not apply
}{
	{"ReduceAllOf", oneBlock, oneBlock,
		func(im *coll.Image, t *images.Team, dst, src []int64, n int, f gsync.Flags, nb bool) (gsync.Handle, error) {
			if nb {
				return coll.ReduceAllOfNB(im, t, dst, src, coll.Sum, f)
			}
			return gsync.Handle{}, coll.ReduceAllOf(im, t, dst, src, coll.Sum, f)
		},
		func(dst []int64, src func(int) []int64, me, n, P int) {
			for r := range P {
				for i, v := range src(r) {
					dst[i] += v
				}
			}
		}},
	{"PrefixReduceOf", oneBlock, oneBlock,
		func(im *coll.Image, t *images.Team, dst, src []int64, n int, f gsync.Flags, nb bool) (gsync.Handle, error) {
			if nb {
				return coll.PrefixReduceOfNB(im, t, dst, src, coll.Sum, f)
			}
			return gsync.Handle{}, coll.PrefixReduceOf(im, t, dst, src, coll.Sum, f)
		},
		func(dst []int64, src func(int) []int64, me, n, P int) {
			for r := range me + 1 {
				for i, v := range src(r) {
					dst[i] += v
				}
			}
		}},
	{"BroadcastOf", oneBlock, oneBlock,
		func(im *coll.Image, t *images.Team, dst, src []int64, n int, f gsync.Flags, nb bool) (gsync.Handle, error) {
			if nb {
				return coll.BroadcastOfNB(im, t, dst, 1%t.Size(), src, n, f)
			}
			return gsync.Handle{}, coll.BroadcastOf(im, t, dst, 1%t.Size(), src, n, f)
		},
		func(dst []int64, src func(int) []int64, me, n, P int) { copy(dst, src(1%P)) }},
	{"ScatterOf", allBlocks, oneBlock,
		func(im *coll.Image, t *images.Team, dst, src []int64, n int, f gsync.Flags, nb bool) (gsync.Handle, error) {
			if nb {
				return coll.ScatterOfNB(im, t, dst, 1%t.Size(), src, n, f)
			}
			return gsync.Handle{}, coll.ScatterOf(im, t, dst, 1%t.Size(), src, n, f)
		},
		func(dst []int64, src func(int) []int64, me, n, P int) { copy(dst, src(1 % P)[me*n:]) }},
	{"GatherOf", oneBlock, allBlocks,
		func(im *coll.Image, t *images.Team, dst, src []int64, n int, f gsync.Flags, nb bool) (gsync.Handle, error) {
			if nb {
				return coll.GatherOfNB(im, t, 1%t.Size(), dst, src, n, f)
			}
			return gsync.Handle{}, coll.GatherOf(im, t, 1%t.Size(), dst, src, n, f)
		},
		func(dst []int64, src func(int) []int64, me, n, P int) {
			if me == 1%P {
				for r := range P {
					copy(dst[r*n:], src(r))
				}
			}
		}},
	{"GatherAllOf", oneBlock, allBlocks,
		func(im *coll.Image, t *images.Team, dst, src []int64, n int, f gsync.Flags, nb bool) (gsync.Handle, error) {
			if nb {
				return coll.GatherAllOfNB(im, t, dst, src, n, f)
			}
			return gsync.Handle{}, coll.GatherAllOf(im, t, dst, src, n, f)
		},
		func(dst []int64, src func(int) []int64, me, n, P int) {
			for r := range P {
				copy(dst[r*n:], src(r))
			}
		}},
	{"GatherAllVOf", oneBlock, allBlocks, // the blocks in reverse rank order
		func(im *coll.Image, t *images.Team, dst, src []int64, n int, f gsync.Flags, nb bool) (gsync.Handle, error) {
			P := t.Size()
			counts, displs := make([]int, P), make([]int, P)
			for r := range P {
				counts[r], displs[r] = n, (P-1-r)*n
			}
			if nb {
				return coll.GatherAllVOfNB(im, t, dst, counts, displs, src, f)
			}
			return gsync.Handle{}, coll.GatherAllVOf(im, t, dst, counts, displs, src, f)
		},
		func(dst []int64, src func(int) []int64, me, n, P int) {
			for r := range P {
				copy(dst[(P-1-r)*n:], src(r))
			}
		}},
	{"ExchangeOf", allBlocks, allBlocks,
		func(im *coll.Image, t *images.Team, dst, src []int64, n int, f gsync.Flags, nb bool) (gsync.Handle, error) {
			if nb {
				return coll.ExchangeOfNB(im, t, dst, src, n, f)
			}
			return gsync.Handle{}, coll.ExchangeOf(im, t, dst, src, n, f)
		},
		func(dst []int64, src func(int) []int64, me, n, P int) {
			for r := range P {
				copy(dst[r*n:(r+1)*n], src(r)[me*n:])
			}
		}},
	{"NeighborExchangeOf", twoBlocks, twoBlocks, // on a ring
		func(im *coll.Image, t *images.Team, dst, src []int64, n int, f gsync.Flags, nb bool) (gsync.Handle, error) {
			g, err := images.NewGrid(t, []int{t.Size()}, []bool{true})
			if err != nil {
				return gsync.Handle{}, err
			}
			if nb {
				return coll.NeighborExchangeOfNB(im, g, dst, src, n, f)
			}
			return gsync.Handle{}, coll.NeighborExchangeOf(im, g, dst, src, n, f)
		},
		func(dst []int64, src func(int) []int64, me, n, P int) {
			copy(dst[:n], src((me + P - 1) % P)[n:]) // from below, its block to above
			copy(dst[n:], src((me + 1) % P)[:n])
		}},
}

// oneBlock, twoBlocks and allBlocks are lengths of n elements, of two
// blocks of n, and of n per rank.
func oneBlock(n, P int) int  { return n }
func twoBlocks(n, P int) int { return 2 * n }
func allBlocks(n, P int) int { return n * P }

// Plans makes a plan of every kind of collective, blocking and NB, and
// starts it steps times with new data, on the whole team and on a team of
// all but image 0 where there are three images or more: each start is
// checked against the plain call and a serial model. f is the calls' flags.
func Plans(im *coll.Image, f gsync.Flags, steps int) error {
	tm := im.TeamAll()
	teams := []*images.Team{tm}
	if tm.Size() > 2 {
		color := 0
		if im.ImageNum() == 0 {
			color = images.NoColor
		}
		sub, err := im.Split(tm, color, 0)
		if err != nil {
			return err
		}
		if sub != nil {
			teams = append(teams, sub)
		}
	}
	for _, t := range teams {
		for _, k := range planKinds {
			for _, nb := range []bool{false, true} {
				if err := planKind(im, t, k.name, k.srcN, k.dstN, k.call, k.model, f, nb, steps); err != nil {
					return fmt.Errorf("team of %d, %s nb=%v: %w", t.Size(), k.name, nb, err)
				}
			}
		}
		// Between batches of OUT_NOSYNC calls, a barrier (see Barrier).
		if err := im.Barrier(t); err != nil {
			return err
		}
	}
	return nil
}

func planKind(im *coll.Image, t *images.Team, name string, srcN, dstN func(n, P int) int,
	call func(*coll.Image, *images.Team, []int64, []int64, int, gsync.Flags, bool) (gsync.Handle, error),
	model func([]int64, func(int) []int64, int, int, int), f gsync.Flags, nb bool, steps int) error {
	const n = 3
	P, me := t.Size(), t.Rank(im.ImageNum())
	src := make([]int64, srcN(n, P))
	dst, plain, want := make([]int64, dstN(n, P)), make([]int64, dstN(n, P)), make([]int64, dstN(n, P))
	step := 0
	source := func(r int) []int64 {
		s := make([]int64, len(src))
		for i := range s {
			s[i] = int64(step*10000 + r*100 + i)
		}
		return s
	}
	p, err := im.NewPlan(func() error {
		_, err := call(im, t, dst, src, n, f, nb)
		return err
	})
	if err != nil {
		return err
	}
	wait := func(h gsync.Handle, err error) error {
		if err != nil {
			return err
		}
		return h.Wait(context.Background())
	}
	for step = 1; step <= steps; step++ {
		copy(src, source(me))
		clear(dst)
		if err := wait(p.Start()); err != nil {
			return fmt.Errorf("start %d: %w", step, err)
		}
		clear(plain)
		if err := wait(call(im, t, plain, src, n, f, nb)); err != nil {
			return fmt.Errorf("plain call %d: %w", step, err)
		}
		clear(want)
		model(want, source, me, n, P)
		if !slices.Equal(dst, plain) || !slices.Equal(dst, want) {
			return fmt.Errorf("start %d: plan gives %v, plain call %v, model %v", step, dst, plain, want)
		}
		if f.Out() == gsync.OutNoSync {
			if err := im.Barrier(t); err != nil {
				return err
			}
		}
	}
	return p.Free()
}
