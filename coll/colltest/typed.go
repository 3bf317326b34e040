package colltest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/images"
	"github.com/gocoll/gocoll/reducefn"
	gsync "github.com/gocoll/gocoll/sync"
)

// TypedFns is the function table TypedReductions compares the typed forms
// with: the byte forms' entries for a sum of int64 and a max of float64.
var TypedFns = []reducefn.Entry{reducefn.Sum[int64](), reducefn.Max[float64]()}

// Celsius and Flags8 are named types of numbers.
type (
	Celsius float64
	Flags8  uint8
)

// Mat2 is a 2x2 integer matrix, row-major: its product is associative and
// not commutative, so a reduction by it shows the images' order.
type Mat2 [4]int64

func mulMat2(a, b Mat2) Mat2 {
	return Mat2{a[0]*b[0] + a[1]*b[2], a[0]*b[1] + a[1]*b[3], a[2]*b[0] + a[3]*b[2], a[2]*b[1] + a[3]*b[3]}
}

// The user operations TypedReductions runs: made once, as a program
// should, in the same order on every image.
var (
	matMul = coll.OpOf(mulMat2, false)
	absMax = coll.SliceOpOf(func(dst, a, b []float64) {
		for i := range dst {
			dst[i] = max(math.Abs(a[i]), math.Abs(b[i]))
		}
	}, true)
)

// TypedReductions (on images whose Init had the table TypedFns) runs every typed reduction (ReduceAllOf, ReduceOf,
// PrefixReduceOf, ExclusivePrefixReduceOf) with every built-in operation on
// the element types it takes, and with user operations (commutative and
// not), on team t and vectors of several lengths, each image checking its
// result against the fold computed from every image's source, and the
// typed sum and max against the byte forms (with TypedFns given to Init).
// Integer results must be exact; the floats are whole numbers or halves,
// so that every order of operations gives the same sum.
func TypedReductions(im *coll.Image, t *images.Team) error {
	f := gsync.InMySync | gsync.OutMySync | gsync.Single | gsync.AllThreads
	me, P := t.Rank(im.ImageNum()), t.Size()
	for _, n := range []int{1, 7, 1000} {
		c := typedCase{im: im, t: t, f: f, me: me, P: P, n: n}
		// Value of image r's lane i, small enough that no sum or product
		// of P of them overflows any of the types below.
		v := func(r, i int) int { return (r*7+i*3)%11 - 5 }
		u := func(r, i int) int { return (r*5 + i) % 13 }
		errs := []error{
			numeric(c, "int64", func(r, i int) int64 { return int64(v(r, i)) }),
			numeric(c, "int32", func(r, i int) int32 { return int32(v(r, i)) }),
			numeric(c, "int8", func(r, i int) int8 { return int8(v(r, i) % 3) }),
			numeric(c, "uint8", func(r, i int) uint8 { return uint8(u(r, i) % 2) }),
			numeric(c, "uint64", func(r, i int) uint64 { return uint64(u(r, i)) }),
			numeric(c, "float64", func(r, i int) float64 { return float64(v(r, i)) / 2 }),
			numeric(c, "float32", func(r, i int) float32 { return float32(v(r, i)) / 2 }),
			ordered(c, "int", func(r, i int) int { return v(r, i) }),
			ordered(c, "float64", func(r, i int) float64 { return float64(v(r, i)) / 4 }),
			ordered(c, "uint16", func(r, i int) uint16 { return uint16(u(r, i)) }),
			integer(c, "uint32", func(r, i int) uint32 { return uint32(u(r, i)) * 0x01010101 }),
			integer(c, "int16", func(r, i int) int16 { return int16(v(r, i)) }),
			// named types of numbers take the built-in operations too
			ordered(c, "Celsius", func(r, i int) Celsius { return Celsius(v(r, i)) / 2 }),
			numeric(c, "Celsius", func(r, i int) Celsius { return Celsius(v(r, i)) / 2 }),
			integer(c, "Flags8", func(r, i int) Flags8 { return Flags8(u(r, i)) }),
			complexes(c),
			locs(c),
			user(c),
			againstBytes(c),
		}
		if err := errors.Join(errs...); err != nil {
			return fmt.Errorf("vectors of %d: %w", n, err)
		}
	}
	return nil
}

