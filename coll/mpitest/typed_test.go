package mpitest

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	"github.com/gocoll/gocoll/mpiconduit"
	"github.com/gocoll/gocoll/mpiconduit/mpi"
	gsync "github.com/gocoll/gocoll/sync"
)

// typedImage is an image with colltest.TypedFns, closed (draining what it
// owes its peers) at the test's end.
func typedImage(t *testing.T) *coll.Image {
	t.Helper()
	cd, err := mpiconduit.NewConduit(mpi.World())
	if err != nil {
		t.Fatal(err)
	}
	im, err := coll.Init(cd, nil, 0, colltest.TypedFns, 0, coll.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := errors.Join(im.Close(), cd.Close()); err != nil {
			t.Error(err)
		}
	})
	return im
}

// TestTypedReductionsMPI runs colltest.TypedReductions under mpirun.
func TestTypedReductionsMPI(t *testing.T) {
	im := typedImage(t)
	if err := colltest.TypedReductions(im, im.TeamAll()); err != nil {
		t.Fatal(err)
	}
}

// TestTypedMatchNativeMPI compares the typed reductions with MPI_Allreduce,
// MPI_Reduce, MPI_Scan and MPI_Exscan on the same vectors: integers
// exactly, floats within the bound of a different order of the additions.
func TestTypedMatchNativeMPI(t *testing.T) {
	im := typedImage(t)
	w := mpi.World()
	P, me, tm := w.Size(), w.Rank(), im.TeamAll()
	// OUT_ALLSYNC: a native collective follows each call and makes no
	// gocoll progress (see TestReductionsMatchNative).
	f := gsync.InMySync | gsync.OutAllSync | gsync.Local
	root := P / 2
	for _, k := range []int{1, 5, 1 << 12, 1 << 17} {
		iv, fv := make([]int64, k), make([]float64, k)
		for i := range iv {
			iv[i] = int64((me+1)*1000003) - int64(i)*7919 + int64(i%5)<<40
			fv[i] = math.Sin(float64(me*k+i)) * 1e3
		}
		ig, in := make([]int64, k), make([]int64, k)
		fg, fn := make([]float64, k), make([]float64, k)
		type pair struct {
			name   string
			gocoll func() error
			native func() error
			floats bool
			skip   bool // no defined result on this image
		}
		for _, c := range []pair{
			{"Allreduce sum int64", func() error { return coll.ReduceAllOf(im, tm, ig, iv, coll.Sum, f) },
				func() error { return mpi.Allreduce(w, iv, in, mpi.OpSum) }, false, false},
			{"Allreduce bxor int64", func() error { return coll.ReduceAllOf(im, tm, ig, iv, coll.BitXor, f) },
				func() error { return mpi.Allreduce(w, iv, in, mpi.OpBxor) }, false, false},
			{"Allreduce min int64", func() error { return coll.ReduceAllOf(im, tm, ig, iv, coll.Min, f) },
				func() error { return mpi.Allreduce(w, iv, in, mpi.OpMin) }, false, false},
			{"Reduce max int64", func() error { return coll.ReduceOf(im, tm, root, ig, iv, coll.Max, f) },
				func() error { return mpi.Reduce(w, iv, in, mpi.OpMax, root) }, false, me != root},
			{"Scan sum int64", func() error { return coll.PrefixReduceOf(im, tm, ig, iv, coll.Sum, f) },
				func() error { return mpi.Scan(w, iv, in, mpi.OpSum) }, false, false},
			{"Exscan sum int64", func() error { return coll.ExclusivePrefixReduceOf(im, tm, ig, iv, coll.Sum, f) },
				func() error { return mpi.Exscan(w, iv, in, mpi.OpSum) }, false, me == 0},
			{"Allreduce sum float64", func() error { return coll.ReduceAllOf(im, tm, fg, fv, coll.Sum, f) },
				func() error { return mpi.Allreduce(w, fv, fn, mpi.OpSum) }, true, false},
			{"Allreduce max float64", func() error { return coll.ReduceAllOf(im, tm, fg, fv, coll.Max, f) },
				func() error { return mpi.Allreduce(w, fv, fn, mpi.OpMax) }, false, false},
			{"Scan sum float64", func() error { return coll.PrefixReduceOf(im, tm, fg, fv, coll.Sum, f) },
				func() error { return mpi.Scan(w, fv, fn, mpi.OpSum) }, true, false},
		} {
			if err := errors.Join(c.gocoll(), c.native()); err != nil {
				t.Fatalf("%s, %d: %v", c.name, k, err)
			}
			if c.skip {
				continue
			}
			if err := agree(ig, in, fg, fn, c.floats, c.name, P); err != nil {
				t.Fatalf("rank %d, %d elements: %v", me, k, err)
			}
		}
	}
}

// agree compares gocoll's results with the native ones: the integers and
// a float min or max exactly, a float sum of P terms within P ulps of the
// sum of their magnitudes (1e3 each here).
func agree(ig, in []int64, fg, fn []float64, sum bool, name string, P int) error {
	for i := range ig {
		if ig[i] != in[i] {
			return fmt.Errorf("%s lane %d: gocoll %d, MPI %d", name, i, ig[i], in[i])
		}
		tol := 0.0
		if sum {
			tol = float64(P) * 1e3 * float64(P) * 0x1p-52
		}
		if math.Abs(fg[i]-fn[i]) > tol {
			return fmt.Errorf("%s lane %d: gocoll %v, MPI %v", name, i, fg[i], fn[i])
		}
	}
	return nil
}

// TestTypedReductionsMMPI runs colltest.TypedReductionsM under mpirun
// with one, two, four and an uneven number of images per rank.
func TestTypedReductionsMMPI(t *testing.T) {
	for _, per := range tables(mpi.World().Size()) {
		t.Run(fmt.Sprint(per), func(t *testing.T) {
			err := runImages(per, coll.Options{}, func(im *coll.Image, nd *colltest.Node) error {
				return errors.Join(colltest.TypedReductionsM(im, nd), im.Close())
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}
