package coll_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	"github.com/gocoll/gocoll/images"
	"github.com/gocoll/gocoll/loggp"
	"github.com/gocoll/gocoll/reducefn"
	gsync "github.com/gocoll/gocoll/sync"
)

// mreduction is a reduction as the images of a node make it in one form:
// each for itself, or a representative for the node's members of the team.
type mreduction struct {
	reduction
	t  *images.Team
	fm colltest.Form
}

// startOn initiates r for the members ranks (the caller alone, or every
// member of the node for a representative) with buffers it allocates at
// offsets of their own; check verifies them all.
func (r mreduction) startOn(im *coll.Image, ranks []int, f gsync.Flags) (gsync.Handle, func() error, error) {
	t, P := r.t, r.t.Size()
	ref := reference(r.fn, r.count, r.es, r.seed)
	off := func(rank int) int { return r.es * (1 + (t.Image(rank)*3+r.seed)%5) }
	buf := func(rank int, b []byte) []byte { // b at an offset of its own
		if b == nil {
			return nil
		}
		o := off(rank)
		return append(make([]byte, o, o+len(b)), b...)[o:]
	}
	var srcs, dsts [][]byte
	for _, rank := range ranks {
		src := localArray(r.src, P, rank, r.count, r.es, r.fn, r.seed)
		if len(src) == 0 && f&gsync.Local != 0 {
			src = nil
		}
		var dst []byte
		switch r.kind {
		case "reduce", "all":
			dst = bytes.Repeat([]byte{0xEE}, r.es)
		default:
			dst = bytes.Repeat([]byte{0xEE}, len(localArray(r.dst, P, rank, r.count, r.es, r.fn, r.seed)))
		}
		srcs, dsts = append(srcs, buf(rank, src)), append(dsts, buf(rank, dst))
	}
	check := func() error {
		for i, rank := range ranks {
			if err := r.checkDst(P, rank, dsts[i], ref); err != nil {
				return err
			}
		}
		return nil
	}
	single := r.fm == colltest.EveryImage || r.fm == colltest.RepresentativeSingle
	var h gsync.Handle
	var err error
	if single {
		src, dst := srcs[0], dsts[0]
		switch r.kind {
		case "reduce":
			h, err = im.ReduceNB(t, r.root, dst, src, r.src, r.es, r.count, r.fn, 0, f)
		case "all":
			h, err = im.ReduceAllNB(t, dst, src, r.src, r.es, r.count, r.fn, 0, f)
		case "prefix":
			h, err = im.PrefixReduceNB(t, dst, r.dst, src, r.src, r.es, r.count, r.fn, 0, f)
		default:
			h, err = im.ExclusivePrefixReduceNB(t, dst, r.dst, src, r.src, r.es, r.count, r.fn, 0, f)
		}
		return h, check, err
	}
	// m forms: NImages entries with Single, the node's images with Local
	size, base := im.Images(), 0
	if f&gsync.Single == 0 {
		size, base = im.Table().On(im.Node()), im.Table().First(im.Node())
	}
	dl, sl := make([][]byte, size), make([][]byte, size)
	var rootDst []byte
	for i, rank := range ranks {
		dl[t.Image(rank)-base], sl[t.Image(rank)-base] = dsts[i], srcs[i]
		if rank == r.root {
			rootDst = dsts[i]
		}
	}
	if rootDst == nil && f&gsync.Single != 0 {
		rootDst = dsts[0] // with Single any buffer serves off the root
	}
	switch r.kind {
	case "reduce":
		h, err = im.ReduceMNB(t, r.root, rootDst, sl, r.src, r.es, r.count, r.fn, 0, f)
	case "all":
		h, err = im.ReduceAllMNB(t, dl, sl, r.src, r.es, r.count, r.fn, 0, f)
	case "prefix":
		h, err = im.PrefixReduceMNB(t, dl, r.dst, sl, r.src, r.es, r.count, r.fn, 0, f)
	default:
		h, err = im.ExclusivePrefixReduceMNB(t, dl, r.dst, sl, r.src, r.es, r.count, r.fn, 0, f)
	}
	return h, check, err
}

