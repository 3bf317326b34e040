package coll_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	"github.com/gocoll/gocoll/reducefn"
	gsync "github.com/gocoll/gocoll/sync"
)

// BenchmarkInProcess measures gocoll's own cost per collective: 8-byte
// blocks (one float64 for the reductions) on the in-process conduit with
// two nodes and no delays, IN_MYSYNC|OUT_MYSYNC, the same buffers every
// call as in an iterative code. No network is involved, so time and
// allocations are the engine's (validation, schedule, executor, polling)
// and the in-process conduit's. A Barrier every 64 calls keeps the root
// from running far ahead (the in-process conduit matches messages by a
// linear search).
//
//	go test -run xxx -bench InProcess -benchmem ./coll
func BenchmarkInProcess(b *testing.B) {
	const f = gsync.InMySync | gsync.OutMySync | gsync.Local
	const P = 2
	type call func(im *coll.Image, dst, src []byte) error
	one := coll.OnImage(0)
	fns := []reducefn.Entry{reducefn.Sum[float64]()}
	const fnSumF64 = 0
	for _, c := range []struct {
		name string
		op   call
	}{
		{"Broadcast", func(im *coll.Image, dst, src []byte) error {
			return im.Broadcast(im.TeamAll(), dst[:8], 0, src[:8], 8, f)
		}},
		{"Gather", func(im *coll.Image, dst, src []byte) error { return im.Gather(im.TeamAll(), 0, dst, src[:8], 8, f) }},
		{"GatherAll", func(im *coll.Image, dst, src []byte) error { return im.GatherAll(im.TeamAll(), dst, src[:8], 8, f) }},
		{"Exchange", func(im *coll.Image, dst, src []byte) error { return im.Exchange(im.TeamAll(), dst, src, 8, f) }},
		{"Reduce", func(im *coll.Image, dst, src []byte) error {
			return im.Reduce(im.TeamAll(), 0, dst[:8], src[:8], coll.Cyclic, 8, P, fnSumF64, 0, f)
		}},
		{"ReduceAll", func(im *coll.Image, dst, src []byte) error {
			return im.ReduceAll(im.TeamAll(), dst[:8], src[:8], coll.Cyclic, 8, P, fnSumF64, 0, f)
		}},
		{"PrefixReduce", func(im *coll.Image, dst, src []byte) error {
			return im.PrefixReduce(im.TeamAll(), dst[:8], coll.Cyclic, src[:8], coll.Cyclic, 8, P, fnSumF64, 0, f)
		}},
		{"ReduceAllOnImage", func(im *coll.Image, dst, src []byte) error {
			return im.ReduceAll(im.TeamAll(), dst[:8], src[:8], one, 8, 1, fnSumF64, 0, f)
		}},
		// 16 aggregated collectives per op (aggregate.go), each on buffers of its own
		{"Agg16Broadcast", func(im *coll.Image, dst, src []byte) error {
			return aggregate16(func(m int, g gsync.Flags) (gsync.Handle, error) {
				return im.BroadcastNB(im.TeamAll(), dst[8*m:8*m+8], 0, src[8*m:8*m+8], 8, g)
			})
		}},
		{"Agg16ReduceAll", func(im *coll.Image, dst, src []byte) error {
			return aggregate16(func(m int, g gsync.Flags) (gsync.Handle, error) {
				return im.ReduceAllNB(im.TeamAll(), dst[8*m:8*m+8], src[8*m:8*m+8], coll.Cyclic, 8, P, fnSumF64, 0, g)
			})
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			w := colltest.NewWorld(P, colltest.Options{})
			ims := make([]*coll.Image, P)
			var wg sync.WaitGroup
			errs := make([]error, P)
			for i := range P {
				wg.Go(func() { ims[i], errs[i] = coll.Init(w.Conduit(i), nil, 0, fns, 0, coll.Options{}) })
			}
			wg.Wait()
			for _, err := range errs {
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range P {
				wg.Go(func() {
					dst, src := make([]byte, 8*16*P), make([]byte, 8*16*P)
					for k := range b.N {
						err := c.op(ims[i], dst, src)
						if err == nil && k%64 == 63 {
							err = ims[i].Barrier(ims[i].TeamAll())
						}
						if err != nil {
							errs[i] = fmt.Errorf("node %d: %w", i, err)
							return
						}
					}
					errs[i] = ims[i].Barrier(ims[i].TeamAll())
				})
			}
			wg.Wait()
			for _, err := range errs {
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkImagesOneNode measures one node with two images: the node's
// part is copies only. AllThreads forms run both images' goroutines; the m
// forms one representative. Compare with BenchmarkInProcess (two nodes of
// one image) and, over MPI, with collbench's gocoll.T2 rows.
//
//	go test -run xxx -bench ImagesOneNode -benchmem ./coll
func BenchmarkImagesOneNode(b *testing.B) {
	fns := []reducefn.Entry{reducefn.Sum[float64]()}
	const local = gsync.InMySync | gsync.OutMySync | gsync.Local
	for _, size := range []int{8, 64 << 10} {
		for _, c := range []struct {
			name    string
			threads bool
			op      func(im *coll.Image, dsts, srcs [][]byte, me int) error
		}{
			{"Broadcast", true, func(im *coll.Image, dsts, srcs [][]byte, me int) error {
				return im.Broadcast(im.TeamAll(), dsts[me], 0, srcs[0], len(srcs[0]), local|gsync.AllThreads)
			}},
			{"BroadcastM", false, func(im *coll.Image, dsts, srcs [][]byte, _ int) error {
				return im.BroadcastM(im.TeamAll(), dsts, 0, srcs[0], len(srcs[0]), local)
			}},
			{"ReduceAll", true, func(im *coll.Image, dsts, srcs [][]byte, me int) error {
				return im.ReduceAll(im.TeamAll(), dsts[me], srcs[me], coll.Layout{BlockSize: len(srcs[me]) / 8}, 8, len(srcs[me])/4, 0, 0, local|gsync.AllThreads)
			}},
			{"ReduceAllM", false, func(im *coll.Image, dsts, srcs [][]byte, _ int) error {
				return im.ReduceAllM(im.TeamAll(), dsts, srcs, coll.Layout{BlockSize: len(srcs[0]) / 8}, 8, len(srcs[0])/4, 0, 0, local)
			}},
		} {
			b.Run(fmt.Sprintf("%s/%d", c.name, size), func(b *testing.B) {
				dsts := [][]byte{make([]byte, size), make([]byte, size)}
				srcs := [][]byte{make([]byte, size), make([]byte, size)}
				if c.name[:6] == "Reduce" {
					dsts = [][]byte{make([]byte, 8), make([]byte, 8)}
				}
				err := colltest.RunImages([]int{2}, colltest.Options{}, coll.Options{}, fns, time.Hour, func(im *coll.Image, _ *colltest.Node) error {
					me := im.ImageNum()
					if !c.threads && me != 0 {
						return nil
					}
					if me == 0 {
						b.ReportAllocs()
						b.ResetTimer()
					}
					for range b.N {
						if err := c.op(im, dsts, srcs, me); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
			})
		}
	}
}

// BenchmarkRendezvousFloor is the floor under ImagesOneNode's AllThreads
// ReduceAll: two goroutines that sum one float64 each through shared
// memory and nothing else (each writes its slot and counts itself in; the
// second to arrive folds, writes both results and says so; the first
// spins on that). It tells which of the machine's two states a run is in
// (cache lines move between its cores at two costs), and how far above
// the least a rendezvous costs gocoll's arrival records are.
func BenchmarkRendezvousFloor(b *testing.B) {
	type slot struct {
		src, dst *float64
		_        [48]byte
	}
	var r struct {
		arrived atomic.Uint64
		_       [56]byte
		done    atomic.Uint64
		_       [56]byte
		slots   [2]slot
	}
	srcs, dsts := [2]float64{1, 2}, [2]float64{}
	var wg sync.WaitGroup
	for me := range 2 {
		wg.Go(func() {
			for range b.N {
				r.slots[me].src, r.slots[me].dst = &srcs[me], &dsts[me]
				c := r.arrived.Add(1)
				if c%2 == 0 {
					s := *r.slots[0].src + *r.slots[1].src
					*r.slots[0].dst, *r.slots[1].dst = s, s
					r.done.Store(c / 2)
					continue
				}
				for n := 1; r.done.Load() < (c+1)/2; n++ {
					if n%64 == 0 {
						runtime.Gosched()
					}
				}
			}
		})
	}
	wg.Wait()
	if dsts[0] != 3 || dsts[1] != 3 {
		b.Fatalf("sums %v, want 3", dsts)
	}
}

// BenchmarkRingFloor is the floor under the ring (internal/local/ring.go): two
// goroutines that sum one float64 each, each writing its value and call
// number into a line of its own (two slots, alternating) and reading the
// other's, with no shared count. Beside BenchmarkRendezvousFloor it says
// what a rendezvous without a record can save.
func BenchmarkRingFloor(b *testing.B) {
	type line struct {
		at  atomic.Uint64
		val float64
		_   [48]byte
	}
	var ring [2][2]line // [slot][member]
	srcs, dsts := [2]float64{1, 2}, [2]float64{}
	var wg sync.WaitGroup
	for me := range 2 {
		wg.Go(func() {
			for i := range uint64(b.N) {
				sl := &ring[i%2]
				sl[me].val = srcs[me]
				sl[me].at.Store(i + 1)
				for n := 1; sl[1-me].at.Load() != i+1; n++ {
					if n%256 == 0 {
						runtime.Gosched()
					}
				}
				dsts[me] = sl[0].val + sl[1].val
			}
		})
	}
	wg.Wait()
	if dsts[0] != 3 || dsts[1] != 3 {
		b.Fatalf("sums %v, want 3", dsts)
	}
}

// aggregate16 starts 16 members with flags f (Aggregate on all but the
// last) and waits for the aggregate.
func aggregate16(member func(m int, f gsync.Flags) (gsync.Handle, error)) error {
	const f = gsync.InMySync | gsync.OutMySync | gsync.Local
	var h gsync.Handle
	for m := range 16 {
		g := f
		if m < 15 {
			g |= gsync.Aggregate
		}
		var err error
		if h, err = member(m, g); err != nil {
			return err
		}
	}
	return h.Wait(context.Background())
}

// BenchmarkAggregateLarge measures aggregates of 16 members of one size on
// the in-process conduit with two nodes (as collbench's gocoll.Agg16 rows
// over MPI), against the same 16 members started one by one without the
// flag (Alone16), each member on buffers of its own, the same buffers
// every iteration. Time includes the in-process conduit's copies.
//
//	go test -run xxx -bench AggregateLarge -benchmem ./coll
func BenchmarkAggregateLarge(b *testing.B) {
	const P = 2
	const f = gsync.InMySync | gsync.OutMySync | gsync.Local
	fns := []reducefn.Entry{reducefn.Sum[float64]()}
	type member func(im *coll.Image, dst, src []byte, n int, g gsync.Flags) (gsync.Handle, error)
	bcast := func(im *coll.Image, dst, src []byte, n int, g gsync.Flags) (gsync.Handle, error) {
		return im.BroadcastNB(im.TeamAll(), dst[:n], 0, src[:n], n, g)
	}
	all := func(im *coll.Image, dst, src []byte, n int, g gsync.Flags) (gsync.Handle, error) {
		return im.ReduceAllNB(im.TeamAll(), dst[:n], src[:n], coll.Cyclic, n, P, 0, 0, g)
	}
	for _, c := range []struct {
		name string
		op   member
	}{{"Broadcast", bcast}, {"ReduceAll", all}} {
		for _, agg := range []bool{true, false} {
			for _, size := range []int{8, 8 << 10, 64 << 10, 1 << 20} {
				name := fmt.Sprintf("Agg16%s/%d", c.name, size)
				if !agg {
					name = fmt.Sprintf("Alone16%s/%d", c.name, size)
				}
				b.Run(name, func(b *testing.B) {
					var dsts, srcs [2][16][]byte
					for i := range P {
						for m := range 16 {
							dsts[i][m], srcs[i][m] = make([]byte, size), make([]byte, size)
						}
					}
					err := colltest.RunImages([]int{1, 1}, colltest.Options{}, coll.Options{}, fns, time.Hour, func(im *coll.Image, _ *colltest.Node) error {
						me := im.ImageNum()
						hs := make([]gsync.Handle, 16)
						one := func() error {
							for m := range 16 {
								g := f
								if agg && m < 15 {
									g |= gsync.Aggregate
								}
								h, err := c.op(im, dsts[me][m], srcs[me][m], size, g)
								if err != nil {
									return err
								}
								hs[m] = h
							}
							return gsync.WaitAll(context.Background(), hs)
						}
						if err := one(); err != nil { // the warm-up
							return err
						}
						if err := im.Barrier(im.TeamAll()); err != nil {
							return err
						}
						if me == 0 {
							b.ReportAllocs()
							b.ResetTimer()
						}
						for range b.N {
							if err := one(); err != nil {
								return err
							}
						}
						return im.Barrier(im.TeamAll())
					})
					if err != nil {
						b.Fatal(err)
					}
				})
			}
		}
	}
}
