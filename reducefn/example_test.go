package reducefn_test

import (
	"fmt"

	"github.com/gocoll/gocoll/reducefn"
)

// A function table as every node registers it, in the same order (an
// operator's handle is its index), and one call the way gocoll makes it: a
// prefix-reduction step with two partial results on the left and three
// operands on the right, each element a vector of two float64.
func Example() {
	table := []reducefn.Entry{
		reducefn.Sum[float64](),    // handle 0
		reducefn.MinLoc[float64](), // handle 1
		reducefn.MaxString(),       // handle 2
	}

	sum := table[0]
	left := []float64{1, 10, 2, 20}
	right := []float64{3, 30, 4, 40, 5, 50}
	results := make([]float64, len(right))
	elemSize := 2 * sum.Scalar
	sum.Fn(reducefn.Bytes(results), reducefn.Bytes(left), reducefn.Bytes(right), elemSize, sum.Flags, 0)
	fmt.Println(results)

	// MINLOC over three images' values, as a reduction: one right operand.
	minloc := table[1]
	type vl = reducefn.ValLoc[float64]
	partial := []vl{{Val: 2.5, Loc: 3}, {Val: 1.5, Loc: 2}}
	mine := []vl{{Val: 1.5, Loc: 0}}
	out := make([]vl, 1)
	minloc.Fn(reducefn.Bytes(out), reducefn.Bytes(partial), reducefn.Bytes(mine), minloc.Scalar, minloc.Flags, 0)
	fmt.Printf("%+v\n", out[0])

	// CO_MAX on CHARACTER(LEN=5), blank padded.
	maxs := table[2]
	str := make([]byte, 5)
	maxs.Fn(str, []byte("apple"), []byte("apply"), 5, maxs.Flags, 0)
	fmt.Printf("%q\n", str)
	// Output:
	// [6 60 10 100 15 150]
	// {Val:1.5 Loc:0}
	// "apply"
}

// Elementwise makes a Func of an operation on one element: here elements
// of two bytes, the larger by their first byte.
func ExampleElementwise() {
	larger := reducefn.Elementwise(func(dst, a, b []byte, _ int) {
		if b[0] > a[0] {
			a = b
		}
		copy(dst, a)
	})
	left := []byte{1, 'a'}
	right := []byte{3, 'b', 2, 'c', 5, 'd'}
	out := make([]byte, len(right))
	larger(out, left, right, 2, 0, 0) // the fold of left, then the prefix over right
	fmt.Printf("%d%c %d%c %d%c\n", out[0], out[1], out[2], out[3], out[4], out[5])
	// Output: 3b 3b 5d
}
