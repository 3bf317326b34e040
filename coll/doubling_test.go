package coll_test

import (
	"bytes"
	"context"
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

// The blocking ReduceAll that runs without a schedule (doubling.go) must
// be the schedule on the wire: these tests mix it, call by call and node
// by node, with the schedule (the non-blocking form, or the blocking form
// while another operation is live), and check that the results are the
// schedule's bit for bit and that each node went the way it should have.

const doublingCalls = 24

// doublingMode is how node r makes call i: 0 the blocking form (without a
// schedule, unless an operation is live), 1 the non-blocking form and a
// wait, 2 the blocking form with a non-blocking Broadcast of every node
// live on this node (the schedule, if the Broadcast is still live), 3 the blocking form, in place.
func doublingMode(r, i int) int { return (r*7 + i*3 + r*i) % 4 }

// doublingRun makes the calls on P nodes of one image each, every node in
// the non-blocking form when nb is set, and returns every node's results
// by call and the number of calls each node made without a schedule,
// which it checks against im.Live() before each blocking call.
func doublingRun(t *testing.T, P, fn, es int, nb bool) (res [][][]byte, direct []uint64) {
	t.Helper()
	res = make([][][]byte, P)
	direct = make([]uint64, P)
	per := make([]int, P)
	for i := range per {
		per[i] = 1
	}
	f := gsync.InMySync | gsync.OutMySync | gsync.Local
	err := colltest.RunImages(per, colltest.Options{MaxDelay: 20 * time.Microsecond}, coll.Options{StallTimeout: userStall}, table, time.Minute,
		func(im *coll.Image, _ *colltest.Node) error {
			r := im.ImageNum()
			want := coll.Doublings(im)
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
			direct[r] = coll.Doublings(im)
			if direct[r] != want {
				return fmt.Errorf("%d calls without a schedule, want %d", direct[r], want)
			}
			return im.Close()
		})
	if err != nil {
		t.Fatal(err)
	}
	return res, direct
}

// TestDoublingMatchesSchedule: on 2 to 8 nodes (powers of two and not:
// the pairs before and after the doubling), with a commutative float sum
// (whose bits depend on the order of the folds) and two non-commutative
// functions, nodes that run the call without a schedule and nodes that
// run the schedule make each call together, and every node gets the bits
// that the schedule alone gives (and, for the exact functions, the
// sequential left fold).
func TestDoublingMatchesSchedule(t *testing.T) {
	for _, P := range []int{2, 3, 4, 5, 6, 8} {
		for _, c := range []struct{ fn, es int }{{fnSumF64, 8}, {fnMat2, 32}, {fnConcat, 24}} {
			t.Run(fmt.Sprintf("P=%d/fn=%d", P, c.fn), func(t *testing.T) {
				t.Parallel()
				mixed, direct := doublingRun(t, P, c.fn, c.es, false)
				sched, none := doublingRun(t, P, c.fn, c.es, true)
				for r := range P {
					if direct[r] == 0 {
						t.Errorf("node %d: no call ran without a schedule", r)
					}
					if none[r] != 0 {
						t.Errorf("node %d: %d non-blocking calls ran without a schedule", r, none[r])
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

// TestDoublingMismatch: a node that runs the call without a schedule
// checks its peer's header as the schedule does: calls with different
// arguments fail with ErrMismatch on both sides, whichever way each went.
func TestDoublingMismatch(t *testing.T) {
	for _, P := range []int{2, 3} {
		t.Run(fmt.Sprint(P), func(t *testing.T) {
			per := make([]int, P)
			for i := range per {
				per[i] = 1
			}
			errs := make([]error, P)
			direct := make([]uint64, P)
			f := gsync.InMySync | gsync.OutMySync | gsync.Local
			err := colltest.RunImages(per, colltest.Options{}, coll.Options{StallTimeout: userStall}, table, time.Minute,
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
					direct[r] = coll.Doublings(im)
					return nil
				})
			if err != nil {
				t.Fatal(err)
			}
			for r := range P - 1 {
				if direct[r] != 1 {
					t.Errorf("node %d: %d calls without a schedule, want 1", r, direct[r])
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

// TestDoublingUserCode: the reduction function run without a schedule is
// user code as the schedule's is: a call into gocoll from it fails with
// ErrReentrant (and the collective too), its panic reaches the caller as
// a *coll.PanicError; the next call works and runs without a schedule.
func TestDoublingUserCode(t *testing.T) {
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
			err := w.RunNodes([]int{1, 1}, coll.Options{StallTimeout: userStall}, tables, time.Minute, func(im *coll.Image, _ *colltest.Node) error {
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
				if n := coll.Doublings(im); n != 1 {
					return fmt.Errorf("%d calls without a schedule, want 1", n)
				}
				if err := im.ReduceAll(im.TeamAll(), sum, b, coll.Cyclic, 8, P, 0, 0, f); err != nil || sum[0] != 3 {
					return fmt.Errorf("the next call: %v, sum %d", err, sum[0])
				}
				if n := coll.Doublings(im); n != 2 {
					return fmt.Errorf("%d calls without a schedule, want 2", n)
				}
				return im.Close()
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}
