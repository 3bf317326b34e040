package coll_test

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	"github.com/gocoll/gocoll/images"
	"github.com/gocoll/gocoll/reducefn"
	gsync "github.com/gocoll/gocoll/sync"
)

// Four in-process nodes broadcast from image 2, then gather_all their ranks
// with a non-blocking call.
func Example() {
	err := colltest.Run(4, colltest.Options{}, coll.Options{}, time.Minute, func(im *coll.Image) error {
		team := im.TeamAll()
		f := gsync.InMySync | gsync.OutMySync | gsync.Local

		msg := make([]byte, 5)
		var src []byte
		if im.ImageNum() == 2 {
			src = []byte("hello")
		}
		if err := im.Broadcast(team, msg, 2, src, 5, f); err != nil {
			return err
		}

		ranks := make([]int32, im.Images())
		h, err := coll.GatherAllOfNB(im, team, ranks, []int32{int32(im.ImageNum())}, 1, f)
		if err != nil {
			return err
		}
		if err := h.Wait(context.Background()); err != nil {
			return err
		}
		if im.ImageNum() == 0 {
			fmt.Println(string(msg), ranks)
		}
		return im.Barrier(team)
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output: hello [0 1 2 3]
}

// Two nodes of two images each, as a 2 x 2 grid of images: every image
// splits TeamAll into its row and its column, sums its number over its row
// with ReduceAll, and gathers the row sums over its column.
func ExampleImage_Split() {
	fns := []reducefn.Entry{reducefn.Sum[int64]()}
	const f = gsync.InMySync | gsync.OutMySync | gsync.Local | gsync.AllThreads
	var mu sync.Mutex
	lines := map[int]string{}
	err := colltest.RunImages([]int{2, 2}, colltest.Options{}, coll.Options{}, fns, time.Minute,
		func(im *coll.Image, _ *colltest.Node) error {
			all, me := im.TeamAll(), im.ImageNum()
			row, err := im.Split(all, me/2, me) // color: the row; key: keep image order
			if err != nil {
				return err
			}
			col, err := im.Split(all, me%2, me)
			if err != nil {
				return err
			}
			sum := []int64{0}
			mine := []int64{int64(me)}
			if err := im.ReduceAll(row, reducefn.Bytes(sum), reducefn.Bytes(mine), coll.Cyclic, 8, row.Size(), 0, 0, f); err != nil {
				return err
			}
			sums := make([]int64, col.Size())
			if err := coll.GatherAllOf(im, col, sums, sum, 1, f); err != nil {
				return err
			}
			mu.Lock()
			lines[me] = fmt.Sprintf("image %d: row rank %d of %v, column rank %d of %v, row sums %v",
				me, row.Rank(me), row.Images(), col.Rank(me), col.Images(), sums)
			mu.Unlock()
			for _, t := range []*images.Team{row, col} {
				if err := im.Destroy(t); err != nil {
					return err
				}
			}
			return im.Barrier(all)
		})
	if err != nil {
		fmt.Println(err)
	}
	for i := range 4 {
		fmt.Println(lines[i])
	}
	// Output:
	// image 0: row rank 0 of [0 1], column rank 0 of [0 2], row sums [1 5]
	// image 1: row rank 1 of [0 1], column rank 0 of [1 3], row sums [1 5]
	// image 2: row rank 0 of [2 3], column rank 1 of [0 2], row sums [1 5]
	// image 3: row rank 1 of [2 3], column rank 1 of [1 3], row sums [1 5]
}

// Three nodes hosting 1, 3 and 2 images. Each node's first image is its
// representative: it broadcasts for all of the node's images with the m
// form, one destination per image, while the node's other images wait.
func ExampleImage_BroadcastM() {
	const f = gsync.InMySync | gsync.OutMySync | gsync.Local
	var mu sync.Mutex
	got := map[int]string{}
	err := colltest.RunImages([]int{1, 3, 2}, colltest.Options{}, coll.Options{}, nil, time.Minute,
		func(im *coll.Image, nd *colltest.Node) error {
			tb := im.Table()
			first, n := tb.First(im.Node()), tb.On(im.Node())
			nd.Rendezvous("broadcast", n)
			if im.ImageNum() == first {
				dsts := make([][]byte, n) // one per image of this node
				for k := range dsts {
					dsts[k] = make([]byte, 5)
				}
				var src []byte
				if im.Node() == 1 { // the root, image 2, is on node 1
					src = []byte("hello")
				}
				if err := im.BroadcastM(im.TeamAll(), dsts, 2, src, 5, f); err != nil {
					return err
				}
				mu.Lock()
				for k, d := range dsts {
					got[first+k] = string(d)
				}
				mu.Unlock()
			}
			nd.Rendezvous("broadcast", n)
			return im.Barrier(im.TeamAll())
		})
	if err != nil {
		fmt.Println(err)
	}
	fmt.Println(got)
	// Output: map[0:hello 1:hello 2:hello 3:hello 4:hello 5:hello]
}
