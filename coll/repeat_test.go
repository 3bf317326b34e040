package coll_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	"github.com/gocoll/gocoll/images"
	gsync "github.com/gocoll/gocoll/sync"
)

// TestRepeatedCallChecks: a computational call that repeats the team's
// last passed one (same key, same buffers) takes the image's record of it
// and skips the buffer checks (plans.go); anything else about a call is still checked, and a call
// that differs in a buffer's address or length, the key, the team or the
// form is checked in full. Every image makes the same calls, bad ones
// included (a bad call fails where it is made, without messages).
func TestRepeatedCallChecks(t *testing.T) {
	for _, per := range [][]int{{1, 1, 1}, {2, 1}} {
		t.Run(fmt.Sprint(per), func(t *testing.T) {
			f := gsync.InMySync | gsync.OutMySync | gsync.Local
			if per[0] > 1 {
				f |= gsync.AllThreads
			}
			planned := make([]atomic.Uint64, 3)
			o := coll.WithPlanned(coll.Options{}, func(image int) { planned[image].Add(1) })
			err := colltest.RunImages(per, colltest.Options{}, o, table, time.Minute,
				func(im *coll.Image, _ *colltest.Node) error {
					return repeatedCalls(im, f, len(per) > 2, &planned[im.ImageNum()])
				})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// repeatedCalls is TestRepeatedCallChecks on one image; mForms adds the
// m forms (nodes of one image); planned counts the image's calls that took
// their plan.
func repeatedCalls(im *coll.Image, f gsync.Flags, mForms bool, planned *atomic.Uint64) error {
	P, r := im.Images(), im.ImageNum()
	tm := im.TeamAll()
	buf := make([]byte, 64)
	dst, src := buf[0:8], buf[8:16]
	call := 0
	// sum makes ReduceAll call number call on d and s and checks its sum.
	sum := func(tm *images.Team, d, s []byte) error {
		call++
		binary.LittleEndian.PutUint64(s, uint64(call*P+r+1))
		if err := im.ReduceAll(tm, d, s, coll.Cyclic, 8, P, fnSumI64, 0, f); err != nil {
			return fmt.Errorf("call %d: %w", call, err)
		}
		if got, want := binary.LittleEndian.Uint64(d), uint64(call*P*P+P*(P+1)/2); got != want {
			return fmt.Errorf("call %d: sum %d, want %d", call, got, want)
		}
		return nil
	}
	repeats := func(want uint64) error { // on every team so far
		if got := planned.Load(); got != want {
			return fmt.Errorf("after call %d: %d calls repeated, want %d", call, got, want)
		}
		return nil
	}
	steps := []func() error{
		func() error { return sum(tm, dst, src) },
		func() error { return repeats(0) },
		func() error { return sum(tm, dst, src) },
		func() error { return repeats(1) },
	}
	// Calls that differ from the passed one in a buffer's length at the
	// same address, in where a buffer starts, or in any other argument:
	// each is checked and fails, and none replaces the passed call.
	type badCall struct {
		name  string
		d, s  []byte
		sl    coll.Layout
		es    int
		count int
		fn    int
		f     gsync.Flags
		want  error
	}
	ok := badCall{d: dst, s: src, sl: coll.Cyclic, es: 8, count: P, fn: fnSumI64, f: f}
	with := func(name string, want error, change func(*badCall)) badCall {
		b := ok
		b.name, b.want = name, want
		change(&b)
		return b
	}
	bad := []badCall{
		with("shorter dst", coll.ErrBufferLength, func(b *badCall) { b.d = dst[:4] }),
		with("shorter src", coll.ErrBufferLength, func(b *badCall) { b.s = src[:4] }),
		with("dst overlapping src", coll.ErrOverlap, func(b *badCall) { b.d = buf[4:12] }),
		with("src overlapping dst", coll.ErrOverlap, func(b *badCall) { b.s = buf[4:12] }),
		with("larger elements", coll.ErrBufferLength, func(b *badCall) { b.es = 16 }),
		with("no elements", coll.ErrElemCount, func(b *badCall) { b.count = 0 }),
		with("function", coll.ErrFunction, func(b *badCall) { b.fn = len(table) }),
		with("layout", coll.ErrLayout, func(b *badCall) { b.sl = coll.Layout{BlockSize: -1} }),
		with("flags", gsync.ErrManyAddressing, func(b *badCall) { b.f |= gsync.Single | gsync.Local }),
	}
	for _, b := range bad {
		steps = append(steps, func() error {
			err := im.ReduceAll(tm, b.d, b.s, b.sl, b.es, b.count, b.fn, 0, b.f)
			if !errors.Is(err, b.want) {
				return fmt.Errorf("%s: got %v, want %v", b.name, err, b.want)
			}
			return nil
		})
	}
	steps = append(steps,
		func() error { return repeats(1) },
		func() error { return sum(tm, dst, src) }, // the passed call is still the second
		func() error { return repeats(2) },
		// in place: other buffers, checked, then repeated; the first pair
		// is then checked again
		func() error { return sum(tm, src, src) },
		func() error { return sum(tm, src, src) },
		func() error { return repeats(3) },
		func() error { return sum(tm, dst, src) },
		func() error { return repeats(3) },
		// another function argument is checked
		func() error { return im.ReduceAll(tm, dst, src, coll.Cyclic, 8, P, fnSumI64, 1, f) },
		func() error { return repeats(3) },
		// another kind with the same arguments is checked, and another
		// root
		func() error {
			return im.Reduce(tm, 0, dst, src, coll.Cyclic, 8, P, fnSumI64, 1, f)
		},
		func() error {
			return im.Reduce(tm, 0, dst, src, coll.Cyclic, 8, P, fnSumI64, 1, f)
		},
		func() error { return repeats(4) },
		func() error {
			if err := im.Reduce(tm, P, dst, src, coll.Cyclic, 8, P, fnSumI64, 1, f); !errors.Is(err, coll.ErrRoot) {
				return fmt.Errorf("Reduce to root %d: got %v, want ErrRoot", P, err)
			}
			return nil
		},
		// a prefix reduction repeats; with another destination layout it
		// is checked
		func() error {
			return im.PrefixReduce(tm, dst, coll.Cyclic, src, coll.Cyclic, 8, P, fnSumI64, 0, f)
		},
		func() error {
			return im.PrefixReduce(tm, dst, coll.Cyclic, src, coll.Cyclic, 8, P, fnSumI64, 0, f)
		},
		func() error { return repeats(5) },
		func() error {
			bad := coll.Layout{BlockSize: -1}
			if err := im.PrefixReduce(tm, dst, bad, src, coll.Cyclic, 8, P, fnSumI64, 0, f); !errors.Is(err, coll.ErrLayout) {
				return fmt.Errorf("PrefixReduce with a bad destination layout: got %v, want ErrLayout", err)
			}
			return nil
		},
	)
	// The non-blocking form in an aggregate passes; the blocking form with
	// the same arguments is checked (Aggregate needs the non-blocking
	// form); the aggregate's last member closes it.
	steps = append(steps, func() error {
		h, err := im.ReduceAllNB(tm, dst, src, coll.Cyclic, 8, P, fnSumI64, 0, f|gsync.Aggregate)
		if err != nil {
			return err
		}
		if err := im.ReduceAll(tm, dst, src, coll.Cyclic, 8, P, fnSumI64, 0, f|gsync.Aggregate); !errors.Is(err, gsync.ErrAggregateBlocking) {
			return fmt.Errorf("blocking form with Aggregate after the non-blocking one: got %v, want ErrAggregateBlocking", err)
		}
		last, err := im.ReduceAllNB(tm, buf[32:40], buf[40:48], coll.Cyclic, 8, P, fnSumI64, 0, f)
		if err != nil {
			return err
		}
		return gsync.WaitAll(context.Background(), []gsync.Handle{h, last})
	}, func() error { return repeats(5) })
	// A team of its own: its calls repeat there; once destroyed, a call
	// that would repeat fails.
	var sub *images.Team
	steps = append(steps,
		func() (err error) { sub, err = im.Split(tm, 0, -r); return err },
		func() error { return sum(sub, dst, src) },
		func() error { return sum(sub, dst, src) },
		func() error { return repeats(6) },
		func() error { return im.Destroy(sub) },
		func() error {
			if err := im.ReduceAll(sub, dst, src, coll.Cyclic, 8, P, fnSumI64, 0, f); !errors.Is(err, coll.ErrTeamDestroyed) {
				return fmt.Errorf("on a destroyed team: got %v, want ErrTeamDestroyed", err)
			}
			return nil
		},
	)
	if mForms {
		// The m forms are checked every time: a list changed in place
		// fails.
		dsts, srcs := [][]byte{dst}, [][]byte{src}
		steps = append(steps,
			func() error { return im.ReduceAllM(tm, dsts, srcs, coll.Cyclic, 8, P, fnSumI64, 0, f) },
			func() error { return im.ReduceAllM(tm, dsts, srcs, coll.Cyclic, 8, P, fnSumI64, 0, f) },
			func() error { return repeats(6) },
			func() error {
				dsts[0] = dst[:4]
				if err := im.ReduceAllM(tm, dsts, srcs, coll.Cyclic, 8, P, fnSumI64, 0, f); !errors.Is(err, coll.ErrBufferLength) {
					return fmt.Errorf("m form with a list changed in place: got %v, want ErrBufferLength", err)
				}
				return nil
			},
			// and no m form stands for a single-address call without buffers
			func() error {
				if err := im.ReduceAll(tm, nil, nil, coll.Cyclic, 8, P, fnSumI64, 0, f); !errors.Is(err, coll.ErrNilBuffer) {
					return fmt.Errorf("ReduceAll without buffers after the m form: got %v, want ErrNilBuffer", err)
				}
				return nil
			},
		)
	}
	// The image is checked on every call: a repeat after Close fails.
	steps = append(steps,
		func() error { return sum(tm, dst, src) },
		func() error { return sum(tm, dst, src) },
		func() error { return im.Close() },
		func() error {
			if err := im.ReduceAll(tm, dst, src, coll.Cyclic, 8, P, fnSumI64, 0, f); !errors.Is(err, coll.ErrClosed) {
				return fmt.Errorf("after Close: got %v, want ErrClosed", err)
			}
			return nil
		},
	)
	for i, s := range steps {
		if err := s(); err != nil {
			return fmt.Errorf("image %d, step %d: %w", r, i, err)
		}
	}
	return nil
}