type typedCase struct {
	im    *coll.Image
	t     *images.Team
	f     gsync.Flags
	me, P int
	n     int
}

// check runs the four typed reductions of op on image values val and
// compares each with the fold of fold over the images in rank order.
func check[T comparable](c typedCase, name string, op coll.Op, val func(r, i int) T, fold func(a, b T) T) error {
	src := func(r int) []T {
		s := make([]T, c.n)
		for i := range s {
			s[i] = val(r, i)
		}
		return s
	}
	// prefix[r] is the fold of ranks 0..r.
	prefix := make([][]T, c.P)
	prefix[0] = src(0)
	for r := 1; r < c.P; r++ {
		prefix[r] = slices.Clone(prefix[r-1])
		s := src(r)
		for i := range s {
			prefix[r][i] = fold(prefix[r][i], s[i])
		}
	}
	mine := src(c.me)
	dst := make([]T, c.n)
	what := func(form string) string { return fmt.Sprintf("%s %v of %s", form, op, name) }
	cmp := func(form string, want []T) error {
		for i := range want {
			if dst[i] != want[i] {
				return fmt.Errorf("%s: image %d lane %d: %v, want %v", what(form), c.me, i, dst[i], want[i])
			}
		}
		return nil
	}
	if err := coll.ReduceAllOf(c.im, c.t, dst, mine, op, c.f); err != nil {
		return fmt.Errorf("%s: %w", what("ReduceAllOf"), err)
	}
	if err := cmp("ReduceAllOf", prefix[c.P-1]); err != nil {
		return err
	}
	root := c.P - 1
	clear(dst)
	if err := coll.ReduceOf(c.im, c.t, root, dst, mine, op, c.f); err != nil {
		return fmt.Errorf("%s: %w", what("ReduceOf"), err)
	}
	if c.me == root {
		if err := cmp("ReduceOf", prefix[c.P-1]); err != nil {
			return err
		}
	}
	if err := coll.PrefixReduceOf(c.im, c.t, dst, mine, op, c.f); err != nil {
		return fmt.Errorf("%s: %w", what("PrefixReduceOf"), err)
	}
	if err := cmp("PrefixReduceOf", prefix[c.me]); err != nil {
		return err
	}
	if err := coll.ExclusivePrefixReduceOf(c.im, c.t, dst, mine, op, c.f); err != nil {
		return fmt.Errorf("%s: %w", what("ExclusivePrefixReduceOf"), err)
	}
	if c.me > 0 {
		return cmp("ExclusivePrefixReduceOf", prefix[c.me-1])
	}
	return nil
}

func numeric[T reducefn.Integer | reducefn.Float](c typedCase, name string, val func(r, i int) T) error {
	return errors.Join(
		check(c, name, coll.Sum, val, func(a, b T) T { return a + b }),
		check(c, name, coll.Prod, func(r, i int) T { return T((r+i)%2 + 1) }, func(a, b T) T { return a * b }),
	)
}

func ordered[T reducefn.Ordered](c typedCase, name string, val func(r, i int) T) error {
	return errors.Join(
		check(c, name, coll.Min, val, func(a, b T) T { return min(a, b) }),
		check(c, name, coll.Max, val, func(a, b T) T { return max(a, b) }),
	)
}

func integer[T reducefn.Integer](c typedCase, name string, val func(r, i int) T) error {
	b := func(x bool) T {
		if x {
			return 1
		}
		return 0
	}
	return errors.Join(
		check(c, name, coll.BitAnd, val, func(a, b T) T { return a & b }),
		check(c, name, coll.BitOr, val, func(a, b T) T { return a | b }),
		check(c, name, coll.BitXor, val, func(a, b T) T { return a ^ b }),
		check(c, name, coll.LogAnd, val, func(x, y T) T { return b(x != 0 && y != 0) }),
		check(c, name, coll.LogOr, val, func(x, y T) T { return b(x != 0 || y != 0) }),
		check(c, name, coll.LogXor, val, func(x, y T) T { return b((x != 0) != (y != 0)) }),
	)
}

