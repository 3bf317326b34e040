package coll_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	"github.com/gocoll/gocoll/images"
	gsync "github.com/gocoll/gocoll/sync"
)

const allMy = gsync.InMySync | gsync.OutMySync | gsync.Local | gsync.AllThreads

// splitCase makes a team by Split from TeamAll and says what it must be.
type splitCase struct {
	name       string
	color, key func(img, P int) int
}

// splitCases on P images laid out as a rows x cols grid (row-major).
func splitCases(P, cols int) []splitCase {
	return []splitCase{
		{"rows", func(img, _ int) int { return img / cols }, func(img, _ int) int { return img }},
		{"columns", func(img, _ int) int { return img % cols }, func(img, _ int) int { return img }},
		{"odd/even", func(img, _ int) int { return img % 2 }, func(img, _ int) int { return img }},
		{"reversed keys", func(int, int) int { return 0 }, func(img, _ int) int { return -img }},
		{"singletons", func(img, _ int) int { return img }, func(int, int) int { return 0 }},
		{"excluded", func(img, P int) int {
			if img%3 == 1 {
				return images.NoColor
			}
			return 7
		}, func(img, _ int) int { return P - img }},
	}
}

// expectSplit is the team image img must get from c: its members in rank order.
func expectSplit(c splitCase, img, P int) []int {
	col := c.color(img, P)
	if col == images.NoColor {
		return nil
	}
	var ranks []int
	color, key := make([]int, P), make([]int, P)
	for i := range P {
		color[i], key[i] = c.color(i, P), c.key(i, P)
	}
	groups, group, err := images.SplitMembers(color, key)
	if err != nil {
		panic(err)
	}
	ranks = groups[group[img]]
	return ranks // ranks of TeamAll are images
}

