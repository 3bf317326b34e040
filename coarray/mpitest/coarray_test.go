package mpitest

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/gocoll/gocoll/coarray"
	"github.com/gocoll/gocoll/coarray/coarraytest"
	"github.com/gocoll/gocoll/images"
)

// run initializes the coarray face with perNode images on every rank (each
// image a goroutine) and runs fn on each image; a failure on any image of
// the job fails the test on every rank (the verdict is agreed with CoMax).
func run(t *testing.T, perNode int, opts coarray.Options, fn func(img *coarray.Image) error) {
	t.Helper()
	c, rank, size, err := newConduit()
	if err != nil {
		t.Fatal(err)
	}
	counts := make([]int, size)
	for i := range counts {
		counts[i] = perNode
	}
	table, err := images.New(counts)
	if err != nil {
		t.Fatal(err)
	}
	errs := make([]error, perNode)
	var wg sync.WaitGroup
	for k := range perNode {
		wg.Add(1)
		go func() {
			defer wg.Done()
			img, err := coarray.Init(c, table, table.First(rank)+k, opts)
			if err != nil {
				errs[k] = err
				return
			}
			err = fn(img)
			bad := []int{0}
			if err != nil {
				bad[0] = 1
			}
			if e := coarray.CoMax(img, bad); e != nil {
				err = errors.Join(err, e)
			} else if bad[0] != 0 && err == nil {
				err = errors.New("failed on another image")
			}
			errs[k] = errors.Join(err, img.Close())
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
}

func TestMatrixMPI(t *testing.T) {
	for _, perNode := range []int{1, 2} {
		for _, unchecked := range []bool{false, true} {
			t.Run(fmt.Sprintf("images=%d/unchecked=%v", perNode, unchecked), func(t *testing.T) {
				run(t, perNode, coarray.Options{Operators: coarraytest.Operators(), Unchecked: unchecked}, coarraytest.Matrix)
			})
		}
	}
}

func TestBadInputMPI(t *testing.T) {
	for _, c := range coarraytest.BadInput {
		for _, unchecked := range []bool{false, true} {
			if c.Checked && unchecked {
				continue
			}
			t.Run(fmt.Sprintf("%s/unchecked=%v", c.Name, unchecked), func(t *testing.T) {
				run(t, 1, coarray.Options{Operators: coarraytest.BadOperators, Unchecked: unchecked},
					func(img *coarray.Image) error { return coarraytest.RunCheck(img, c) })
			})
		}
	}
}