func complexes(c typedCase) error {
	val := func(r, i int) complex128 { return complex(float64(r-i%3), float64(i%5)/2) }
	return errors.Join(
		check(c, "complex128", coll.Sum, val, func(a, b complex128) complex128 { return a + b }),
		check(c, "complex128", coll.Prod, func(r, i int) complex128 { return complex(0, float64(1-2*((r+i)%2))) },
			func(a, b complex128) complex128 { return a * b }),
	)
}

func locs(c typedCase) error {
	type vl = reducefn.ValLoc[float64]
	val := func(r, i int) vl { return vl{Val: float64((r*3+i)%5) / 2, Loc: int64(r)} }
	pick := func(less func(a, b float64) bool) func(a, b vl) vl {
		return func(a, b vl) vl {
			if less(b.Val, a.Val) || (b.Val == a.Val && b.Loc < a.Loc) {
				return b
			}
			return a
		}
	}
	return errors.Join(
		check(c, "ValLoc[float64]", coll.MinLoc, val, pick(func(a, b float64) bool { return a < b })),
		check(c, "ValLoc[float64]", coll.MaxLoc, val, pick(func(a, b float64) bool { return a > b })),
	)
}

func user(c typedCase) error {
	mat := func(r, i int) Mat2 { return Mat2{1, int64((r + i) % 2), int64(r%3) - 1, 1} }
	return errors.Join(
		check(c, "Mat2", matMul, mat, mulMat2),
		check(c, "float64", absMax, func(r, i int) float64 { return float64((r*7+i)%9 - 4) },
			func(a, b float64) float64 { return max(math.Abs(a), math.Abs(b)) }),
	)
}

// againstBytes compares typed forms with the byte forms of TypedFns.
func againstBytes(c typedCase) error {
	n, es := c.n, 8*c.n
	i64 := make([]int64, n)
	f64 := make([]float64, n)
	for i := range n {
		i64[i], f64[i] = int64(c.me*1000+i), float64(c.me-i)
	}
	typed, byteForm := make([]int64, n), make([]int64, n)
	if err := coll.ReduceAllOf(c.im, c.t, typed, i64, coll.Sum, c.f); err != nil {
		return err
	}
	if err := c.im.ReduceAll(c.t, reducefn.Bytes(byteForm), reducefn.Bytes(i64), coll.Cyclic, es, c.P, 0, 0, c.f); err != nil {
		return err
	}
	if !slices.Equal(typed, byteForm) {
		return fmt.Errorf("typed Sum %v, byte form %v", typed[:min(n, 4)], byteForm[:min(n, 4)])
	}
	ft, fb := make([]float64, n), make([]float64, n)
	if err := coll.PrefixReduceOf(c.im, c.t, ft, f64, coll.Max, c.f); err != nil {
		return err
	}
	if err := c.im.PrefixReduce(c.t, reducefn.Bytes(fb), coll.Cyclic, reducefn.Bytes(f64), coll.Cyclic, es, c.P, 1, 0, c.f); err != nil {
		return err
	}
	if !slices.Equal(ft, fb) {
		return fmt.Errorf("typed prefix Max %v, byte form %v", ft[:min(n, 4)], fb[:min(n, 4)])
	}
	return nil
}

// TypedReductionsM runs the typed reductions' m forms, blocking and
// non-blocking, on TeamAll with LOCAL addressing. Every image of the node
// calls it; the node's first image calls the m forms for all of them while
// the others wait (nd). Each image's vector of Mat2 is checked against the
// products in rank order (the operation is not commutative), and vectors
// of different lengths give ErrLength before anything moves.
func TypedReductionsM(im *coll.Image, nd *Node) error {
	tb := im.Table()
	k := tb.On(im.Node())
	nd.Rendezvous("typed m forms", k)
	var err error
	if im.ImageNum() == tb.First(im.Node()) {
		err = typedReductionsM(im)
	}
	nd.Rendezvous("typed m forms", k)
	return err
}

