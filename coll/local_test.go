package coll_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	"github.com/gocoll/gocoll/reducefn"
	gsync "github.com/gocoll/gocoll/sync"
)

// i64 reads the int64 at the start of b, little-endian as the tests
// write it.
func i64(b []byte) int64 { return int64(binary.LittleEndian.Uint64(b)) }

// put writes v at the start of b.
func put(b []byte, v int64) { binary.LittleEndian.PutUint64(b, uint64(v)) }

// TestLocalChain: the records of a team that lives on one node (internal/local)
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

// TestSelfFold: in a small ReduceAll of one element per image on a team
// that lives on one node, an image calling the blocking form folds its own
// result from the elements the others left in the record (internal/local,
// self), while the others' results come from the last image to arrive.
// Images of one node mix blocking and non-blocking forms call by call,
// arrive in changing orders, some in place; elements of 8 to 48 bytes
// (inline) and 56 (not), four sync modes, a sum and a non-commutative
// concatenation: every result is the fold in rank order. Then one image
// calls with another size: every image gets ErrArgsDiffer.
func TestSelfFold(t *testing.T) {
	modes := []gsync.Flags{gsync.InMySync | gsync.OutMySync, gsync.InNoSync | gsync.OutNoSync,
		gsync.InMySync | gsync.OutAllSync, gsync.InAllSync | gsync.OutMySync}
	for _, T := range []int{2, 3, 4} {
		t.Run(fmt.Sprint(T), func(t *testing.T) {
			t.Parallel()
			err := colltest.RunImages([]int{T}, colltest.Options{}, coll.Options{}, table, time.Minute, func(im *coll.Image, nd *colltest.Node) error {
				me, all := im.ImageNum(), im.TeamAll()
				for i := range 600 {
					fn, es := fnSumI64, []int{8, 24, 48, 56}[i%4]
					if i%5 == 0 {
						fn, es = fnConcat, []int{40, 48}[i/5%2]
					}
					f := modes[i/4%len(modes)] | gsync.Local | gsync.AllThreads
					src := gen(fn, me, es, i)
					dst := make([]byte, es)
					if (i+me)%2 == 0 {
						dst = src // in place
					}
					if (i*7+me)%5 == 0 {
						time.Sleep(time.Duration(me) * 20 * time.Microsecond)
					}
					var err error
					if (i+me)%3 == 0 {
						var h gsync.Handle
						if h, err = im.ReduceAllNB(all, dst, src, coll.Cyclic, es, T, fn, 0, f); err == nil {
							err = h.Wait(context.Background())
						}
					} else {
						err = im.ReduceAll(all, dst, src, coll.Cyclic, es, T, fn, 0, f)
					}
					if err != nil {
						return fmt.Errorf("call %d (es %d, %v): %w", i, es, f, err)
					}
					want := gen(fn, 0, es, i)
					for r := 1; r < T; r++ {
						next := make([]byte, es)
						table[fn].Fn(next, want, gen(fn, r, es, i), es, table[fn].Flags, 0)
						want = next
					}
					if !bytes.Equal(dst, want) {
						return fmt.Errorf("call %d (es %d, %v): got %x, want %x", i, es, f, dst, want)
					}
				}
				es := 8
				if me == T-1 {
					es = 16
				}
				b := make([]byte, 16)
				if err := im.ReduceAll(all, b[:es], b[:es], coll.Cyclic, es, T, fnSumI64, 0, allMy); !errors.Is(err, coll.ErrArgsDiffer) {
					return fmt.Errorf("image %d: %v, want ErrArgsDiffer", me, err)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestRing: a small blocking ReduceAll on a team that lives on one node
// goes by the ring (internal/local/ring.go), and the ring gives way to the record chain,
// call by call, whenever a member cannot use it. Three images of one node:
//   - every stretch of blocking calls goes by the ring once the images
//     are in step, however far one of them ran ahead before it (here
//     image 0, with stretches of non-blocking calls of 1 to 3*ringCalls
//     = 96 calls, which the others make late: image 0's first blocking call
//     after a long stretch finds its slot still unread and takes the
//     chain, and so do the others for that call);
//   - a member calling the non-blocking form of the same ReduceAll takes
//     the chain, and so do the others for that call;
//   - a member calling another collective where the others call a ring
//     ReduceAll: every image gets ErrArgsDiffer, none hangs.
//
// Every result is checked against its own call's.
func TestRing(t *testing.T) {
	const T = 3
	fns := []reducefn.Entry{reducefn.Sum[int64]()}
	const f = gsync.InMySync | gsync.OutMySync | gsync.Local | gsync.AllThreads
	ringed := make([]atomic.Uint64, T)
	err := colltest.RunImages([]int{T}, colltest.Options{MaxDelay: 3 * time.Microsecond}, ringCounting(ringed), fns, time.Minute, func(im *coll.Image, nd *colltest.Node) error {
		me, all := im.ImageNum(), im.TeamAll()
		src, dst := make([]byte, 8), make([]byte, 8)
		blocking := func(round, k int) error {
			put(src, int64(100*round+10*k+me))
			if err := im.ReduceAll(all, dst, src, coll.Cyclic, 8, T, 0, 0, f); err != nil {
				return fmt.Errorf("round %d, blocking call %d: %w", round, k, err)
			}
			if got, want := i64(dst), int64(T*(100*round+10*k)+0+1+2); got != want {
				return fmt.Errorf("round %d, blocking call %d: %d, want %d", round, k, got, want)
			}
			return nil
		}
		for round, ahead := range []int{1, 5, 31, 32, 33, 64, 96, 0, 2} {
			// Image 0 runs ahead by `ahead` non-blocking calls, which the
			// others make once it is done.
			dsts, srcs := make([]byte, 8*ahead), make([]byte, 8*ahead)
			hs := make([]gsync.Handle, 0, ahead)
			if me != 0 {
				nd.Rendezvous(fmt.Sprint("ahead", round), T)
			}
			for i := range ahead {
				d, s := dsts[8*i:8*i+8], srcs[8*i:8*i+8]
				put(s, int64(1000*i+me))
				h, err := im.ReduceAllNB(all, d, s, coll.Cyclic, 8, T, 0, 0, f)
				if err != nil {
					return fmt.Errorf("round %d, call %d ahead: %w", round, i, err)
				}
				hs = append(hs, h)
			}
			if me == 0 {
				nd.Rendezvous(fmt.Sprint("ahead", round), T)
			}
			before := ringed[me].Load()
			const calls = 10
			for k := range calls {
				if err := blocking(round, k); err != nil {
					return err
				}
			}
			// The first may take the chain (a slot not yet free, or the
			// others' handles of the stretch still unread), the rest not.
			if n := ringed[me].Load() - before; n < calls-1 {
				return fmt.Errorf("round %d (%d ahead): %d of %d blocking calls went by the ring", round, ahead, n, calls)
			}
			if err := gsync.WaitAll(t.Context(), hs); err != nil {
				return err
			}
			for i := range ahead {
				if got, want := i64(dsts[8*i:]), int64(T*1000*i+0+1+2); got != want {
					return fmt.Errorf("round %d, call %d ahead: %d, want %d", round, i, got, want)
				}
			}
		}
		// Image 1 calls the non-blocking form where the others block.
		for k := range 20 {
			put(src, int64(k+me))
			var err error
			if me == 1 && k%3 == 0 {
				var h gsync.Handle
				if h, err = im.ReduceAllNB(all, dst, src, coll.Cyclic, 8, T, 0, 0, f); err == nil {
					err = h.Wait(context.Background())
				}
			} else {
				before := ringed[me].Load()
				err = im.ReduceAll(all, dst, src, coll.Cyclic, 8, T, 0, 0, f)
				if ringed := ringed[me].Load() != before; err == nil && ringed != (k%3 != 0) {
					return fmt.Errorf("image %d, call %d: by the ring %v", me, k, ringed)
				}
			}
			if err != nil {
				return fmt.Errorf("image %d, mixed call %d: %w", me, k, err)
			}
			if got, want := i64(dst), int64(T*k+0+1+2); got != want {
				return fmt.Errorf("image %d, mixed call %d: %d, want %d", me, k, got, want)
			}
		}
		// Image 2 calls a broadcast where the others call a ring ReduceAll.
		var err error
		if me == 2 {
			err = im.Broadcast(all, dst, 0, src, 8, f)
		} else {
			err = im.ReduceAll(all, dst, src, coll.Cyclic, 8, T, 0, 0, f)
		}
		if !errors.Is(err, coll.ErrArgsDiffer) {
			return fmt.Errorf("image %d: %v, want ErrArgsDiffer", me, err)
		}
		// And all are in step again.
		return blocking(99, 0)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// ringCounting is the options of a test that counts, by image, the calls
// that went by the ring.
func ringCounting(ringed []atomic.Uint64) coll.Options {
	return coll.WithPaths(coll.Options{}, nil, func(image int, path string) {
		if path == "ring" {
			ringed[image].Add(1)
		}
	})
}

// TestRingBroadcast: a small broadcast on a team that lives on one node
// goes by the ring when its root takes it (internal/local/ring.go: the root leaves at
// once, the others copy from its line), and by the record chain when a
// member decided so first. Three images of one node:
//   - 600 broadcasts, the root going round, each image calling the
//     non-blocking form now and then and arriving late now and then:
//     every image gets each call's block; the calls where no image called
//     the non-blocking form before the root came go by the ring;
//   - image 1 calls the non-blocking form before the root (image 0) comes:
//     the call takes the chain, on every image, and image 1's handle gets
//     the block;
//   - image 1 calls a Gather where the others call a broadcast that its
//     root took by the ring: image 1 gets ErrArgsDiffer at once, the
//     others their block.
func TestRingBroadcast(t *testing.T) {
	const T = 3
	const f = gsync.InMySync | gsync.OutMySync | gsync.Local | gsync.AllThreads
	ringed := make([]atomic.Uint64, T)
	err := colltest.RunImages([]int{T}, colltest.Options{MaxDelay: 3 * time.Microsecond}, ringCounting(ringed), nil, time.Minute, func(im *coll.Image, nd *colltest.Node) error {
		me, all := im.ImageNum(), im.TeamAll()
		for i := range 600 {
			if i == 300 {
				// A third of the calls have no image that called the
				// non-blocking form; most of those go by the ring.
				if n := ringed[me].Load(); n < 50 {
					return fmt.Errorf("image %d: %d of 300 broadcasts went by the ring", me, n)
				}
			}
			root := i % T
			b := make([]byte, 8+i%41) // 8 to 48 bytes: a line's worth
			if me == root {
				put(b, int64(1000*i+7))
			}
			if (i*7+me)%11 == 0 {
				time.Sleep(time.Duration(me+1) * 10 * time.Microsecond)
			}
			var err error
			if me != root && (i+me)%5 == 0 {
				var h gsync.Handle
				if h, err = im.BroadcastNB(all, b, root, b, len(b), f); err == nil {
					err = h.Wait(context.Background())
				}
			} else {
				err = im.Broadcast(all, b, root, b, len(b), f)
			}
			if err != nil {
				return fmt.Errorf("image %d, call %d: %w", me, i, err)
			}
			if got := i64(b); got != int64(1000*i+7) {
				return fmt.Errorf("image %d, call %d: %d", me, i, got)
			}
		}
		// A non-blocking call before the root came: the chain.
		nd.Rendezvous("nb", T)
		b := make([]byte, 8)
		before := ringed[me].Load()
		var h gsync.Handle
		var err error
		switch me {
		case 1:
			h, err = im.BroadcastNB(all, b, 0, b, 8, f)
			nd.Rendezvous("initiated", T)
		case 0:
			nd.Rendezvous("initiated", T)
			put(b, 42)
			err = im.Broadcast(all, b, 0, b, 8, f)
		default:
			nd.Rendezvous("initiated", T)
			err = im.Broadcast(all, b, 0, b, 8, f)
		}
		if err == nil {
			err = h.Wait(context.Background())
		}
		if err != nil || i64(b) != 42 {
			return fmt.Errorf("image %d: %d, %v; want 42", me, i64(b), err)
		}
		if ringed[me].Load() != before {
			return fmt.Errorf("image %d: the call went by the ring", me)
		}
		// A Gather against a broadcast its root took by the ring.
		nd.Rendezvous("gather", T)
		if me == 1 {
			nd.Rendezvous("root left", 2) // after the root's call returned
			err = im.Gather(all, 0, make([]byte, 8*T), b, 8, f)
			if !errors.Is(err, coll.ErrArgsDiffer) {
				return fmt.Errorf("image 1's Gather: %v, want ErrArgsDiffer", err)
			}
			return nil
		}
		put(b, 43)
		err = im.Broadcast(all, b, 0, b, 8, f)
		if me == 0 {
			nd.Rendezvous("root left", 2)
		}
		if err != nil || i64(b) != 43 {
			return fmt.Errorf("image %d: %d, %v; want 43", me, i64(b), err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestAggregateLastOnNode: the blocking Last of an aggregate on a team
// that lives on one node returns only once every member of the aggregate
// is complete on the image, also where the Last alone could go by the
// ring or stage (a small broadcast: the root need not wait for anyone) and
// the member runs late: its last image to arrive runs it, with a slow
// reduction function. Three images; image 2 arrives last at the member.
func TestAggregateLastOnNode(t *testing.T) {
	const T = 3
	sum := reducefn.Sum[int64]()
	slow := reducefn.Entry{Flags: sum.Flags, Fn: func(res, l, r []byte, es int, f reducefn.Flags, arg int) {
		time.Sleep(20 * time.Millisecond)
		sum.Fn(res, l, r, es, f, arg)
	}}
	const f = gsync.InMySync | gsync.OutMySync | gsync.Local | gsync.AllThreads
	for _, last := range []string{"Broadcast", "ReduceAll"} {
		t.Run(last, func(t *testing.T) {
			err := colltest.RunImages([]int{T}, colltest.Options{}, coll.Options{}, []reducefn.Entry{slow}, time.Minute, func(im *coll.Image, nd *colltest.Node) error {
				me, all := im.ImageNum(), im.TeamAll()
				for round := range 3 {
					src, dst, b := make([]byte, 8), make([]byte, 8), make([]byte, 8)
					put(src, int64(me+1))
					if me == 2 {
						time.Sleep(5 * time.Millisecond)
					}
					if _, err := im.ReduceAllNB(all, dst, src, coll.Cyclic, 8, T, 0, 0, f|gsync.Aggregate); err != nil {
						return err
					}
					var err error
					if last == "Broadcast" {
						put(b, 7)
						err = im.Broadcast(all, b, 0, b, 8, f)
					} else {
						err = im.ReduceAll(all, b, b, coll.Cyclic, 8, T, 0, 0, f)
					}
					if err != nil {
						return err
					}
					if got := i64(dst); got != 6 {
						return fmt.Errorf("round %d, image %d: the member's result is %d after the Last returned, want 6", round, me, got)
					}
					nd.Rendezvous(fmt.Sprint("round", round), T)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}