// runMReductions runs the list on team t in every form the table allows,
// blocking, and all of the list at once non-blocking.
func runMReductions(im *coll.Image, nd *colltest.Node, t *images.Team, list []reduction) error {
	me := t.Rank(im.ImageNum())
	local := t.Members(t.NodeRank(im.Node()))
	group := fmt.Sprintf("reductions %d", t.ID())
	onePerNode := im.Images() == im.Table().Nodes()
	for _, fm := range []colltest.Form{colltest.EveryImage, colltest.EveryImageM, colltest.Representative, colltest.RepresentativeSingle} {
		if fm == colltest.RepresentativeSingle && !onePerNode {
			continue
		}
		for _, addr := range []gsync.Flags{gsync.Local, gsync.Single} {
			if fm == colltest.EveryImageM && addr == gsync.Local {
				continue
			}
			f := gsync.InMySync | gsync.OutMySync | addr
			rep := fm == colltest.Representative || fm == colltest.RepresentativeSingle
			ranks := []int{me}
			if rep {
				ranks = local
			} else {
				f |= gsync.AllThreads
			}
			if rep {
				nd.Rendezvous(group, len(local))
			}
			if !rep || local[0] == me {
				var hs []gsync.Handle
				var checks []func() error
				for i, red := range list {
					r := mreduction{red, t, fm}
					h, check, err := r.startOn(im, ranks, f)
					if err != nil {
						return fmt.Errorf("%v %v %v: %w", r, fm, addr, err)
					}
					if i%2 == 0 { // blocking
						if err := h.Wait(context.Background()); err != nil {
							return fmt.Errorf("%v %v %v: %w", r, fm, addr, err)
						}
						if err := check(); err != nil {
							return fmt.Errorf("%v %v: %w", fm, addr, err)
						}
						continue
					}
					hs, checks = append(hs, h), append(checks, check)
				}
				if err := gsync.WaitAll(context.Background(), hs); err != nil {
					return err
				}
				for _, c := range checks {
					if err := c(); err != nil {
						return fmt.Errorf("%v %v: %w", fm, addr, err)
					}
				}
			}
			if rep {
				nd.Rendezvous(group, len(local))
			}
		}
	}
	return im.Barrier(t)
}

// reductionList are reductions of every kind, commutative and not, over
// the test layouts for a team of P images.
func reductionList(P int) []reduction {
	var list []reduction
	for i, fn := range []int{fnSumI64, fnMat2, fnConcat} {
		es := map[int]int{fnSumI64: 16, fnMat2: 32, fnConcat: 48}[fn]
		for _, count := range []int{1, 9, 3*P + 2} {
			ls := layoutsFor(count, P)
			for li, name := range []string{"cyclic", "blocked", "block-cyclic", "unaligned", "indefinite-last"} {
				l := ls[name]
				seed := 10*i + li
				list = append(list,
					reduction{kind: "reduce", fn: fn, es: es, count: count, src: l, root: (count + li) % P, seed: seed},
					reduction{kind: "all", fn: fn, es: es, count: count, src: l, seed: seed},
					reduction{kind: "prefix", fn: fn, es: es, count: count, src: l, dst: l, seed: seed},
					reduction{kind: "exprefix", fn: fn, es: es, count: count, src: l, dst: ls["cyclic"], seed: seed},
				)
			}
		}
	}
	return list
}

// directList is a ReduceAll of one element per image (Cyclic, count P) for
// each function: on a team that lives on one node it runs without a
// schedule (internal/local/direct.go).
func directList(P int) []reduction {
	var list []reduction
	for i, fn := range []int{fnSumI64, fnMat2, fnConcat} {
		es := map[int]int{fnSumI64: 16, fnMat2: 32, fnConcat: 48}[fn]
		list = append(list, reduction{kind: "all", fn: fn, es: es, count: P, src: coll.Cyclic, seed: 40 + i})
	}
	// Large elements run directly too: split into pieces (foldChunk) with
	// a short last one, also beyond maxKeptFold, and a function that
	// allows no split, folded whole.
	for i, x := range []struct{ fn, es int }{{fnSumI64, 8<<10 + 16}, {fnSumI64, 40<<10 + 24}, {fnSumI64, 2<<20 + 8}, {fnConcat, 20 << 10}} {
		list = append(list, reduction{kind: "all", fn: x.fn, es: x.es, count: P, src: coll.Cyclic, seed: 50 + i})
	}
	return list
}

