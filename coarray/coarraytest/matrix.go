// Package coarraytest holds the coarray face's conformance checks: the
// matrix of every collective on every element type (Matrix) and the bad
// input cases (BadInput), run by the package's in-process tests and under
// mpirun by coarray/mpitest. Every image of a job calls them alike.
package coarraytest

import (
	"fmt"
	"reflect"

	"github.com/gocoll/gocoll/coarray"
	"github.com/gocoll/gocoll/reducefn"
)

// The matrix: every collective on every element type, on a scalar and on
// slices, with and without RESULT_IMAGE, in the initial team and in split
// teams, against values computed locally. Image i (1-based in the team)
// holds val(i, j) at index j, so every image knows every image's data.

// rec is a derived type: numbers of several sizes and a fixed array.
type rec struct {
	A int16
	B float64
	C [3]int8
	D bool
}

func addRec(x, y rec) rec {
	return rec{A: x.A + y.A, B: x.B + y.B, C: [3]int8{x.C[0] + y.C[0], x.C[1] + y.C[1], x.C[2] + y.C[2]}, D: x.D || y.D}
}

func add[T reducefn.Number](a, b T) T { return a + b }

// tcase is one element type: what it runs on an image, given its
// operator's index.
type tcase struct {
	name string
	op   coarray.Operator
	run  func(img *coarray.Image, op coarray.Op, n, resultImage int) error
}

// numVal is a value exactly representable in every number type, so that
// float sums are exact in any order; negative for signed types only.
func numVal[T reducefn.Number](i, j int) T {
	var z T
	x := (i*7+j*3)%11 + 1
	if reflect.ValueOf(z).CanInt() && (i+j)%2 == 0 {
		x = -x
	}
	switch any(z).(type) {
	case complex64:
		return any(complex(float32(x), float32(-i))).(T)
	case complex128:
		return any(complex(float64(x), float64(-i))).(T)
	}
	return T(reflect.ValueOf(x).Convert(reflect.TypeFor[T]()).Interface().(T))
}

// expectAt checks a on this image after a collective whose result lands on
// resultImage (0: all): want is the result.
func expectAt[T any](img *coarray.Image, what string, a, want []T, resultImage int) error {
	if resultImage != 0 && resultImage != img.ThisImage() {
		// Undefined here: scribble over it at once, so that a collective
		// still reading it after returning spoils the result image's.
		clear(a)
		return nil
	}
	if !reflect.DeepEqual(a, want) {
		return fmt.Errorf("%s on image %d of %d: got %v, want %v", what, img.ThisImage(), img.NumImages(), a, want)
	}
	return nil
}

// fold is the element-wise fold over the team of val with f.
func fold[T any](img *coarray.Image, n int, val func(i, j int) T, f func(a, b T) T) []T {
	want := make([]T, n)
	for j := range n {
		want[j] = val(1, j)
		for i := 2; i <= img.NumImages(); i++ {
			want[j] = f(want[j], val(i, j))
		}
	}
	return want
}

func mine[T any](img *coarray.Image, n int, val func(i, j int) T) []T {
	a := make([]T, n)
	for j := range a {
		a[j] = val(img.ThisImage(), j)
	}
	return a
}

// common runs CO_BROADCAST from every image and CO_REDUCE with op.
func common[T any](img *coarray.Image, op coarray.Op, n, ri int, val func(i, j int) T, f func(a, b T) T) error {
	for src := 1; src <= img.NumImages(); src++ {
		a := mine(img, n, val)
		if err := coarray.CoBroadcast(img, a, src); err != nil {
			return err
		}
		want := make([]T, n)
		for j := range want {
			want[j] = val(src, j)
		}
		if err := expectAt(img, fmt.Sprint("co_broadcast from ", src), a, want, 0); err != nil {
			return err
		}
	}
	a := mine(img, n, val)
	if err := coarray.CoReduce(img, a, op, coarray.ResultImage(ri)); err != nil {
		return err
	}
	return expectAt(img, "co_reduce", a, fold(img, n, val, f), ri)
}

func numCase[T reducefn.Number](name string) tcase {
	return tcase{name: name, op: coarray.OperatorOf(add[T], 0), run: func(img *coarray.Image, op coarray.Op, n, ri int) error {
		a := mine(img, n, numVal[T])
		if err := coarray.CoSum(img, a, coarray.ResultImage(ri)); err != nil {
			return err
		}
		if err := expectAt(img, "co_sum", a, fold(img, n, numVal[T], add[T]), ri); err != nil {
			return err
		}
		return common(img, op, n, ri, numVal[T], add[T])
	}}
}

func ordCase[T reducefn.Integer | reducefn.Float](name string) tcase {
	c := numCase[T](name)
	sum := c.run
	c.run = func(img *coarray.Image, op coarray.Op, n, ri int) error {
		if err := sum(img, op, n, ri); err != nil {
			return err
		}
		return minMax(img, n, ri, numVal[T], nil)
	}
	return c
}

func minMax[T coarray.Ordered](img *coarray.Image, n, ri int, val func(i, j int) T, opts []coarray.Option) error {
	for _, m := range []struct {
		name string
		co   func(*coarray.Image, []T, ...coarray.Option) error
		f    func(a, b T) T
	}{{"co_min", coarray.CoMin[T], func(a, b T) T { return min(a, b) }}, {"co_max", coarray.CoMax[T], func(a, b T) T { return max(a, b) }}} {
		a := mine(img, n, val)
		if err := m.co(img, a, append(opts, coarray.ResultImage(ri))...); err != nil {
			return err
		}
		if err := expectAt(img, m.name, a, fold(img, n, val, m.f), ri); err != nil {
			return err
		}
	}
	return nil
}

