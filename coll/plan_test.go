package coll_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
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
	{"ReduceAllOf", one, one,
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
	{"PrefixReduceOf", one, one,
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
	{"BroadcastOf", one, one,
		func(im *coll.Image, t *images.Team, dst, src []int64, n int, f gsync.Flags, nb bool) (gsync.Handle, error) {
			if nb {
				return coll.BroadcastOfNB(im, t, dst, 1%t.Size(), src, n, f)
			}
			return gsync.Handle{}, coll.BroadcastOf(im, t, dst, 1%t.Size(), src, n, f)
		},
		func(dst []int64, src func(int) []int64, me, n, P int) { copy(dst, src(1%P)) }},
	{"ScatterOf", all, one,
		func(im *coll.Image, t *images.Team, dst, src []int64, n int, f gsync.Flags, nb bool) (gsync.Handle, error) {
			if nb {
				return coll.ScatterOfNB(im, t, dst, 1%t.Size(), src, n, f)
			}
			return gsync.Handle{}, coll.ScatterOf(im, t, dst, 1%t.Size(), src, n, f)
		},
		func(dst []int64, src func(int) []int64, me, n, P int) { copy(dst, src(1 % P)[me*n:]) }},
	{"GatherOf", one, all,
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
	{"GatherAllOf", one, all,
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
	{"ExchangeOf", all, all,
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
}

func one(n, P int) int { return n }
func all(n, P int) int { return n * P }

// TestPlans: a plan of each collective, started again and again with new
// source data, gives on every start what the plain call gives on the same
// data and what the serial model says, in blocking and NB forms, under
// several sync modes, on nodes of one image and of several (AllThreads),
// with message delays.
func TestPlans(t *testing.T) {
	modes := []gsync.Flags{
		gsync.InAllSync | gsync.OutAllSync,
		gsync.InMySync | gsync.OutMySync,
		gsync.InNoSync | gsync.OutNoSync,
	}
	for _, per := range [][]int{{1, 1, 1, 1}, {2, 2}, {3}, {1, 2}} {
		for mi, mode := range modes {
			t.Run(fmt.Sprint(per, mi), func(t *testing.T) {
				f := mode | gsync.Local
				if slices.Max(per) > 1 {
					f |= gsync.AllThreads
				}
				err := colltest.RunImages(per, colltest.Options{MaxDelay: 20 * time.Microsecond, Seed: uint64(mi + 1)}, coll.Options{}, table, time.Minute,
					func(im *coll.Image, _ *colltest.Node) error { return planSteps(im, f, 40) })
				if err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// planSteps runs a plan of every kind steps times on team t (the whole
// team, and a team of all but image 0 where there are three images or
// more), each start checked against the plain call and the model.
func planSteps(im *coll.Image, f gsync.Flags, steps int) error {
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

// TestPlanMisuse: a plan's function that makes no call or two, or makes a
// team; a call that fails its checks; a second start before the first
// synced; Free and starts after Free; a plan of a destroyed team, of a
// closed image; a nil plan.
func TestPlanMisuse(t *testing.T) {
	started := make(chan struct{})
	err := colltest.Run(2, colltest.Options{}, coll.Options{}, time.Minute, func(im *coll.Image) error {
		tm, me := im.TeamAll(), im.ImageNum()
		dst, src := make([]int64, 1), make([]int64, 1)
		f := gsync.InAllSync | gsync.OutAllSync | gsync.Local
		reduce := func() error { return coll.ReduceAllOf(im, tm, dst, src, coll.Sum, f) }
		for _, c := range []struct {
			name string
			call func() error
			want error
		}{
			{"no call", func() error { return nil }, coll.ErrPlan},
			{"two calls", func() error { reduce(); return reduce() }, coll.ErrPlan},
			{"a team made", func() error { _, err := im.Split(tm, 0, 0); return err }, coll.ErrPlan},
			{"a bad root", func() error { return coll.BroadcastOf(im, tm, dst, 5, src, 1, f) }, coll.ErrRoot},
			{"a nested plan", func() error { _, err := im.NewPlan(reduce); return err }, coll.ErrPlan},
		} {
			if p, err := im.NewPlan(c.call); !errors.Is(err, c.want) || p != nil {
				return fmt.Errorf("%s: got %v, %v, want %v", c.name, p, err, c.want)
			}
		}
		// Image 1 starts only once image 0 started twice: image 0's first
		// start cannot have synced.
		p, err := im.NewPlan(func() error {
			_, err := coll.ReduceAllOfNB(im, tm, dst, src, coll.Sum, f)
			return err
		})
		if err != nil {
			return err
		}
		if me == 1 {
			<-started
		}
		h, err := p.Start()
		if err != nil {
			return err
		}
		if me == 0 {
			_, err2 := p.Start()
			err3 := p.Free()
			close(started)
			if !errors.Is(err2, coll.ErrPlanBusy) || !errors.Is(err3, coll.ErrPlanBusy) {
				return fmt.Errorf("start and Free before the sync: %v, %v, want ErrPlanBusy", err2, err3)
			}
		}
		if err := h.Wait(context.Background()); err != nil {
			return err
		}
		if err := p.Run(); err != nil { // synced: starts again
			return err
		}
		if err := p.Free(); err != nil {
			return err
		}
		if _, err := p.Start(); !errors.Is(err, coll.ErrPlanFreed) {
			return fmt.Errorf("start after Free: %v", err)
		}
		if err := p.Free(); !errors.Is(err, coll.ErrPlanFreed) {
			return fmt.Errorf("Free after Free: %v", err)
		}
		var nilPlan *coll.Plan
		if err := nilPlan.Run(); !errors.Is(err, coll.ErrNotInitialized) {
			return fmt.Errorf("nil plan: %v", err)
		}
		// A plan of a team destroyed since.
		sub, err := im.Split(tm, 0, 0)
		if err != nil {
			return err
		}
		ps, err := im.NewPlan(func() error { return coll.ReduceAllOf(im, sub, dst, src, coll.Sum, f) })
		if err != nil {
			return err
		}
		if err := im.Destroy(sub); err != nil {
			return err
		}
		if err := ps.Run(); !errors.Is(err, coll.ErrTeamDestroyed) {
			return fmt.Errorf("start on a destroyed team: %v", err)
		}
		// A plan of a closed image.
		pc, err := im.NewPlan(reduce)
		if err != nil {
			return err
		}
		if err := im.Close(); err != nil {
			return err
		}
		if err := pc.Run(); !errors.Is(err, coll.ErrClosed) {
			return fmt.Errorf("start after Close: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestPlanAllocs: a plan of a ReduceAll of one float64 between two nodes,
// blocking and NB, started 10,000 times with new data, gives the right
// sum every time and allocates nothing per start.
func TestPlanAllocs(t *testing.T) {
	if raceOn {
		t.Skip("the race detector allocates")
	}
	const runs = 10000
	for _, nb := range []bool{false, true} {
		allocs := make([]float64, 2)
		err := colltest.Run(2, colltest.Options{}, coll.Options{}, time.Minute, func(im *coll.Image) error {
			tm := im.TeamAll()
			dst, src := make([]float64, 1), []float64{1}
			f := gsync.InAllSync | gsync.OutAllSync | gsync.Local
			p, err := im.NewPlan(func() error {
				if nb {
					_, err := coll.ReduceAllOfNB(im, tm, dst, src, coll.Sum, f)
					return err
				}
				return coll.ReduceAllOf(im, tm, dst, src, coll.Sum, f)
			})
			if err != nil {
				return err
			}
			for range 3 { // the first start builds the schedule
				if err := p.Run(); err != nil {
					return err
				}
			}
			var runErr error
			k := 0
			allocs[im.ImageNum()] = testing.AllocsPerRun(runs, func() {
				k++
				src[0] = float64(k)
				if runErr == nil {
					runErr = p.Run()
				}
				if runErr == nil && dst[0] != float64(2*k) {
					runErr = errors.New("a wrong sum")
				}
			})
			return errors.Join(runErr, p.Free())
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("nb=%v: %v allocations per start", nb, allocs)
		if allocs[0] > 0 || allocs[1] > 0 {
			t.Errorf("nb=%v: %v allocations per start, want 0", nb, allocs)
		}
	}
}
