package coarray_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/gocoll/gocoll/coarray"
)

// TestOwnErrorKeepsStep: in the default mode an image that finds its own
// argument bad still takes the call's place in the team's sequence (it
// makes the agreement), so that when the other images disagree (their
// RESULT_IMAGE is valid) the call fails against theirs and the team's next
// collective pairs up right. The bad image's agreement message is made the
// size of the others' reduction, so that no conduit refuses it: then the
// next CoSum must work on every image. An image that returned at once
// would make its next CoSum meet the others' reduction. (Some images end
// the first call only at the stall timeout: every image waits for all of
// them before the next call.)
func TestOwnErrorKeepsStep(t *testing.T) {
	opts := coarray.Options{}
	opts.Coll.StallTimeout = 3 * time.Second
	for _, l := range [][]int{{1, 1}, {1, 1, 1}, {2, 2}} {
		t.Run(fmt.Sprint(l), func(t *testing.T) {
			var first sync.WaitGroup
			first.Add(sum(l))
			err := runImages(l, 0, opts, false, func(img *coarray.Image) error {
				bad := img.ThisImage() == img.NumImages()
				ri := 1
				if bad {
					ri = -5
				}
				x := make([]int64, coarray.AgreeLanes)
				err := coarray.CoSum(img, x, coarray.ResultImage(ri))
				first.Done()
				first.Wait()
				switch {
				case bad && !errors.Is(err, coarray.ErrInvalidImage):
					return fmt.Errorf("the bad image: %v, want ErrInvalidImage", err)
				case !bad && err != nil && !errors.Is(err, coarray.ErrMismatch) && !errors.Is(err, coarray.ErrStalled):
					return fmt.Errorf("another image: %v, want nil, ErrMismatch or ErrStalled", err)
				}
				y := []int{1}
				if err := coarray.CoSum(img, y); err != nil || y[0] != img.NumImages() {
					return fmt.Errorf("the next CoSum: %v, %v", y, err)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

func sum(l []int) int {
	n := 0
	for _, k := range l {
		n += k
	}
	return n
}
