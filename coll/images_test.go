package coll_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
)

// tables are the images tables of the matrix: nodes x images per node, and
// uneven ones.
func matrixTables(short bool) [][]int {
	var ts [][]int
	for _, P := range []int{1, 2, 3, 4, 8} {
		for _, T := range []int{1, 2, 4} {
			per := make([]int, P)
			for i := range per {
				per[i] = T
			}
			ts = append(ts, per)
		}
	}
	ts = append(ts, []int{1, 3, 2}, []int{3, 1}, []int{2, 1, 1, 3, 1})
	if !short {
		ts = append(ts, []int{2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2}, []int{1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4})
	}
	return ts
}

// TestMatrixInProcess runs the data-movement matrix on every table, with
// random message delays, on TeamAll.
func TestMatrixInProcess(t *testing.T) {
	for i, per := range matrixTables(testing.Short()) {
		t.Run(fmt.Sprint(per), func(t *testing.T) {
			t.Parallel()
			delay := colltest.Options{MaxDelay: 20 * time.Microsecond, Seed: uint64(i + 1)}
			err := colltest.RunImages(per, delay, coll.Options{Tree: coll.Tree(i % 4)}, nil, 2*time.Minute,
				func(im *coll.Image, nd *colltest.Node) error {
					return colltest.Matrix(im, nd, im.TeamAll(), colltest.MatrixConfig{})
				})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}