// TestSplitTeams makes each kind of team, checks its membership and rank
// order, and runs the data-movement matrix on it.
func TestSplitTeams(t *testing.T) {
	for ti, per := range [][]int{{2, 2, 2}, {1, 3, 2}, {4, 4}, {1, 1, 1, 1, 1, 1}} {
		P := 0
		for _, k := range per {
			P += k
		}
		cols := 2
		if P%3 == 0 {
			cols = 3
		}
		for _, c := range splitCases(P, cols) {
			t.Run(fmt.Sprintf("%v/%s", per, c.name), func(t *testing.T) {
				t.Parallel()
				delay := colltest.Options{MaxDelay: 10 * time.Microsecond, Seed: uint64(ti + 1)}
				err := colltest.RunImages(per, delay, coll.Options{}, table, 3*time.Minute, func(im *coll.Image, nd *colltest.Node) error {
					all := im.TeamAll()
					img := im.ImageNum()
					tm, err := im.Split(all, c.color(img, P), c.key(img, P))
					if err != nil {
						return err
					}
					want := expectSplit(c, img, P)
					if want == nil {
						if tm != nil {
							return fmt.Errorf("image %d is in no team but got %v", img, tm.Images())
						}
						return im.Barrier(all)
					}
					if tm == nil || !equalInts(tm.Images(), want) {
						return fmt.Errorf("image %d: team %v, want %v", img, imagesOf(tm), want)
					}
					if tm.Rank(img) < 0 || tm.Image(tm.Rank(img)) != img || tm.Parent() != all {
						return fmt.Errorf("image %d: rank translation", img)
					}
					for r := range tm.Size() {
						if tm.FromParent(tm.ParentRank(r)) != r || all.Rank(tm.Image(r)) != tm.ParentRank(r) {
							return fmt.Errorf("rank %d: translation to the parent and back", r)
						}
					}
					if err := colltest.Matrix(im, nd, tm, colltest.MatrixConfig{Sizes: []int{5}, InFlight: 2}); err != nil {
						return fmt.Errorf("%s team %v: %w", c.name, tm.Images(), err)
					}
					if err := runMReductions(im, nd, tm, shortReductions(tm.Size())); err != nil {
						return fmt.Errorf("%s team %v: %w", c.name, tm.Images(), err)
					}
					if err := im.Destroy(tm); err != nil {
						return err
					}
					return im.Barrier(all)
				})
				if err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

func shortReductions(P int) []reduction {
	l := coll.Layout{BlockSize: 2, Offset: 1}
	return []reduction{
		{kind: "all", fn: fnSumI64, es: 8, count: 2*P + 1, src: l},
		{kind: "reduce", fn: fnConcat, es: 40, count: 2*P + 1, src: l, root: P - 1},
		{kind: "all", fn: fnMat2, es: 32, count: 2*P + 1, src: l},
		{kind: "prefix", fn: fnConcat, es: 40, count: 2*P + 1, src: l, dst: coll.Cyclic},
		{kind: "exprefix", fn: fnSumI64, es: 8, count: 2*P + 1, src: l, dst: l},
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func imagesOf(t *images.Team) []int {
	if t == nil {
		return nil
	}
	return t.Images()
}

// TestOverlappingTeamsInFlight: rows and columns of a grid share images;
// every image starts a row collective and a column collective (in that
// order) before syncing either, many times over, with random delays; and
// two disjoint teams that share nodes run at once with no order between
// them (the spec's Precedes rule does not relate them).
func TestOverlappingTeamsInFlight(t *testing.T) {
	per := []int{2, 2, 2} // 6 images: a 2 x 3 grid
	const cols = 3
	err := colltest.RunImages(per, colltest.Options{MaxDelay: 30 * time.Microsecond, Seed: 5}, coll.Options{}, nil, 3*time.Minute,
		func(im *coll.Image, _ *colltest.Node) error {
			all, img := im.TeamAll(), im.ImageNum()
			row, err := im.Split(all, img/cols, img)
			if err != nil {
				return err
			}
			col, err := im.Split(all, img%cols, img)
			if err != nil {
				return err
			}
			// even and odd images: each node hosts one of each
			half, err := im.Split(all, img%2, img)
			if err != nil {
				return err
			}
			rnd := rand.New(rand.NewPCG(uint64(img), 1))
			for it := range 200 {
				rdst, cdst := make([]byte, 8*row.Size()), make([]byte, 8*col.Size())
				rsrc, csrc := make([]byte, 8), make([]byte, 8)
				binary.LittleEndian.PutUint64(rsrc, uint64(it*1000+img))
				binary.LittleEndian.PutUint64(csrc, uint64(it*1000+img+500))
				hr, err := im.GatherAllNB(row, rdst, rsrc, 8, allMy)
				if err != nil {
					return err
				}
				hc, err := im.GatherAllNB(col, cdst, csrc, 8, allMy)
				if err != nil {
					return err
				}
				hdst := make([]byte, 8)
				hh, err := im.BroadcastNB(half, hdst, it%half.Size(), rsrc, 8, allMy)
				if err != nil {
					return err
				}
				if rnd.IntN(2) == 0 {
					time.Sleep(time.Duration(rnd.IntN(20)) * time.Microsecond)
				}
				hs := []gsync.Handle{hc, hh, hr}
				if err := gsync.WaitAll(context.Background(), hs); err != nil {
					return err
				}
				for r := range row.Size() {
					if got := binary.LittleEndian.Uint64(rdst[8*r:]); got != uint64(it*1000+row.Image(r)) {
						return fmt.Errorf("it %d row block %d = %d", it, r, got)
					}
				}
				for r := range col.Size() {
					if got := binary.LittleEndian.Uint64(cdst[8*r:]); got != uint64(it*1000+col.Image(r)+500) {
						return fmt.Errorf("it %d column block %d = %d", it, r, got)
					}
				}
				if got := binary.LittleEndian.Uint64(hdst); got != uint64(it*1000+half.Image(it%half.Size())) {
					return fmt.Errorf("it %d half broadcast = %d", it, got)
				}
			}
			for _, tm := range []*images.Team{row, col, half} {
				if err := im.Destroy(tm); err != nil {
					return err
				}
			}
			return im.Barrier(all)
		})
	if err != nil {
		t.Fatal(err)
	}
}

// TestTeamCycles makes and destroys teams 4096 times and checks that the
// heap, the goroutines, the node's teams and its contexts do not grow.
func TestTeamCycles(t *testing.T) {
	cycles := 4096
	if testing.Short() {
		cycles = 512
	}
	per := []int{2, 1, 2}
	type sample struct {
		heap            uint64
		goroutines      int
		teams, contexts int
		live            int
	}
	samples := make(chan sample, 2)
	measure := func(im *coll.Image, nd *colltest.Node) error {
		nd.Rendezvous("measure", nd.Images())
		if im.ImageNum() == 0 { // one image measures; every node's images are at a barrier or this rendezvous
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			samples <- sample{ms.HeapAlloc, runtime.NumGoroutine(), im.TeamsLive(), im.ContextsInUse(), im.Live()}
		}
		nd.Rendezvous("measure", nd.Images())
		return im.Barrier(im.TeamAll())
	}
	err := colltest.RunImages(per, colltest.Options{}, coll.Options{}, nil, 5*time.Minute, func(im *coll.Image, nd *colltest.Node) error {
		all, img := im.TeamAll(), im.ImageNum()
		cycle := func(i int) error {
			var tm *images.Team
			var err error
			if i%2 == 0 {
				tm, err = im.Split(all, (img+i)%2, -img)
			} else {
				tm, err = im.TeamFromImages(all, []int{4, 0, 2})
			}
			if err != nil || tm == nil {
				return err
			}
			dst := make([]byte, 8*tm.Size())
			if err := im.GatherAll(tm, dst, make([]byte, 8), 8, allMy); err != nil {
				return err
			}
			return im.Destroy(tm)
		}
		for i := range 256 { // warm-up: caches and pools at their working size
			if err := cycle(i); err != nil {
				return err
			}
		}
		if err := measure(im, nd); err != nil {
			return err
		}
		for i := range cycles {
			if err := cycle(i); err != nil {
				return fmt.Errorf("cycle %d: %w", i, err)
			}
		}
		return measure(im, nd)
	})
	if err != nil {
		t.Fatal(err)
	}
	before, after := <-samples, <-samples
	t.Logf("%d cycles: heap %d -> %d bytes, goroutines %d -> %d, teams %d -> %d, contexts %d -> %d",
		cycles, before.heap, after.heap, before.goroutines, after.goroutines, before.teams, after.teams, before.contexts, after.contexts)
	if after.teams != 0 || after.contexts != 1 || after.live > 1 {
		t.Errorf("after destroying every team: %d teams, %d contexts (TeamAll's is 1), %d live operations", after.teams, after.contexts, after.live)
	}
	if after.goroutines > before.goroutines {
		t.Errorf("goroutines grew from %d to %d", before.goroutines, after.goroutines)
	}
	// A leak of one small object per cycle would be >= 4096 * 64 bytes.
	if after.heap > before.heap+128<<10 {
		t.Errorf("heap grew from %d to %d bytes over %d cycles", before.heap, after.heap, cycles)
	}
}