// strVal: values of different lengths, blank-padded to the longest of the
// team by the collectives.
func strVal(i, j int) string { return fmt.Sprintf("%c%d", 'a'+(i*5+j)%7, i)[:1+(i+j)%2] }

func pad(s string, w int) string { return fmt.Sprintf("%-*s", w, s) }

// cat is associative and keeps the length of its operands, as a Fortran
// character function of the same length does.
func cat(a, b string) string { return a[:1] + b[1:] }

var cases = []tcase{
	ordCase[int]("int"), ordCase[int8]("int8"), ordCase[int16]("int16"), ordCase[int32]("int32"), ordCase[int64]("int64"),
	ordCase[uint]("uint"), ordCase[uint8]("uint8"), ordCase[uint16]("uint16"), ordCase[uint32]("uint32"), ordCase[uint64]("uint64"),
	ordCase[float32]("float32"), ordCase[float64]("float64"),
	numCase[complex64]("complex64"), numCase[complex128]("complex128"),
	{name: "bool", op: coarray.OperatorOf(func(a, b bool) bool { return a != b }, 0),
		run: func(img *coarray.Image, op coarray.Op, n, ri int) error {
			val := func(i, j int) bool { return (i*3+j)%4 == 0 }
			return common(img, op, n, ri, val, func(a, b bool) bool { return a != b })
		}},
	{name: "struct", op: coarray.OperatorOf(addRec, 0),
		run: func(img *coarray.Image, op coarray.Op, n, ri int) error {
			val := func(i, j int) rec {
				return rec{A: int16(i*100 + j), B: float64(i) / 2, C: [3]int8{int8(i), int8(j), -1}, D: i == 2}
			}
			return common(img, op, n, ri, val, addRec)
		}},
	{name: "string", op: coarray.OperatorOf(cat, reducefn.NonComm),
		run: func(img *coarray.Image, op coarray.Op, n, ri int) error {
			w := 0
			for i := 1; i <= img.NumImages(); i++ {
				for j := range n {
					w = max(w, len(strVal(i, j)))
				}
			}
			padded := func(i, j int) string { return pad(strVal(i, j), w) }
			// The results are the padded values, with or without CharLen.
			for _, opts := range [][]coarray.Option{nil, {coarray.CharLen(w + 2)}} {
				width := w
				if opts != nil {
					width = w + 2
				}
				for _, m := range []struct {
					co   func(*coarray.Image, []string, ...coarray.Option) error
					pick func(a, b string) string
				}{{coarray.CoMin[string], func(a, b string) string { return min(a, b) }}, {coarray.CoMax[string], func(a, b string) string { return max(a, b) }}} {
					a := mine(img, n, strVal)
					if err := m.co(img, a, append(opts, coarray.ResultImage(ri))...); err != nil {
						return err
					}
					want := fold(img, n, func(i, j int) string { return pad(strVal(i, j), width) }, m.pick)
					if err := expectAt(img, "string min/max", a, want, ri); err != nil {
						return err
					}
				}
			}
			src := img.NumImages()
			a := mine(img, n, strVal)
			if err := coarray.CoBroadcast(img, a, src); err != nil {
				return err
			}
			sw := 0
			for j := range n {
				sw = max(sw, len(strVal(src, j)))
			}
			want := make([]string, n)
			for j := range want {
				want[j] = pad(strVal(src, j), sw)
			}
			if err := expectAt(img, "string co_broadcast", a, want, 0); err != nil {
				return err
			}
			a = mine(img, n, strVal)
			if err := coarray.CoReduce(img, a, op, coarray.ResultImage(ri)); err != nil {
				return err
			}
			want = fold(img, n, padded, func(a, b string) string { return pad(cat(a, b), w) })
			return expectAt(img, "string co_reduce", a, want, ri)
		}},
}

// Operators are the operators Matrix needs, to give Init.
func Operators() []coarray.Operator {
	var o []coarray.Operator
	for _, c := range cases {
		o = append(o, c.op)
	}
	return o
}

// matrix runs every case on img's current team: scalar and slices, every
// result image and none.
func matrix(img *coarray.Image) error {
	for k, c := range cases {
		for _, n := range []int{1, 3, 1000} {
			for ri := 0; ri <= img.NumImages(); ri++ {
				if n > 1 && ri != 0 && ri != img.NumImages() {
					continue
				}
				var err error
				if n == 1 { // the scalar form
					err = c.run(img, coarray.Op(k), 1, ri)
				} else {
					err = c.run(img, coarray.Op(k), n, ri)
				}
				if err != nil {
					return fmt.Errorf("%s, n=%d, result image %d, team %d: %w", c.name, n, ri, img.TeamNumber(), err)
				}
			}
		}
	}
	return nil
}

// Matrix is the whole matrix in the initial team and in teams split by
// parity of the image index (with NEW_INDEX reversing the order).
func Matrix(img *coarray.Image) error {
	if err := matrix(img); err != nil {
		return err
	}
	me, n := img.ThisImage(), img.NumImages()
	number := 1 + me%2
	size := n / 2 // images of my parity
	if me%2 == 1 {
		size = (n + 1) / 2
	}
	team, err := img.FormTeam(number, size-(me-1)/2)
	if err != nil {
		return err
	}
	defer team.Free()
	return img.ChangeTeam(team, func(in *coarray.Image) error {
		if in.NumImages() != size || in.ThisImage() != size-(me-1)/2 || in.TeamNumber() != number {
			return fmt.Errorf("in team %d: image %d of %d, want %d of %d", in.TeamNumber(), in.ThisImage(), in.NumImages(), size-(me-1)/2, size)
		}
		return matrix(in)
	})
}
