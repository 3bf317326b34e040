package coll_test

import (
	"encoding/binary"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	"github.com/gocoll/gocoll/reducefn"
	gsync "github.com/gocoll/gocoll/sync"
)

// TestLocalChain: the records of a team that lives on one node (local.go)
// form a chain that images may run ahead on. Three images of one node:
//   - image 0 initiates 300 non-blocking calls (ReduceAll and Broadcast
//     alternating) before the others call any, then they do the same;
//     every result is its own call's;
//   - image 0 is the root of 200 small blocking broadcasts and runs ahead
//     of the others (it stages, up to maxStaged = 64 in a row, then
//     waits); every image gets each call's own value;
//   - 5000 blocking calls make (almost) no record: the chain recycles
//     them.
func TestLocalChain(t *testing.T) {
	const T = 3
	fns := []reducefn.Entry{reducefn.Sum[int64]()}
	const f = gsync.InMySync | gsync.OutMySync | gsync.Local | gsync.AllThreads
	i64 := func(b []byte) int64 { return int64(binary.LittleEndian.Uint64(b)) }
	put := func(b []byte, v int64) { binary.LittleEndian.PutUint64(b, uint64(v)) }
	var rootDone atomic.Int64 // broadcasts image 0 has returned from
	err := colltest.RunImages([]int{T}, colltest.Options{MaxDelay: 5 * time.Microsecond}, coll.Options{}, fns, time.Minute, func(im *coll.Image, nd *colltest.Node) error {
		me, all := im.ImageNum(), im.TeamAll()
		// Run-ahead with the non-blocking forms.
		const nb = 300
		dst, src := make([]byte, 8*nb), make([]byte, 8*nb)
		hs := make([]gsync.Handle, 0, nb)
		if me != 0 {
			nd.Rendezvous("ahead", T)
		}
		for i := range nb {
			d, s := dst[8*i:8*i+8], src[8*i:8*i+8]
			var h gsync.Handle
			var err error
			if i%2 == 0 {
				put(s, int64(1000*i+me))
				h, err = im.ReduceAllNB(all, d, s, coll.Cyclic, 8, T, 0, 0, f)
			} else {
				put(s, int64(1000*i+7))
				h, err = im.BroadcastNB(all, d, 1, s, 8, f)
			}
			if err != nil {
				return fmt.Errorf("call %d: %w", i, err)
			}
			hs = append(hs, h)
		}
		if me == 0 {
			nd.Rendezvous("ahead", T)
		}
		if err := gsync.WaitAll(t.Context(), hs); err != nil {
			return err
		}
		for i := range nb {
			want := int64(1000*i + 7)
			if i%2 == 0 {
				want = int64(3*1000*i + 0 + 1 + 2)
			}
			if got := i64(dst[8*i:]); got != want {
				return fmt.Errorf("image %d, call %d: %d, want %d", me, i, got, want)
			}
		}
		// A root that runs ahead.
		nd.Rendezvous("root", T)
		if me == 1 {
			time.Sleep(20 * time.Millisecond)
			// the root stops staging after maxStaged calls in a row
			if n := rootDone.Load(); n > 64 {
				return fmt.Errorf("the root ran %d calls ahead", n)
			}
		}
		if me == 2 {
			time.Sleep(20 * time.Millisecond)
		}
		b := make([]byte, 8)
		for i := range 200 {
			if me == 0 {
				put(b, int64(i+1))
			}
			if err := im.Broadcast(all, b, 0, b, 8, f); err != nil {
				return err
			}
			if got := i64(b); got != int64(i+1) {
				return fmt.Errorf("image %d, broadcast %d: %d", me, i, got)
			}
			if me == 0 {
				rootDone.Add(1)
			}
		}
		// Records recycled.
		nd.Rendezvous("recycle", T)
		made := coll.LocalRecsMade()
		nd.Rendezvous("counted", T)
		const calls = 5000
		for range calls {
			if err := im.ReduceAll(all, dst[:8], src[:8], coll.Cyclic, 8, T, 0, 0, f); err != nil {
				return err
			}
		}
		nd.Rendezvous("done", T)
		// A few records serve every call; with the race detector the pool
		// drops a quarter of them, so about that many are made.
		most := int64(16)
		if raceOn {
			most = calls / 2
		}
		if n := coll.LocalRecsMade() - made; n > most {
			return fmt.Errorf("%d calls made %d records", calls, n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
