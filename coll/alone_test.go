package coll_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	"github.com/gocoll/gocoll/reducefn"
	gsync "github.com/gocoll/gocoll/sync"
)

// A blocking call on a node of one image runs its schedule alone, on the
// caller's goroutine (select.go's "alone" path), where the engine has
// nothing else live; otherwise in the engine. Either way it is the same
// schedule on the wire: these tests mix the two, call by call and node by
// node, and check that the results are the engine's bit for bit and that
// each node went the way it should have.

const doublingCalls = 24

// doublingMode is how node r makes call i: 0 the blocking form (alone,
// unless an operation is live), 1 the non-blocking form and a
// wait, 2 the blocking form with a non-blocking Broadcast of every node
// live on this node (the schedule, if the Broadcast is still live), 3 the blocking form, in place.
func doublingMode(r, i int) int { return (r*7 + i*3 + r*i) % 4 }

// doublingRun makes the calls on P nodes of one image each, every node in
// the non-blocking form when nb is set, and returns every node's results
// by call and the number of ReduceAll calls each node ran alone, which it
// checks against im.Live() before each blocking call.
func doublingRun(t *testing.T, P, fn, es int, nb bool) (res [][][]byte, direct []uint64) {
	t.Helper()
	res = make([][][]byte, P)
	direct = make([]uint64, P)
	per := make([]int, P)
	for i := range per {
		per[i] = 1
	}
	alone := make([]atomic.Uint64, P)
	f := gsync.InMySync | gsync.OutMySync | gsync.Local
	err := colltest.RunImages(per, colltest.Options{MaxDelay: 20 * time.Microsecond}, aloneCounting(alone), table, time.Minute,
		func(im *coll.Image, _ *colltest.Node) error {
			r := im.ImageNum()
			want := uint64(0)
			for i := range doublingCalls {
				mode := doublingMode(r, i)
				if nb {
					mode = 1
				}
				src := localArray(coll.Cyclic, P, r, P, es, fn, i)
				dst := make([]byte, es)
				var bar gsync.Handle
				var err error
				if i%5 == 0 { // every node: a broadcast, live around the call on mode-2 nodes
					b := make([]byte, 8)
					if bar, err = im.BroadcastNB(im.TeamAll(), b, 0, b, 8, f); err != nil {
						return err
					}
					if mode != 2 {
						if err := bar.Wait(context.Background()); err != nil {
							return err
						}
					}
				}
				switch mode {
				case 1:
					h, err := im.ReduceAllNB(im.TeamAll(), dst, src, coll.Cyclic, es, P, fn, 0, f)
					if err == nil {
						err = h.Wait(context.Background())
					}
					if err != nil {
						return fmt.Errorf("call %d: %w", i, err)
					}
				default:
					if im.Live() == 0 {
						want++
					}
					if mode == 3 {
						dst = src[:es]
					}
					if err := im.ReduceAll(im.TeamAll(), dst, src, coll.Cyclic, es, P, fn, 0, f); err != nil {
						return fmt.Errorf("call %d (mode %d): %w", i, mode, err)
					}
				}
				if mode == 2 && i%5 == 0 {
					if err := bar.Wait(context.Background()); err != nil {
						return err
					}
				}
				res[r] = append(res[r], bytes.Clone(dst))
			}
			direct[r] = alone[r].Load() // the blocking ReduceAll calls': every other call is non-blocking
			if direct[r] != want {
				return fmt.Errorf("%d calls alone, want %d", direct[r], want)
			}
			return im.Close()
		})
	if err != nil {
		t.Fatal(err)
	}
	return res, direct
}

// aloneCounting is the options of a test that counts, by image, the calls
// that ran alone.
func aloneCounting(alone []atomic.Uint64) coll.Options {
	return coll.WithPaths(coll.Options{StallTimeout: userStall}, nil, func(image int, path string) {
		if path == "alone" {
			alone[image].Add(1) // an image per node: image and node numbers are the same
		}
	})
}

