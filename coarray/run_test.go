package coarray_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/gocoll/gocoll/coarray"
	"github.com/gocoll/gocoll/coll/colltest"
	"github.com/gocoll/gocoll/images"
)

// runImages starts in-process nodes with perNode images each, initializes
// the coarray face on every image and runs fn on each, then closes the
// images if closing; it returns the images' errors joined, or an error
// after three minutes (a hang).
func runImages(perNode []int, delay time.Duration, opts coarray.Options, closing bool, fn func(img *coarray.Image) error) error {
	table, err := images.New(perNode)
	if err != nil {
		return err
	}
	w := colltest.NewWorld(len(perNode), colltest.Options{MaxDelay: delay})
	errs := make([]error, table.Images())
	var wg sync.WaitGroup
	for node := range perNode {
		for k := range perNode[node] {
			me := table.First(node) + k
			wg.Add(1)
			go func() {
				defer wg.Done()
				img, err := coarray.Init(w.Conduit(node), table, me, opts)
				if err != nil {
					errs[me] = err
					return
				}
				if err := fn(img); err != nil {
					errs[me] = fmt.Errorf("image %d: %w", me, err)
				}
				if closing {
					errs[me] = errors.Join(errs[me], img.Close())
				}
			}()
		}
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		return errors.Join(errs...)
	case <-time.After(3 * time.Minute):
		return errors.New("timed out: a collective hangs")
	}
}

// layouts are the jobs the tests run on: one to four nodes of one image,
// and nodes of several images.
var layouts = [][]int{{1}, {1, 1}, {1, 1, 1}, {1, 1, 1, 1}, {2, 2}, {1, 3}}

func forLayouts(t *testing.T, opts coarray.Options, layouts [][]int, closing bool, fn func(img *coarray.Image) error) {
	t.Helper()
	for _, l := range layouts {
		t.Run(fmt.Sprint(l), func(t *testing.T) {
			if err := runImages(l, 0, opts, closing, fn); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestSmoke(t *testing.T) {
	forLayouts(t, coarray.Options{}, layouts, true, func(img *coarray.Image) error {
		x := []float64{float64(img.ThisImage()), 1}
		if err := coarray.CoSum(img, x); err != nil {
			return err
		}
		n := img.NumImages()
		if x[0] != float64(n*(n+1)/2) || x[1] != float64(n) {
			return fmt.Errorf("co_sum: %v", x)
		}
		s := []string{fmt.Sprint("img", img.ThisImage())}
		if err := coarray.CoMax(img, s); err != nil {
			return err
		}
		if s[0] != fmt.Sprint("img", n) {
			return fmt.Errorf("co_max: %q", s)
		}
		return img.SyncAll()
	})
}