// TestReductionsImages: with several images per node, in every form, the
// reductions give exactly the sequential fold of the array (which is what
// one image per node gives), non-commutative operators in image order; on
// TeamAll and on a team whose rank order interleaves nodes (not node-major).
func TestReductionsImages(t *testing.T) {
	for i, per := range [][]int{{2, 2}, {1, 3, 2}, {4}, {3, 3, 3}, {2, 1, 1, 3, 1}} {
		t.Run(fmt.Sprint(per), func(t *testing.T) {
			t.Parallel()
			delay := colltest.Options{MaxDelay: 20 * time.Microsecond, Seed: uint64(i + 1)}
			err := colltest.RunImages(per, delay, coll.Options{Tree: coll.Tree(i % 4)}, table, 3*time.Minute,
				func(im *coll.Image, nd *colltest.Node) error {
					all := im.TeamAll()
					if err := runMReductions(im, nd, all, reductionList(all.Size())); err != nil {
						return fmt.Errorf("TeamAll: %w", err)
					}
					// Interleaved: even images first, then odd ones.
					var order []int
					for _, odd := range []int{0, 1} {
						for img := odd; img < im.Images(); img += 2 {
							order = append(order, img)
						}
					}
					mixed, err := im.TeamFromImages(all, order)
					if err != nil {
						return err
					}
					if err := runMReductions(im, nd, mixed, reductionList(mixed.Size())); err != nil {
						return fmt.Errorf("interleaved team (node-major %v): %w", mixed.NodeMajor(), err)
					}
					return im.Destroy(mixed)
				})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestOneNodeReductions: on a team that lives on one node, Reduce and
// ReduceAll calls with AllThreads run without the engine (localRec.run). Images
// of one call may mix blocking and non-blocking forms and arrive in any
// order; every result is the sequential fold (in image order for
// non-commutative functions), bitwise the same in every output mode, and
// disagreements and overlaps are errors.
func TestOneNodeReductions(t *testing.T) {
	for _, T := range []int{2, 3, 4} {
		t.Run(fmt.Sprint(T), func(t *testing.T) {
			shared := make([]byte, 8) // a destination two images pass
			err := colltest.RunImages([]int{T}, colltest.Options{}, coll.Options{}, table, time.Minute, func(im *coll.Image, _ *colltest.Node) error {
				all := im.TeamAll()
				me := all.Rank(im.ImageNum())
				for i, red := range append(reductionList(T), directList(T)...) {
					if red.kind != "reduce" && red.kind != "all" {
						continue
					}
					for j, mode := range []gsync.Flags{gsync.InMySync | gsync.OutMySync, gsync.InNoSync | gsync.OutNoSync, gsync.InMySync | gsync.OutAllSync} {
						r := mreduction{red, all, colltest.EveryImage}
						if (i+j+me)%3 == 0 { // arrive late, now and then
							time.Sleep(time.Duration(me) * 50 * time.Microsecond)
						}
						h, check, err := r.startOn(im, []int{me}, mode|gsync.Local|gsync.AllThreads)
						if err != nil {
							return fmt.Errorf("%v: %w", r, err)
						}
						if (i+me)%2 == 1 { // this image waits later than the others return
							time.Sleep(20 * time.Microsecond)
						}
						if err := h.Wait(context.Background()); err != nil {
							return fmt.Errorf("%v: %w", r, err)
						}
						if err := check(); err != nil {
							return fmt.Errorf("%v %v: %w", r, mode, err)
						}
					}
				}
				// Floating point: the same bits in every output mode.
				src := []float64{0.1 * float64(me+1), 1e16 / float64(me+3), -1e16 / float64(me+2)}
				var bits [2]uint64
				for k, mode := range []gsync.Flags{gsync.OutMySync, gsync.OutAllSync} {
					res := make([]float64, 1)
					if err := im.ReduceAll(all, reducefn.Bytes(res), reducefn.Bytes(src), coll.Layout{BlockSize: 3}, 8, 3*T, fnSumF64, 0,
						gsync.InMySync|mode|gsync.Local|gsync.AllThreads); err != nil {
						return err
					}
					bits[k] = math.Float64bits(res[0])
				}
				if bits[0] != bits[1] {
					return fmt.Errorf("sum %x with OUT_MYSYNC, %x with OUT_ALLSYNC", bits[0], bits[1])
				}
				// Disagreement: every image that waits for the others hears of it.
				b, d := make([]byte, 16), make([]byte, 16)
				count := 2 * T
				if me == T-1 {
					count = 2*T - 1
				}
				err := im.ReduceAll(all, d, b[:8*((count+T-1)/T)], coll.Layout{BlockSize: (count + T - 1) / T}, 8, count, fnSumI64, 0, allMy)
				if me != T-1 && !errors.Is(err, coll.ErrArgsDiffer) {
					return fmt.Errorf("image %d: %v, want ErrArgsDiffer", me, err)
				}
				// Overlap: two images with one destination.
				dst := make([]byte, 8)
				if me < 2 {
					dst = shared
				}
				if err := im.ReduceAll(all, dst, make([]byte, 8), coll.Cyclic, 8, T, fnSumI64, 0, allMy); !errors.Is(err, coll.ErrOverlap) {
					return fmt.Errorf("image %d, shared destination: %v, want ErrOverlap", me, err)
				}
				// Overlap: image 0's destination is image 1's source.
				d, sb := make([]byte, 8), make([]byte, 8)
				switch me {
				case 0:
					d = shared
				case 1:
					sb = shared
				}
				if err := im.ReduceAll(all, d, sb, coll.Cyclic, 8, T, fnSumI64, 0, allMy); !errors.Is(err, coll.ErrOverlap) {
					return fmt.Errorf("image %d, a destination another's source: %v, want ErrOverlap", me, err)
				}
				return im.Barrier(all)
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestSplitReductions: ReduceAll of vectors that the model splits (a fold
// made costly enough that every splittable vector splits: reduce-scatter,
// then gather_all), and Reduce beside them, give the sequential fold, in
// every form, with one and several images per node and a number of nodes
// that does not divide the vector evenly.
func TestSplitReductions(t *testing.T) {
	costlyFold := coll.Options{Model: loggp.Params{O: 0.1, Gap: 0.1, G: 0.0001, Fold: 1}}
	for i, per := range [][]int{{1, 1}, {1, 1, 1}, {2, 1, 3}, {1, 1, 1, 1, 1}} {
		t.Run(fmt.Sprint(per), func(t *testing.T) {
			t.Parallel()
			delay := colltest.Options{MaxDelay: 20 * time.Microsecond, Seed: uint64(i + 1)}
			err := colltest.RunImages(per, delay, costlyFold, table, 3*time.Minute,
				func(im *coll.Image, nd *colltest.Node) error {
					all := im.TeamAll()
					P := all.Size()
					var list []reduction
					for k, es := range []int{8 * len(per), 8*len(per) + 24, 4 << 10} {
						for _, count := range []int{1, P, 3*P + 2} {
							ls := layoutsFor(count, P)
							for li, name := range []string{"cyclic", "blocked", "unaligned"} {
								seed := 100 + 10*k + li
								list = append(list,
									reduction{kind: "reduce", fn: fnSumI64, es: es, count: count, src: ls[name], root: (count + li + k) % P, seed: seed},
									reduction{kind: "all", fn: fnSumI64, es: es, count: count, src: ls[name], seed: seed})
							}
						}
					}
					return runMReductions(im, nd, all, list)
				})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}
