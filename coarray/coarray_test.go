package coarray_test

import (
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/gocoll/gocoll/coarray"
	"github.com/gocoll/gocoll/coarray/coarraytest"
)

// TestMatrix runs the conformance matrix in the default mode on every
// layout, and in the checked mode (several times slower in process: every
// call first agrees, a reduction that holds every image) on two: three
// nodes of one image, and uneven nodes of several images.
func TestMatrix(t *testing.T) {
	opts := coarray.Options{Operators: coarraytest.Operators()}
	t.Run("checked=false", func(t *testing.T) {
		forLayouts(t, opts, layouts, true, coarraytest.Matrix)
	})
	opts.Checked = true
	t.Run("checked=true", func(t *testing.T) {
		forLayouts(t, opts, [][]int{{1, 1, 1}, {1, 3}}, true, coarraytest.Matrix)
	})
}

func TestBadInput(t *testing.T) {
	for _, c := range coarraytest.BadInput {
		for _, checked := range []bool{false, true} {
			if c.Mode == coarraytest.CheckedOnly && !checked {
				continue
			}
			opts, closing := badInputOptions(c, checked)
			t.Run(fmt.Sprintf("%s/checked=%v", c.Name, checked), func(t *testing.T) {
				forLayouts(t, opts, layouts, closing, func(img *coarray.Image) error { return coarraytest.RunCheck(img, c, checked) })
			})
		}
	}
}

// badInputOptions are the options of case c's run: a case whose images
// disagree, run in the default mode, stalls by design (for a second: any
// error is a right outcome there), and leaves its job unfit to close (its
// failed calls' messages unmatched).
func badInputOptions(c coarraytest.Check, checked bool) (opts coarray.Options, closing bool) {
	opts = coarray.Options{Operators: coarraytest.BadOperators, Checked: checked}
	if !checked && c.Mode == coarraytest.Disagree {
		opts.Coll.StallTimeout = time.Second
		return opts, false
	}
	return opts, true
}

// faceCall is a collective the allocation tests call.
type faceCall struct {
	name string
	call func() error
}

// faceCalls are the collectives the allocation tests call on a small
// vector of img's, in the same order on every image (a map's order would
// differ from image to image, and their collectives with it).
func faceCalls(img *coarray.Image) []faceCall {
	x := []float64{1, 2}
	return []faceCall{
		{"CoSum", func() error { return coarray.CoSum(img, x) }},
		{"CoSum ResultImage", func() error { return coarray.CoSum(img, x, coarray.ResultImage(1)) }},
		{"CoMax", func() error { return coarray.CoMax(img, x) }},
		{"CoBroadcast", func() error { return coarray.CoBroadcast(img, x, 1) }},
	}
}

// TestNoAllocation: a collective of the face allocates nothing per call
// (on one image, where the engine has nothing to move, what remains is the
// face's own work: options, checks, the agreement's test).
func TestNoAllocation(t *testing.T) {
	err := runImages([]int{1}, 0, coarray.Options{}, true, func(img *coarray.Image) error {
		for _, c := range faceCalls(img) {
			var err error
			if n := testing.AllocsPerRun(100, func() { err = errors.Join(err, c.call()) }); n != 0 || err != nil {
				return fmt.Errorf("%s: %v allocations per call, error %v", c.name, n, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestNoAllocationImages: with two images, where the engine moves data
// (through memory: one node), a call allocates nothing either. (collErr,
// which wraps the engine's errors, once allocated on every call that
// succeeded.) The two images call in step; the count is the whole
// process's, so that either image's allocations show, with room for the
// runtime's own.
func TestNoAllocationImages(t *testing.T) {
	if raceOn {
		t.Skip("the race detector's sync.Pool drops what it is given: the engine's records are then allocated anew")
	}
	const calls = 2000
	err := runImages([]int{2}, 0, coarray.Options{}, true, func(img *coarray.Image) error {
		for _, c := range faceCalls(img) {
			for range 10 { // warm up: buffers the engine keeps
				if err := c.call(); err != nil {
					return err
				}
			}
			if err := img.SyncAll(); err != nil {
				return err
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for range calls {
				if err := c.call(); err != nil {
					return err
				}
			}
			runtime.ReadMemStats(&after)
			if err := img.SyncAll(); err != nil {
				return err
			}
			if n := after.Mallocs - before.Mallocs; n > calls/20 {
				return fmt.Errorf("%s: %d allocations in the process over %d calls", c.name, n, calls)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
