package coarray_test

import (
	"fmt"
	"testing"

	"github.com/gocoll/gocoll/coarray"
	"github.com/gocoll/gocoll/coarray/coarraytest"
)

func TestMatrix(t *testing.T) {
	for _, unchecked := range []bool{false, true} {
		t.Run(fmt.Sprint("unchecked=", unchecked), func(t *testing.T) {
			forLayouts(t, coarray.Options{Operators: coarraytest.Operators(), Unchecked: unchecked}, coarraytest.Matrix)
		})
	}
}

func TestBadInput(t *testing.T) {
	for _, c := range coarraytest.BadInput {
		for _, unchecked := range []bool{false, true} {
			if c.Checked && unchecked {
				continue
			}
			t.Run(fmt.Sprintf("%s/unchecked=%v", c.Name, unchecked), func(t *testing.T) {
				forLayouts(t, coarray.Options{Operators: coarraytest.BadOperators, Unchecked: unchecked},
					func(img *coarray.Image) error { return coarraytest.RunCheck(img, c) })
			})
		}
	}
}