func typedReductionsM(im *coll.Image) error {
	f := gsync.InMySync | gsync.OutMySync | gsync.Local
	tm, tb := im.TeamAll(), im.Table()
	first, k, P := tb.First(im.Node()), tb.On(im.Node()), tb.Images()
	const n = 3
	val := func(img, i int) Mat2 { return Mat2{1, int64((img + i) % 3), int64(img%2) - 1, 1} }
	// upto[j]: the product over images 0..j, lane by lane.
	upto := make([][n]Mat2, P)
	for j := range P {
		for i := range n {
			upto[j][i] = val(j, i)
			if j > 0 {
				upto[j][i] = mulMat2(upto[j-1][i], val(j, i))
			}
		}
	}
	srcs, dsts := make([][]Mat2, k), make([][]Mat2, k)
	for m := range k {
		srcs[m], dsts[m] = make([]Mat2, n), make([]Mat2, n)
		for i := range n {
			srcs[m][i] = val(first+m, i)
		}
	}
	root := P - 1 // team rank = image number on TeamAll
	var rootDst []Mat2
	if first <= root && root < first+k {
		rootDst = make([]Mat2, n)
	}
	wait := func(h gsync.Handle, err error) error {
		if err != nil {
			return err
		}
		return h.Wait(context.Background())
	}
	type form struct {
		name string
		run  func() error
		want func(img int) *[n]Mat2 // nil: no result at img
	}
	all := func(int) *[n]Mat2 { return &upto[P-1] }
	incl := func(img int) *[n]Mat2 { return &upto[img] }
	excl := func(img int) *[n]Mat2 {
		if img == 0 {
			return nil
		}
		return &upto[img-1]
	}
	for _, c := range []form{
		{"ReduceAllMOf", func() error { return coll.ReduceAllMOf(im, tm, dsts, srcs, matMul, f) }, all},
		{"ReduceAllMOfNB", func() error { return wait(coll.ReduceAllMOfNB(im, tm, dsts, srcs, matMul, f)) }, all},
		{"PrefixReduceMOf", func() error { return coll.PrefixReduceMOf(im, tm, dsts, srcs, matMul, f) }, incl},
		{"PrefixReduceMOfNB", func() error { return wait(coll.PrefixReduceMOfNB(im, tm, dsts, srcs, matMul, f)) }, incl},
		{"ExclusivePrefixReduceMOf", func() error { return coll.ExclusivePrefixReduceMOf(im, tm, dsts, srcs, matMul, f) }, excl},
		{"ExclusivePrefixReduceMOfNB", func() error {
			return wait(coll.ExclusivePrefixReduceMOfNB(im, tm, dsts, srcs, matMul, f))
		}, excl},
	} {
		for _, d := range dsts {
			clear(d)
		}
		if err := c.run(); err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		for m := range k {
			if w := c.want(first + m); w != nil && !slices.Equal(dsts[m], w[:]) {
				return fmt.Errorf("%s: image %d: %v, want %v", c.name, first+m, dsts[m], *w)
			}
		}
	}
	for _, nb := range []bool{false, true} {
		clear(rootDst)
		var err error
		if nb {
			err = wait(coll.ReduceMOfNB(im, tm, root, rootDst, srcs, matMul, f))
		} else {
			err = coll.ReduceMOf(im, tm, root, rootDst, srcs, matMul, f)
		}
		if err != nil {
			return fmt.Errorf("ReduceMOf (NB %v): %w", nb, err)
		}
		if rootDst != nil && !slices.Equal(rootDst, upto[P-1][:]) {
			return fmt.Errorf("ReduceMOf (NB %v): %v, want %v", nb, rootDst, upto[P-1])
		}
	}
	if k > 1 {
		bad := append([][]Mat2{make([]Mat2, n+1)}, srcs[1:]...)
		if err := coll.ReduceAllMOf(im, tm, dsts, bad, matMul, f); !errors.Is(err, coll.ErrLength) {
			return fmt.Errorf("ragged vectors: %v", err)
		}
	}
	return nil
}