// TestAloneMatchesEngine: on 2 to 8 nodes (powers of two and not: the
// pairs before and after the recursive doubling), with a commutative float
// sum (whose bits depend on the order of the folds) and two
// non-commutative functions, nodes that run a ReduceAll alone and nodes
// that run it in the engine make each call together, and every node gets
// the bits that the engine alone gives (and, for the exact functions, the
// sequential left fold).
func TestAloneMatchesEngine(t *testing.T) {
	for _, P := range []int{2, 3, 4, 5, 6, 8} {
		for _, c := range []struct{ fn, es int }{{fnSumF64, 8}, {fnMat2, 32}, {fnConcat, 24}} {
			t.Run(fmt.Sprintf("P=%d/fn=%d", P, c.fn), func(t *testing.T) {
				t.Parallel()
				mixed, direct := doublingRun(t, P, c.fn, c.es, false)
				sched, none := doublingRun(t, P, c.fn, c.es, true)
				for r := range P {
					if direct[r] == 0 {
						t.Errorf("node %d: no call ran alone", r)
					}
					if none[r] != 0 {
						t.Errorf("node %d: %d non-blocking calls ran alone", r, none[r])
					}
					for i := range doublingCalls {
						if !bytes.Equal(mixed[r][i], sched[0][i]) {
							t.Errorf("call %d: node %d (mode %d) got %x, the schedule %x", i, r, doublingMode(r, i), mixed[r][i], sched[0][i])
						}
						if c.fn != fnSumF64 && !bytes.Equal(sched[r][i], reference(c.fn, P, c.es, i)[P-1]) {
							t.Errorf("call %d: node %d: the schedule got %x, the left fold %x", i, r, sched[r][i], reference(c.fn, P, c.es, i)[P-1])
						}
					}
				}
			})
		}
	}
}

// TestAloneMismatch: a node that runs the call alone checks its peer's
// header as in the engine: calls with different arguments fail with
// ErrMismatch on both sides, whichever way each went.
func TestAloneMismatch(t *testing.T) {
	for _, P := range []int{2, 3} {
		t.Run(fmt.Sprint(P), func(t *testing.T) {
			per := make([]int, P)
			for i := range per {
				per[i] = 1
			}
			errs := make([]error, P)
			direct := make([]atomic.Uint64, P)
			f := gsync.InMySync | gsync.OutMySync | gsync.Local
			err := colltest.RunImages(per, colltest.Options{}, aloneCounting(direct), table, time.Minute,
				func(im *coll.Image, _ *colltest.Node) error {
					r := im.ImageNum()
					b := make([]byte, 8)
					if r == P-1 { // another argument, non-blocking
						h, err := im.ReduceAllNB(im.TeamAll(), b, b, coll.Cyclic, 8, P, fnSumI64, 1, f)
						if err == nil {
							err = h.Wait(context.Background())
						}
						errs[r] = err
					} else {
						errs[r] = im.ReduceAll(im.TeamAll(), b, b, coll.Cyclic, 8, P, fnSumI64, 0, f)
					}
					return nil
				})
			if err != nil {
				t.Fatal(err)
			}
			for r := range P - 1 {
				if n := direct[r].Load(); n != 1 {
					t.Errorf("node %d: %d calls alone, want 1", r, n)
				}
			}
			// Node P-1's partner in the first exchange (or pair) sees the
			// other arguments; node P-1 sees its partner's.
			for _, r := range []int{P - 2, P - 1} {
				if !errors.Is(errs[r], coll.ErrMismatch) {
					t.Errorf("node %d: %v, want ErrMismatch", r, errs[r])
				}
			}
		})
	}
}

