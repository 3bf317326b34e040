package coll_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	gsync "github.com/gocoll/gocoll/sync"
)

// TestVCallsM: the m forms of the v-variants and of the reduce-scatter,
// called by one image for its node's images (the others wait), with
// counts that change from step to step (zeros included), blocks in
// another order than the ranks' with a gap after each, and the root on
// each node in turn, blocking and NB; every image's buffer is checked
// against the serial model, and what lies outside its blocks against
// being written.
func TestVCallsM(t *testing.T) {
	for _, per := range [][]int{{1, 1}, {2, 2}, {3, 1, 2}} {
		t.Run(fmt.Sprint(per), func(t *testing.T) {
			f := gsync.InMySync | gsync.OutMySync | gsync.Local
			err := colltest.RunImages(per, colltest.Options{MaxDelay: 20 * time.Microsecond}, coll.Options{}, table, time.Minute,
				func(im *coll.Image, nd *colltest.Node) error {
					nd.Rendezvous("m", nd.Images())
					var err error
					if im.ImageNum() == im.Table().First(im.Node()) {
						for step := range 6 {
							if err = vCallsM(im, f, step); err != nil {
								err = fmt.Errorf("step %d: %w", step, err)
								break
							}
						}
					}
					nd.Rendezvous("m", nd.Images())
					return err
				})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// vCallsM makes each m form once for the node of representative im, on
// TeamAll (image number = team rank).
func vCallsM(im *coll.Image, f gsync.Flags, step int) error {
	tm := im.TeamAll()
	P, first, n := tm.Size(), im.Table().First(im.Node()), im.Table().On(im.Node())
	nb := step%2 == 1
	wait := func(h gsync.Handle, err error) error {
		if err != nil || !nb {
			return err
		}
		return h.Wait(context.Background())
	}
	counts := make([]int, P)
	for r := range counts {
		counts[r] = (r*7 + step*3) % 5
	}
	val := func(from, to, e int) byte { return byte(step*50 + from*7 + to*3 + e) }
	// displs puts the blocks in reverse rank order, a gap after each; the
	// length of such a buffer.
	displs, length := make([]int, P), 0
	for r := P - 1; r >= 0; r-- {
		displs[r] = length
		length += counts[r] + 1
	}
	const gap = 0xEE
	buf := func(k int) []byte {
		b := make([]byte, k)
		for i := range b {
			b[i] = gap
		}
		return b
	}
	blocks := func(want func(r, e int) byte) []byte {
		b := buf(length)
		for r, c := range counts {
			for e := range c {
				b[displs[r]+e] = want(r, e)
			}
		}
		return b
	}
	own := func(c int, v func(e int) byte) []byte {
		b := buf(c + 1)
		for e := range c {
			b[e] = v(e)
		}
		return b
	}
	mine := make([]int, n) // the node's images' team ranks
	for i := range n {
		mine[i] = first + i
	}
	root := step % P
	// GatherVM: the sources are the node's images' own blocks.
	var rootDst []byte
	if im.Table().NodeOf(root) == im.Node() {
		rootDst = buf(length)
	}
	srcs := make([][]byte, n)
	for i, r := range mine {
		srcs[i] = own(counts[r], func(e int) byte { return val(r, root, e) })
	}
	var h gsync.Handle
	var err error
	if nb {
		h, err = im.GatherVMNB(tm, root, rootDst, counts, displs, srcs, f)
	} else {
		err = im.GatherVM(tm, root, rootDst, counts, displs, srcs, f)
	}
	if err = wait(h, err); err != nil {
		return fmt.Errorf("GatherVM: %w", err)
	}
	if want := blocks(func(r, e int) byte { return val(r, root, e) }); rootDst != nil && !slices.Equal(rootDst, want) {
		return fmt.Errorf("GatherVM: root has %v, want %v", rootDst, want)
	}
	// ScatterVM: the root's blocks to the node's images.
	var rootSrc []byte
	if rootDst != nil {
		rootSrc = blocks(func(r, e int) byte { return val(root, r, e) })
	}
	dsts := make([][]byte, n)
	for i, r := range mine {
		dsts[i] = buf(counts[r] + 1)
	}
	if nb {
		h, err = im.ScatterVMNB(tm, dsts, root, rootSrc, counts, displs, f)
	} else {
		err = im.ScatterVM(tm, dsts, root, rootSrc, counts, displs, f)
	}
	if err = wait(h, err); err != nil {
		return fmt.Errorf("ScatterVM: %w", err)
	}
	for i, r := range mine {
		if want := own(counts[r], func(e int) byte { return val(root, r, e) }); !slices.Equal(dsts[i], want) {
			return fmt.Errorf("ScatterVM: image %d has %v, want %v", r, dsts[i], want)
		}
	}
	// GatherAllVM: every image's block to every image of the node.
	for i, r := range mine {
		srcs[i] = own(counts[r], func(e int) byte { return val(r, 99, e) })
		dsts[i] = buf(length)
	}
	if nb {
		h, err = im.GatherAllVMNB(tm, dsts, counts, displs, srcs, f)
	} else {
		err = im.GatherAllVM(tm, dsts, counts, displs, srcs, f)
	}
	if err = wait(h, err); err != nil {
		return fmt.Errorf("GatherAllVM: %w", err)
	}
	for i, r := range mine {
		if want := blocks(func(r, e int) byte { return val(r, 99, e) }); !slices.Equal(dsts[i], want) {
			return fmt.Errorf("GatherAllVM: image %d has %v, want %v", r, dsts[i], want)
		}
	}
	// ReduceScatterM: int64 sums, image r keeping counts[r] lanes.
	total := 0
	for _, c := range counts {
		total += c
	}
	if total == 0 {
		return nil
	}
	lane := func(r, i int) int64 { return int64(step*1000 + r*100 + i) }
	for i, r := range mine {
		srcs[i] = make([]byte, 8*total)
		for j := range total {
			binary.LittleEndian.PutUint64(srcs[i][8*j:], uint64(lane(r, j)))
		}
		dsts[i] = buf(8*counts[r] + 1)
	}
	if nb {
		h, err = im.ReduceScatterMNB(tm, dsts, srcs, counts, 8, fnSumI64, 0, f)
	} else {
		err = im.ReduceScatterM(tm, dsts, srcs, counts, 8, fnSumI64, 0, f)
	}
	if err = wait(h, err); err != nil {
		return fmt.Errorf("ReduceScatterM: %w", err)
	}
	for i, r := range mine {
		at := 0
		for q := range r {
			at += counts[q]
		}
		want := buf(8*counts[r] + 1)
		for j := range counts[r] {
			var s int64
			for q := range P {
				s += lane(q, at+j)
			}
			binary.LittleEndian.PutUint64(want[8*j:], uint64(s))
		}
		if !slices.Equal(dsts[i], want) {
			return fmt.Errorf("ReduceScatterM: image %d has %v, want %v", r, dsts[i], want)
		}
	}
	return nil
}
