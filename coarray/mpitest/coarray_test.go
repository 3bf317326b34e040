package mpitest

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/gocoll/gocoll/coarray"
	"github.com/gocoll/gocoll/coarray/coarraytest"
	"github.com/gocoll/gocoll/images"
)

// run initializes the coarray face with perNode images on every rank (each
// image a goroutine) and runs fn on each image; a failure on any image of
// the job fails the test on every rank (the verdict is agreed with CoMax).
func run(t *testing.T, perNode int, opts coarray.Options, fn func(img *coarray.Image) error) {
	t.Helper()
	start(t, perNode, opts, func(img *coarray.Image) error {
		err := fn(img)
		bad := []int{0}
		if err != nil {
			bad[0] = 1
		}
		if e := coarray.CoMax(img, bad); e != nil {
			err = errors.Join(err, e)
		} else if bad[0] != 0 && err == nil {
			err = errors.New("failed on another image")
		}
		return errors.Join(err, img.Close())
	})
}

// start initializes the coarray face with perNode images on every rank,
// on a conduit of its own, runs fn on each image and fails the test on
// this rank if fn failed on one of its images.
func start(t *testing.T, perNode int, opts coarray.Options, fn func(img *coarray.Image) error) {
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
			errs[k] = fn(img)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
}

func TestMatrixMPI(t *testing.T) {
	for _, perNode := range []int{1, 2} {
		for _, checked := range []bool{false, true} {
			t.Run(fmt.Sprintf("images=%d/checked=%v", perNode, checked), func(t *testing.T) {
				run(t, perNode, coarray.Options{Operators: coarraytest.Operators(), Checked: checked}, coarraytest.Matrix)
			})
		}
	}
}

// TestBadInputMPI runs the bad input cases; one whose images disagree,
// in the default mode, stalls by design (for a second) and leaves its conduit
// unfit to close (its failed calls' messages unmatched): it runs on a
// conduit of its own that it does not close, and each rank judges its own
// images.
func TestBadInputMPI(t *testing.T) {
	for _, c := range coarraytest.BadInput {
		for _, checked := range []bool{false, true} {
			if c.Mode == coarraytest.CheckedOnly && !checked {
				continue
			}
			opts := coarray.Options{Operators: coarraytest.BadOperators, Checked: checked}
			check := func(img *coarray.Image) error { return coarraytest.RunCheck(img, c, checked) }
			t.Run(fmt.Sprintf("%s/checked=%v", c.Name, checked), func(t *testing.T) {
				if !checked && c.Mode == coarraytest.Disagree {
					opts.Coll.StallTimeout = time.Second
					start(t, 1, opts, check)
					return
				}
				run(t, 1, opts, check)
			})
		}
	}
}
