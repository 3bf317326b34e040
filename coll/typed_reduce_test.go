package coll_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	gsync "github.com/gocoll/gocoll/sync"
)

// TestTypedReductions runs colltest.TypedReductions on 1 to 16 nodes of one
// image, and on nodes of several images (where the m forms' node-local
// folding and the NonComm rows meet the typed forms).
func TestTypedReductions(t *testing.T) {
	for _, per := range [][]int{{1}, {1, 1}, {1, 1, 1}, {1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1, 1, 1},
		{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, {2, 1}, {3, 2, 3}} {
		t.Run(fmt.Sprint(per), func(t *testing.T) {
			t.Parallel()
			err := colltest.RunImages(per, colltest.Options{MaxDelay: 20 * time.Microsecond}, coll.Options{},
				colltest.TypedFns, 2*time.Minute, func(im *coll.Image, _ *colltest.Node) error {
					return errors.Join(colltest.TypedReductions(im, im.TeamAll()), im.Close())
				})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestTypedReductionErrors: bad slices and operations are errors on the
// image that passes them, and images that pass different element types or
// lengths get ErrMismatch, in checked mode every one of them.
func TestTypedReductionErrors(t *testing.T) {
	type pt struct{ X, Y float64 }
	maxPt := coll.OpOf(func(a, b pt) pt { return pt{max(a.X, b.X), max(a.Y, b.Y)} }, true)
	const P = 3
	err := colltest.Run(P, colltest.Options{}, coll.Options{Check: true}, time.Minute, func(im *coll.Image) error {
		tm, f := im.TeamAll(), gsync.InMySync|gsync.OutMySync|gsync.Single
		x, y := make([]float64, 4), make([]float64, 3)
		for _, c := range []struct {
			name string
			err  error
			want error
		}{
			{"lengths differ", coll.ReduceAllOf(im, tm, y, x, coll.Sum, f), coll.ErrLength},
			{"empty", coll.ReduceAllOf(im, tm, y[:0], y[:0], coll.Sum, f), coll.ErrLength},
			{"nil dst", coll.PrefixReduceOf(im, tm, nil, x, coll.Sum, f), coll.ErrLength},
			{"no operation", coll.ReduceAllOf(im, tm, make([]float64, 4), x, coll.Op{}, f), coll.ErrOp},
			{"nil function", coll.ReduceAllOf(im, tm, make([]float64, 4), x, coll.OpOf[float64](nil, true), f), coll.ErrOp},
			{"Sum of a struct", coll.ReduceAllOf(im, tm, make([]pt, 1), make([]pt, 1), coll.Sum, f), coll.ErrOpType},
			{"bits of floats", coll.ReduceAllOf(im, tm, make([]float64, 4), x, coll.BitXor, f), coll.ErrOpType},
			{"MinLoc of floats", coll.ReduceAllOf(im, tm, make([]float64, 4), x, coll.MinLoc, f), coll.ErrOpType},
			{"user op of another type", coll.ReduceAllOf(im, tm, make([]float64, 4), x, maxPt, f), coll.ErrOpType},
			{"pointers", coll.ReduceAllOf(im, tm, make([]*int, 1), make([]*int, 1), coll.Sum, f), coll.ErrType},
		} {
			if !errors.Is(c.err, c.want) {
				return fmt.Errorf("%s: %v, want %v", c.name, c.err, c.want)
			}
		}
		// A user operation on its own type works.
		ps := []pt{{float64(im.ImageNum()), -float64(im.ImageNum())}}
		out := make([]pt, 1)
		if err := coll.ReduceAllOf(im, tm, out, ps, maxPt, f); err != nil || out[0] != (pt{P - 1, 0}) {
			return fmt.Errorf("maxPt: %v %v", out, err)
		}
		// Image 0 reduces int64s, the others float64s of the same size:
		// every image learns that the calls differ.
		var err error
		if im.ImageNum() == 0 {
			err = coll.ReduceAllOf(im, tm, make([]int64, 2), make([]int64, 2), coll.Sum, f)
		} else {
			err = coll.ReduceAllOf(im, tm, make([]float64, 2), make([]float64, 2), coll.Sum, f)
		}
		if !errors.Is(err, coll.ErrMismatch) {
			return fmt.Errorf("element types differ: %v", err)
		}
		// And the last image a longer vector.
		n := 2
		if im.ImageNum() == P-1 {
			n = 3
		}
		err = coll.ReduceAllOf(im, tm, make([]float64, n), make([]float64, n), coll.Max, f)
		if !errors.Is(err, coll.ErrMismatch) {
			return fmt.Errorf("lengths differ between images: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestTypedReductionsM: the m forms on nodes of several images, each
// node's first image calling for all of its images (LOCAL lists), with a
// commutative and a non-commutative operation, against the fold over the
// images in rank order.
func TestTypedReductionsM(t *testing.T) {
	for _, per := range [][]int{{1}, {2, 3, 1}, {3, 3}} {
		t.Run(fmt.Sprint(per), func(t *testing.T) {
			err := colltest.RunImages(per, colltest.Options{MaxDelay: 10 * time.Microsecond}, coll.Options{}, nil, time.Minute,
				func(im *coll.Image, nd *colltest.Node) error {
					return errors.Join(colltest.TypedReductionsM(im, nd), im.Close())
				})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}
