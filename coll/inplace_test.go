package coll_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	"github.com/gocoll/gocoll/images"
	gsync "github.com/gocoll/gocoll/sync"
)

// runInPlace runs r with the destination in the source's own buffer (the
// same first byte, as MPI_IN_PLACE) wherever this image holds elements, and
// checks the results against the sequential fold; the test operators
// panic if the engine hands them results aliasing an operand.
func (r reduction) runInPlace(im *coll.Image, t *images.Team, f gsync.Flags) error {
	P, rank := t.Size(), t.Rank(im.ImageNum())
	src := localArray(r.src, P, rank, r.count, r.es, r.fn, r.seed)
	need := r.es
	if r.kind == "prefix" || r.kind == "exprefix" {
		need = len(localArray(r.dst, P, rank, r.count, r.es, r.fn, r.seed))
	}
	buf := make([]byte, max(len(src), need))
	copy(buf, src)
	dst := buf[:need]
	if len(src) == 0 {
		src = nil // holds no element: nothing to do in place
	} else {
		src = buf[:len(src)]
	}
	var err error
	switch r.kind {
	case "reduce":
		err = im.Reduce(t, r.root, dst, src, r.src, r.es, r.count, r.fn, 0, f)
	case "all":
		err = im.ReduceAll(t, dst, src, r.src, r.es, r.count, r.fn, 0, f)
	case "prefix":
		err = im.PrefixReduce(t, dst, r.dst, src, r.src, r.es, r.count, r.fn, 0, f)
	default:
		err = im.ExclusivePrefixReduce(t, dst, r.dst, src, r.src, r.es, r.count, r.fn, 0, f)
	}
	if err != nil {
		return fmt.Errorf("%v in place: %w", r, err)
	}
	if err := im.Barrier(t); err != nil { // OUT_NOSYNC results are defined after it
		return err
	}
	if err := r.checkDst(P, rank, dst, reference(r.fn, r.count, r.es, r.seed)); err != nil {
		return fmt.Errorf("in place: %w", err)
	}
	return nil
}

// TestInPlaceReductions: every reduction with the destination in the
// source's buffer gives the results of separate buffers, for commutative
// and non-commutative operators, every layout (reblocking prefixes
// included), one and several rows, and every sync mode.
func TestInPlaceReductions(t *testing.T) {
	for _, P := range []int{1, 2, 3, 5} {
		var list []reduction
		for _, fn := range []int{fnSumI64, fnMat2, fnConcat} {
			es := map[int]int{fnSumI64: 16, fnMat2: 32, fnConcat: 48}[fn]
			for _, count := range []int{P, 3*P + 2} { // one element per image, and several rows
				ls := layoutsFor(count, P)
				for _, name := range []string{"cyclic", "blocked", "block-cyclic", "unaligned", "indefinite-last"} {
					l := ls[name]
					list = append(list,
						reduction{kind: "reduce", fn: fn, es: es, count: count, src: l, root: count % P, seed: count},
						reduction{kind: "all", fn: fn, es: es, count: count, src: l, seed: count},
						reduction{kind: "prefix", fn: fn, es: es, count: count, src: l, dst: l, seed: count},
						reduction{kind: "exprefix", fn: fn, es: es, count: count, src: l, dst: l, seed: count},
						reduction{kind: "prefix", fn: fn, es: es, count: count, src: l, dst: ls["cyclic"], seed: count},
						reduction{kind: "exprefix", fn: fn, es: es, count: count, src: l, dst: ls["blocked"], seed: count},
					)
				}
			}
		}
		// A large element (the reduce-scatter path of ReduceAll).
		list = append(list, reduction{kind: "all", fn: fnSumI64, es: 64 << 10, count: P, src: coll.Cyclic})
		t.Run(fmt.Sprintf("P=%d", P), func(t *testing.T) {
			t.Parallel()
			modes := []gsync.Flags{gsync.InMySync | gsync.OutMySync, gsync.InNoSync | gsync.OutNoSync, gsync.InAllSync | gsync.OutAllSync}
			err := runWithTable(P, func(im *coll.Image) error {
				for i, r := range list {
					f := modes[i%len(modes)] | []gsync.Flags{gsync.Local, gsync.Single}[i%2]
					if err := r.runInPlace(im, im.TeamAll(), f); err != nil {
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

// TestInPlaceImages: in place with several images per node, each image
// calling for itself (AllThreads), on a team over several nodes and on one
// that lives on one node (whose small reductions the images serve
// themselves).
func TestInPlaceImages(t *testing.T) {
	for _, per := range [][]int{{2, 1, 2}, {3}} {
		t.Run(fmt.Sprint(per), func(t *testing.T) {
			t.Parallel()
			err := colltest.RunImages(per, colltest.Options{MaxDelay: 20 * time.Microsecond}, coll.Options{}, table, time.Minute,
				func(im *coll.Image, _ *colltest.Node) error {
					P := im.Images()
					for i, fn := range []int{fnSumI64, fnMat2} {
						es := 32
						for _, l := range []coll.Layout{coll.Cyclic, {BlockSize: 2, Offset: 1}} {
							// one element per image (on one node: internal/local/direct.go), and several
							for _, count := range []int{P, 2*P + i} {
								for _, kind := range []string{"reduce", "all", "prefix", "exprefix"} {
									r := reduction{kind: kind, fn: fn, es: es, count: count, src: l, dst: l, root: P - 1, seed: i}
									f := gsync.InMySync | gsync.OutMySync | gsync.Local | gsync.AllThreads
									if err := r.runInPlace(im, im.TeamAll(), f); err != nil {
										return err
									}
								}
							}
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

// TestPartialOverlapReductions: a destination that overlaps the source
// without starting where it does is ErrOverlap, on every reduction.
func TestPartialOverlapReductions(t *testing.T) {
	const P = 2
	err := runWithTable(P, func(im *coll.Image) error {
		tm := im.TeamAll()
		f := gsync.InMySync | gsync.OutMySync | gsync.Local
		buf := make([]byte, 8*8)
		src := buf[:4*8] // 4 elements per image with blocks of 4
		blk := coll.Layout{BlockSize: 4}
		cases := []struct {
			name string
			err  error
		}{
			{"Reduce", im.Reduce(tm, im.ImageNum(), buf[8:16], src, blk, 8, 4*P, fnSumI64, 0, f)},
			{"ReduceAll", im.ReduceAll(tm, buf[24:32], src, blk, 8, 4*P, fnSumI64, 0, f)},
			{"PrefixReduce", im.PrefixReduce(tm, buf[8:40], blk, src, blk, 8, 4*P, fnSumI64, 0, f)},
			{"ExclusivePrefixReduce", im.ExclusivePrefixReduce(tm, buf[16:48], blk, src, blk, 8, 4*P, fnSumI64, 0, f)},
		}
		for _, c := range cases {
			if !errors.Is(c.err, coll.ErrOverlap) {
				return fmt.Errorf("%s with a partly overlapping destination: got %v, want ErrOverlap", c.name, c.err)
			}
		}
		// Off the root a Reduce's destination does not apply: it may overlap.
		dst := buf[8:16]
		if im.ImageNum() == 0 {
			dst = make([]byte, 8)
		}
		if err := im.Reduce(tm, 0, dst, src, blk, 8, 4*P, fnSumI64, 0, f); err != nil {
			return fmt.Errorf("Reduce with an unused destination overlapping the source: %w", err)
		}
		return im.Barrier(tm)
	})
	if err != nil {
		t.Fatal(err)
	}
}