// TestAloneUserCode: the reduction function of a call run alone is user
// code as in the engine: a call into gocoll from it fails with
// ErrReentrant (and the collective too), its panic reaches the caller as
// a *coll.PanicError; the next call works and runs alone.
func TestAloneUserCode(t *testing.T) {
	for _, what := range []string{"reentry", "panic"} {
		t.Run(what, func(t *testing.T) {
			const P = 2
			var ims [P]atomic.Pointer[coll.Image]
			var armed [P]atomic.Bool
			var saw [P]atomic.Value
			tables := func(node int) []reducefn.Entry {
				sum := reducefn.Sum[int64]()
				return []reducefn.Entry{{Fn: func(results, left, right []byte, es int, f reducefn.Flags, arg int) {
					if armed[node].Load() {
						if what == "panic" {
							panic("boom")
						}
						saw[node].Store(fmt.Sprint(ims[node].Load().Poll()))
					}
					sum.Fn(results, left, right, es, f, arg)
				}, Flags: sum.Flags, Scalar: sum.Scalar}}
			}
			f := gsync.InMySync | gsync.OutMySync | gsync.Local
			w := colltest.NewWorld(P, colltest.Options{})
			alone := make([]atomic.Uint64, P)
			err := w.RunNodes([]int{1, 1}, aloneCounting(alone), tables, time.Minute, func(im *coll.Image, _ *colltest.Node) error {
				r := im.ImageNum()
				ims[r].Store(im)
				armed[r].Store(true)
				b, sum := make([]byte, 8), make([]byte, 8)
				b[0] = byte(r + 1)
				var raised any
				err := func() error {
					defer func() { raised = recover() }()
					return im.ReduceAll(im.TeamAll(), sum, b, coll.Cyclic, 8, P, 0, 0, f)
				}()
				armed[r].Store(false)
				switch pe, ok := raised.(*coll.PanicError); {
				case what == "panic" && (!ok || fmt.Sprint(pe.Value) != "boom"):
					return fmt.Errorf("the call ended with %v (error %v), want a *coll.PanicError panic", raised, err)
				case what == "reentry" && (!errors.Is(err, coll.ErrReentrant) || saw[r].Load() != fmt.Sprint(coll.ErrReentrant)):
					return fmt.Errorf("the call returned %v, the function's call %v; want ErrReentrant", err, saw[r].Load())
				}
				if n := alone[r].Load(); n != 1 {
					return fmt.Errorf("%d calls alone, want 1", n)
				}
				if err := im.ReduceAll(im.TeamAll(), sum, b, coll.Cyclic, 8, P, 0, 0, f); err != nil || sum[0] != 3 {
					return fmt.Errorf("the next call: %v, sum %d", err, sum[0])
				}
				if n := alone[r].Load(); n != 2 {
					return fmt.Errorf("%d calls alone, want 2", n)
				}
				return im.Close()
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestAloneOutNoSync: a blocking call with OUT_NOSYNC takes the engine,
// where its handle lets it return before its sends are complete (a run
// alone would wait for them); with OUT_MYSYNC it runs alone.
func TestAloneOutNoSync(t *testing.T) {
	const P = 2
	var mu sync.Mutex
	took := map[string]int{}
	o := coll.WithPaths(coll.Options{}, nil, func(_ int, path string) {
		mu.Lock()
		took[path]++
		mu.Unlock()
	})
	err := colltest.RunImages([]int{1, 1}, colltest.Options{}, o, table, time.Minute, func(im *coll.Image, _ *colltest.Node) error {
		b := make([]byte, 64)
		for _, out := range []gsync.Flags{gsync.OutNoSync, gsync.OutMySync} {
			if err := im.Broadcast(im.TeamAll(), b, 0, b, len(b), gsync.InNoSync|out|gsync.Local); err != nil {
				return err
			}
		}
		return im.Close()
	})
	if err != nil {
		t.Fatal(err)
	}
	// Init and Close run in the engine too: only the OUT_MYSYNC calls
	// run alone.
	if took["alone"] != P {
		t.Errorf("paths taken %v, want alone %d times", took, P)
	}
}
