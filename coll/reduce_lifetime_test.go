package coll_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	"github.com/gocoll/gocoll/reducefn"
	gsync "github.com/gocoll/gocoll/sync"
)

// TestReductionSourceLifetime: once a reduction's (or prefix
// reduction's) sync succeeds in
// OUT_MYSYNC, the image's source is the caller's again: scribbling on it
// at once must not change anybody's result, also where the conduit reads
// a send's buffer late (delays) and where a node sends its element as it
// lies (one element per image, no copy).
func TestReductionSourceLifetime(t *testing.T) {
	for _, P := range []int{2, 3, 4, 5, 8} {
		t.Run(fmt.Sprint(P), func(t *testing.T) {
			delay := colltest.Options{MaxDelay: 200 * time.Microsecond, Seed: uint64(P)}
			err := colltest.RunImages(make1(P), delay, coll.Options{}, table, time.Minute, func(im *coll.Image, _ *colltest.Node) error {
				all := im.TeamAll()
				me := all.Rank(im.ImageNum())
				f := gsync.InMySync | gsync.OutMySync | gsync.Local
				for it := range 20 {
					for _, kind := range []string{"reduce", "all", "prefix"} {
						src := []int64{int64(me*1000 + it), int64(me)}
						dst := make([]int64, 2)
						root := it % P
						var err error
						switch kind {
						case "reduce":
							err = im.Reduce(all, root, reducefn.Bytes(dst), reducefn.Bytes(src), coll.Layout{BlockSize: 1}, 16, P, fnSumI64, 0, f)
						case "prefix":
							err = im.PrefixReduce(all, reducefn.Bytes(dst), coll.Layout{BlockSize: 1}, reducefn.Bytes(src), coll.Layout{BlockSize: 1}, 16, P, fnSumI64, 0, f)
						default:
							err = im.ReduceAll(all, reducefn.Bytes(dst), reducefn.Bytes(src), coll.Layout{BlockSize: 1}, 16, P, fnSumI64, 0, f)
						}
						if err != nil {
							return err
						}
						src[0], src[1] = -1<<40, -1<<40 // the caller's again
						var want [2]int64
						upto := P // the ranks folded into this image's result
						if kind == "prefix" {
							upto = me + 1
						}
						for r := range upto {
							want[0] += int64(r*1000 + it)
							want[1] += int64(r)
						}
						if (kind != "reduce" || me == root) && (dst[0] != want[0] || dst[1] != want[1]) {
							return fmt.Errorf("%s iteration %d root %d: got %v, want %v", kind, it, root, dst, want)
						}
					}
				}
				return im.Barrier(all)
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

func make1(P int) []int {
	per := make([]int, P)
	for i := range per {
		per[i] = 1
	}
	return per
}
