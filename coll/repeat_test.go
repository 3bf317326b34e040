package coll_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	"github.com/gocoll/gocoll/images"
	gsync "github.com/gocoll/gocoll/sync"
)

// TestRepeatedCallChecks: a computational call that repeats the team's
// last passed one (same key, same buffers) skips the buffer checks
// (repeat.go); anything else about a call is still checked, and a call
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
			err := colltest.RunImages(per, colltest.Options{}, coll.Options{}, table, time.Minute,
				func(im *coll.Image, _ *colltest.Node) error {
					return repeatedCalls(im, f, len(per) > 2)
				})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// repeatedCalls is TestRepeatedCallChecks on one image; mForms adds the
// m forms (nodes of one image).
func repeatedCalls(im *coll.Image, f gsync.Flags, mForms bool) error {
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
	repeats := func(tm *images.Team, want uint64) error {
		if got := coll.Repeats(im, tm); got != want {
			return fmt.Errorf("after call %d: %d calls repeated, want %d", call, got, want)
		}
		return nil
	}
	steps := []func() error{
		func() error { return sum(tm, dst, src) },
		func() error { return repeats(tm, 0) },
		func() error { return sum(tm, dst, src) },
		func() error { return repeats(tm, 1) },
	}
	// Calls that differ from the passed one in a buffer's length at the
	// same address, in where a buffer starts, or in the key: each is
	// checked and fails, and none replaces the passed call.
	bad := []struct {
		name string
		d, s []byte
		es   int
		fn   int
		want error
	}{
		{"shorter dst", dst[:4], src, 8, fnSumI64, coll.ErrBufferLength},
		{"shorter src", dst, src[:4], 8, fnSumI64, coll.ErrBufferLength},
		{"dst overlapping src", buf[4:12], src, 8, fnSumI64, coll.ErrOverlap},
		{"src overlapping dst", dst, buf[4:12], 8, fnSumI64, coll.ErrOverlap},
		{"larger elements", dst, src, 16, fnSumI64, coll.ErrBufferLength},
		{"function", dst, src, 8, len(table), coll.ErrFunction},
	}
	for _, b := range bad {
		steps = append(steps, func() error {
			err := im.ReduceAll(tm, b.d, b.s, coll.Cyclic, b.es, P, b.fn, 0, f)
			if !errors.Is(err, b.want) {
				return fmt.Errorf("%s: got %v, want %v", b.name, err, b.want)
			}
			return nil
		})
	}
	steps = append(steps,
		func() error { return repeats(tm, 1) },
		func() error { return sum(tm, dst, src) }, // the passed call is still the second
		func() error { return repeats(tm, 2) },
		// in place: other buffers, checked, then repeated; the first pair
		// is then checked again
		func() error { return sum(tm, src, src) },
		func() error { return sum(tm, src, src) },
		func() error { return repeats(tm, 3) },
		func() error { return sum(tm, dst, src) },
		func() error { return repeats(tm, 3) },
		// another kind on the same buffers is checked
		func() error {
			return im.Reduce(tm, 0, dst, src, coll.Cyclic, 8, P, fnSumI64, 0, f)
		},
		func() error { return repeats(tm, 3) },
	)
	// A team of its own: its calls repeat there; once destroyed, a call
	// that would repeat fails.
	var sub *images.Team
	steps = append(steps,
		func() (err error) { sub, err = im.Split(tm, 0, -r); return err },
		func() error { return sum(sub, dst, src) },
		func() error { return sum(sub, dst, src) },
		func() error { return repeats(sub, 1) },
		func() error { return repeats(tm, 3) },
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
			func() error { return repeats(tm, 3) },
			func() error {
				dsts[0] = dst[:4]
				if err := im.ReduceAllM(tm, dsts, srcs, coll.Cyclic, 8, P, fnSumI64, 0, f); !errors.Is(err, coll.ErrBufferLength) {
					return fmt.Errorf("m form with a list changed in place: got %v, want ErrBufferLength", err)
				}
				return nil
			},
		)
	}
	steps = append(steps,
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
