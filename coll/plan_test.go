package coll_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	"github.com/gocoll/gocoll/images"
	gsync "github.com/gocoll/gocoll/sync"
)

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
					func(im *coll.Image, _ *colltest.Node) error { return colltest.Plans(im, f, 40) })
				if err != nil {
					t.Fatal(err)
				}
			})
		}
	}
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
		// A plan of a Barrier.
		pb, err := im.NewPlan(func() error { return im.Barrier(tm) })
		if err != nil {
			return err
		}
		for range 3 {
			if err := pb.Run(); err != nil {
				return fmt.Errorf("a Barrier's plan: %w", err)
			}
		}
		if err := pb.Free(); err != nil {
			return err
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

// TestPlanAggregate: plans of NB calls made with Aggregate (all but the
// last) form an aggregate at every start, as the calls would: the last
// start's handle covers them all.
func TestPlanAggregate(t *testing.T) {
	for _, per := range [][]int{{1, 1, 1}, {2, 2}} {
		t.Run(fmt.Sprint(per), func(t *testing.T) {
			err := colltest.RunImages(per, colltest.Options{MaxDelay: 20 * time.Microsecond}, coll.Options{}, table, time.Minute,
				func(im *coll.Image, _ *colltest.Node) error {
					const members = 5
					tm, P := im.TeamAll(), im.Images()
					f := gsync.InMySync | gsync.OutMySync | gsync.Local
					if slices.Max(per) > 1 {
						f |= gsync.AllThreads
					}
					dst, src := make([][]int64, members), make([][]int64, members)
					plans := make([]*coll.Plan, members)
					for m := range members {
						dst[m], src[m] = make([]int64, 2), make([]int64, 2)
						fm := f
						if m < members-1 {
							fm |= gsync.Aggregate
						}
						p, err := im.NewPlan(func() error {
							_, err := coll.ReduceAllOfNB(im, tm, dst[m], src[m], coll.Sum, fm)
							return err
						})
						if err != nil {
							return err
						}
						plans[m] = p
					}
					for step := 1; step <= 30; step++ {
						var h gsync.Handle
						for m, p := range plans {
							src[m][0], src[m][1] = int64(step*m+im.ImageNum()), int64(-step)
							var err error
							if h, err = p.Start(); err != nil {
								return fmt.Errorf("step %d, member %d: %w", step, m, err)
							}
						}
						if err := h.Wait(context.Background()); err != nil {
							return err
						}
						for m := range plans {
							want := []int64{int64(P*step*m + P*(P-1)/2), int64(-P * step)}
							if !slices.Equal(dst[m], want) {
								return fmt.Errorf("step %d, member %d: %v, want %v", step, m, dst[m], want)
							}
						}
					}
					for _, p := range plans {
						if err := p.Free(); err != nil {
							return err
						}
					}
					return nil
				})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestVCalls runs colltest.VCalls and colltest.ReduceScatters on teams
// (onTeams).
func TestVCalls(t *testing.T) {
	onTeams(t, func(im *coll.Image, tm *images.Team, f gsync.Flags, steps int) error {
		return errors.Join(colltest.VCalls(im, tm, f, steps), colltest.ReduceScatters(im, tm, f, steps))
	})
}

// TestNeighborExchanges runs colltest.NeighborExchanges on teams
// (onTeams).
func TestNeighborExchanges(t *testing.T) {
	onTeams(t, colltest.NeighborExchanges)
}

// onTeams runs calls in-process, under -race with message delays, from 1
// to 16 nodes of one image and on nodes of several images (AllThreads),
// on the whole team (steps 8), on a team whose ranks interleave the nodes
// and on a team without image 0 (steps 4).
func onTeams(t *testing.T, calls func(im *coll.Image, tm *images.Team, f gsync.Flags, steps int) error) {
	for _, per := range [][]int{{1}, {1, 1}, {1, 1, 1, 1, 1}, slices.Repeat([]int{1}, 16), {2, 2}, {3}, {3, 1, 2}} {
		for _, mode := range []gsync.Flags{gsync.InMySync | gsync.OutMySync, gsync.InAllSync | gsync.OutAllSync, gsync.InNoSync | gsync.OutMySync} {
			t.Run(fmt.Sprint(per, mode), func(t *testing.T) {
				f := mode | gsync.Local
				if slices.Max(per) > 1 {
					f |= gsync.AllThreads
				}
				err := colltest.RunImages(per, colltest.Options{MaxDelay: 20 * time.Microsecond}, coll.Options{}, table, time.Minute,
					func(im *coll.Image, _ *colltest.Node) error {
						tm := im.TeamAll()
						if err := calls(im, tm, f, 8); err != nil {
							return err
						}
						// Ranks interleaved across the nodes (not node-major).
						me := im.ImageNum()
						mixed, err := im.Split(tm, 0, me%2*1000+me)
						if err != nil {
							return err
						}
						if err := calls(im, mixed, f, 4); err != nil {
							return fmt.Errorf("interleaved ranks: %w", err)
						}
						if tm.Size() < 3 {
							return nil
						}
						color := 0
						if im.ImageNum() == 0 {
							color = images.NoColor
						}
						sub, err := im.Split(tm, color, 0)
						if err != nil || sub == nil {
							return err
						}
						return calls(im, sub, f, 4)
					})
				if err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// TestVCallsMisuse: bad counts or displacements fail where they are given
// (ErrCounts, ErrOverlap), before any message; counts that differ across
// images are ErrMismatch on every image in checked mode, with nothing
// written. (In the default mode such a call's messages differ in length,
// which the conduit reports, as for the other collectives' sizes.)
func TestVCallsMisuse(t *testing.T) {
	const P = 3
	f := gsync.InMySync | gsync.OutMySync | gsync.Local
	err := colltest.RunImages([]int{1, 1, 1}, colltest.Options{}, coll.Options{}, table, time.Minute, func(im *coll.Image, _ *colltest.Node) error {
		tm := im.TeamAll()
		dst, src := make([]byte, 64), make([]byte, 8)
		vec := make([]byte, 48)
		g, err := images.NewGrid(tm, []int{1, 3}, []bool{true, false}) // each its own neighbour in dimension 0
		if err != nil {
			return err
		}
		ones, at := []int{1, 1, 1, 1}, []int{0, 1, 2, 3}
		for _, c := range []struct {
			name string
			err  error
			want error
		}{
			{"a negative count", im.GatherAllV(tm, dst, []int{1, -1, 1}, []int{0, 2, 4}, src, f), coll.ErrCounts},
			{"two counts for three", im.GatherAllV(tm, dst, []int{1, 1}, []int{0, 2, 4}, src, f), coll.ErrCounts},
			{"two displacements for three", im.GatherAllV(tm, dst, []int{1, 1, 1}, []int{0, 2}, src, f), coll.ErrCounts},
			{"a block past the end", im.GatherAllV(tm, dst, []int{1, 1, 1}, []int{0, 2, 64}, src, f), coll.ErrCounts},
			{"a huge displacement", im.GatherAllV(tm, dst, []int{1, 1, 1}, []int{0, 2, math.MaxInt}, src, f), coll.ErrCounts},
			{"counts past MaxInt", im.GatherAllV(tm, dst, []int{1, math.MaxInt, math.MaxInt}, []int{0, 2, 4}, src, f), coll.ErrCounts},
			{"overlapping blocks", im.GatherAllV(tm, dst, []int{2, 2, 2}, []int{0, 1, 4}, src, f), coll.ErrOverlap},
			{"a short source", im.GatherAllV(tm, dst, []int{9, 9, 9}, []int{0, 10, 20}, src, f), coll.ErrShortBuffer},
			{"source in the blocks", im.GatherAllV(tm, dst, []int{2, 2, 2}, []int{0, 4, 8}, dst[5:7], f), coll.ErrOverlap},
			{"a bad root", im.GatherV(tm, 3, dst, []int{1, 1, 1}, []int{0, 2, 4}, src, f), coll.ErrRoot},
			{"ExchangeV's send blocks out of src", im.ExchangeV(tm, dst, []int{1, 1, 1}, []int{0, 1, 2}, src, []int{1, 1, 1}, []int{0, 1, 8}, f), coll.ErrCounts},
			{"ExchangeV's blocks overlapping", im.ExchangeV(tm, dst, []int{2, 2, 2}, []int{0, 1, 4}, src, []int{1, 1, 1}, []int{0, 1, 2}, f), coll.ErrOverlap},
			{"ReduceScatter's counts summing to 0", im.ReduceScatter(tm, dst, vec, []int{0, 0, 0}, 8, fnSumI64, 0, f), coll.ErrCounts},
			{"ReduceScatter's negative count", im.ReduceScatter(tm, dst, vec, []int{2, -1, 2}, 8, fnSumI64, 0, f), coll.ErrCounts},
			{"ReduceScatter's function of whole elements", im.ReduceScatter(tm, dst, vec, []int{1, 1, 1}, 8, fnMat2, 0, f), coll.ErrElemSize},
			{"ReduceScatter's short source", im.ReduceScatter(tm, dst, vec, []int{2, 2, 3}, 8, fnSumI64, 0, f), coll.ErrShortBuffer},
			{"ReduceScatter's destination in its source", im.ReduceScatter(tm, vec[8:], vec[:24], []int{1, 1, 1}, 8, fnSumI64, 0, f), coll.ErrOverlap},
			{"ReduceScatterBlockOf's nil team", coll.ReduceScatterBlockOf(im, nil, []int64{0}, []int64{1, 2, 3}, coll.Sum, f), coll.ErrTeam},
			{"GatherAllVM's list of two for one image", im.GatherAllVM(tm, [][]byte{dst, dst}, []int{1, 1, 1}, []int{0, 2, 4}, [][]byte{src, src}, f), coll.ErrListLength},
			{"NeighborExchange on a nil image", (*coll.Image)(nil).NeighborExchange(g, dst, src, 1, f), coll.ErrNotInitialized},
			{"NeighborExchangeV on a nil image", (*coll.Image)(nil).NeighborExchangeV(g, dst, ones, at, src, ones, at, f), coll.ErrNotInitialized},
			{"NeighborExchange's nil grid", im.NeighborExchange(nil, dst, src, 1, f), images.ErrGrid},
			{"NeighborExchange's 0 bytes", im.NeighborExchange(g, dst, src, 0, f), coll.ErrNBytes},
			{"NeighborExchange's short source", im.NeighborExchange(g, dst, src, 4, f), coll.ErrCounts},
			{"NeighborExchangeV's three counts for four neighbours", im.NeighborExchangeV(g, dst, ones[:3], at[:3], src, ones, at, f), coll.ErrCounts},
			{"NeighborExchangeV's overlapping blocks", im.NeighborExchangeV(g, dst, []int{2, 2, 1, 1}, at, src, ones, at, f), coll.ErrOverlap},
			{"NeighborExchangeV receiving into a block it sends", im.NeighborExchangeV(g, dst, ones, at, dst, ones, []int{3, 4, 5, 6}, f), coll.ErrOverlap},
			{"NeighborExchangeV's own block of another length", im.NeighborExchangeV(g, dst, []int{1, 2, 1, 1}, []int{0, 1, 3, 4}, src, ones, at, f), coll.ErrCounts},
		} {
			if !errors.Is(c.err, c.want) {
				return fmt.Errorf("%s: %v, want %v", c.name, c.err, c.want)
			}
		}
		// The source may be the caller's own block.
		own := 2 * im.ImageNum()
		copy(dst[own:], []byte{byte(im.ImageNum() + 1), 0})
		if err := im.GatherAllV(tm, dst, []int{1, 1, 1}, []int{0, 2, 4}, dst[own:own+1], f); err != nil {
			return fmt.Errorf("own block as source: %w", err)
		}
		if got := []byte{dst[0], dst[2], dst[4]}; !slices.Equal(got, []byte{1, 2, 3}) {
			return fmt.Errorf("own block as source: %v", got)
		}
		return im.Barrier(tm)
	})
	if err != nil {
		t.Fatal(err)
	}
	// Counts that differ (image 2 gives its block one more byte), in
	// checked mode.
	mismatchEverywhere(t, "counts", P, func(im *coll.Image, tm *images.Team) (dst []byte, err error) {
		counts := []int{2, 2, 2}
		if im.ImageNum() == 2 {
			counts[2] = 3
		}
		dst = make([]byte, 16)
		return dst, im.GatherAllV(tm, dst, counts, []int{0, 4, 8}, []byte{9, 9, 9}, f)
	})
	// Grids that differ (image 2's is periodic): the same in a neighbour
	// exchange.
	mismatchEverywhere(t, "grids", P, func(im *coll.Image, tm *images.Team) (dst []byte, err error) {
		g, err := images.NewGrid(tm, []int{P}, []bool{im.ImageNum() == 2})
		if err != nil {
			return nil, err
		}
		dst = make([]byte, 2)
		return dst, im.NeighborExchange(g, dst, []byte{9, 9}, 1, f)
	})
}

// mismatchEverywhere runs call on P images in checked mode, and checks
// that it fails with ErrMismatch on every image, its destination (zeros
// before) untouched.
func mismatchEverywhere(t *testing.T, what string, P int, call func(im *coll.Image, tm *images.Team) (dst []byte, err error)) {
	t.Helper()
	errs := make([]error, P)
	untouched := make([]bool, P)
	err := colltest.Run(P, colltest.Options{}, coll.Options{Check: true}, time.Minute, func(im *coll.Image) error {
		me, tm := im.ImageNum(), im.TeamAll()
		dst, err := call(im, tm)
		errs[me], untouched[me] = err, !slices.ContainsFunc(dst, func(b byte) bool { return b != 0 })
		return im.Barrier(tm)
	})
	if err != nil {
		t.Fatal(err)
	}
	for me, e := range errs {
		if !errors.Is(e, coll.ErrMismatch) || !untouched[me] {
			t.Errorf("%s: image %d: %v, destination untouched %v; want ErrMismatch and untouched", what, me, e, untouched[me])
		}
	}
}
