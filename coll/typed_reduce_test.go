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
	matMul := coll.OpOf(matMul2, false)
	val := func(img, i int) [4]int64 { return [4]int64{1, int64((img + i) % 3), int64(img%2) - 1, 1} }
	for _, per := range [][]int{{1}, {2, 3, 1}, {3, 3}} {
		t.Run(fmt.Sprint(per), func(t *testing.T) {
			err := colltest.RunImages(per, colltest.Options{MaxDelay: 10 * time.Microsecond}, coll.Options{}, nil, time.Minute,
				func(im *coll.Image, nd *colltest.Node) error {
					tb := im.Table()
					first, k, P := tb.First(im.Node()), tb.On(im.Node()), tb.Images()
					const n = 3
					// want[j]: the product over images 0..j, lane by lane.
					want := make([][n][4]int64, P)
					for j := range P {
						for i := range n {
							want[j][i] = val(j, i)
							if j > 0 {
								want[j][i] = matMul2(want[j-1][i], val(j, i))
							}
						}
					}
					nd.Rendezvous("m", k)
					var err error
					if im.ImageNum() == first {
						err = reduceM(im, matMul, first, k, P, n, val, want)
					}
					nd.Rendezvous("m", k)
					return errors.Join(err, im.Close())
				})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

func matMul2(a, b [4]int64) [4]int64 {
	return [4]int64{a[0]*b[0] + a[1]*b[2], a[0]*b[1] + a[1]*b[3], a[2]*b[0] + a[3]*b[2], a[2]*b[1] + a[3]*b[3]}
}

// reduceM runs the four m forms for the node's k images from first.
func reduceM(im *coll.Image, op coll.Op, first, k, P, n int, val func(img, i int) [4]int64, want [][3][4]int64) error {
	f := gsync.InMySync | gsync.OutMySync | gsync.Local
	tm := im.TeamAll()
	srcs, dsts := make([][][4]int64, k), make([][][4]int64, k)
	for m := range k {
		srcs[m], dsts[m] = make([][4]int64, n), make([][4]int64, n)
		for i := range n {
			srcs[m][i] = val(first+m, i)
		}
	}
	check := func(form string, img int, got [][4]int64, w [3][4]int64) error {
		for i := range n {
			if got[i] != w[i] {
				return fmt.Errorf("%s: image %d lane %d: %v, want %v", form, img, i, got[i], w[i])
			}
		}
		return nil
	}
	if err := coll.ReduceAllMOf(im, tm, dsts, srcs, op, f); err != nil {
		return err
	}
	for m := range k {
		if err := check("ReduceAllMOf", first+m, dsts[m], want[P-1]); err != nil {
			return err
		}
	}
	if err := coll.PrefixReduceMOf(im, tm, dsts, srcs, op, f); err != nil {
		return err
	}
	for m := range k {
		if err := check("PrefixReduceMOf", first+m, dsts[m], want[first+m]); err != nil {
			return err
		}
	}
	if err := coll.ExclusivePrefixReduceMOf(im, tm, dsts, srcs, op, f); err != nil {
		return err
	}
	for m := range k {
		if first+m > 0 {
			if err := check("ExclusivePrefixReduceMOf", first+m, dsts[m], want[first+m-1]); err != nil {
				return err
			}
		}
	}
	root := P - 1 // team rank = image number on TeamAll
	var dst [][4]int64
	if first <= root && root < first+k {
		dst = make([][4]int64, n)
	}
	if err := coll.ReduceMOf(im, tm, root, dst, srcs, op, f); err != nil {
		return err
	}
	if dst != nil {
		if err := check("ReduceMOf", root, dst, want[P-1]); err != nil {
			return err
		}
	}
	// Vectors of different lengths are an error before anything moves.
	bad := append([][][4]int64{make([][4]int64, n+1)}, srcs[1:]...)
	if k > 1 {
		if err := coll.ReduceAllMOf(im, tm, dsts, bad, op, f); !errors.Is(err, coll.ErrLength) {
			return fmt.Errorf("ragged vectors: %v", err)
		}
	}
	return nil
}
