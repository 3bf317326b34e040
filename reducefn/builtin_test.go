package reducefn_test

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/gocoll/gocoll/reducefn"
)

// The shapes every operator is checked on: left operands without results,
// right operands with results, and scalars per element.
var (
	leftCounts  = []int{0, 1, 3}
	rightCounts = []int{1, 2, 5}
	lanes       = []int{1, 3, 40} // 40: past gonumMinLanes
)

const trials = 4 // random inputs per shape

// celsius checks that the ~ constraints take named types.
type celsius float64

// call runs e on typed operands the way gocoll does: byte views of aligned
// []T buffers, elemSize = k scalars.
func call[T any](t *testing.T, e reducefn.Entry, left, right []T, k int) []T {
	t.Helper()
	results := make([]T, len(right))
	for _, s := range [][]T{results, left, right} {
		requireAligned(t, s)
	}
	size := int(unsafe.Sizeof(*new(T)))
	e.Fn(reducefn.Bytes(results), reducefn.Bytes(left), reducefn.Bytes(right), k*size, e.Flags, 0)
	return results
}

// requireAligned is the cheap alignment check the entries rely on but do
// not make: the first byte's address is a multiple of T's alignment.
func requireAligned[T any](t *testing.T, s []T) {
	t.Helper()
	if len(s) == 0 {
		return
	}
	var z T
	p := uintptr(unsafe.Pointer(unsafe.SliceData(reducefn.Bytes(s))))
	require.Zero(t, p%unsafe.Alignof(z), "buffer at %#x not aligned for %T", p, z)
}

// refFold is the Func contract written plainly, lane by lane: fold left,
// then the inclusive prefix over right, always as op(accumulated, next).
func refFold[T any](op func(a, b T) T, left, right []T, k int) []T {
	res := make([]T, len(right))
	for lane := range k {
		var acc T
		have := false
		for j := lane; j < len(left); j += k {
			if have {
				acc = op(acc, left[j])
			} else {
				acc, have = left[j], true
			}
		}
		for j := lane; j < len(right); j += k {
			if have {
				acc = op(acc, right[j])
			} else {
				acc, have = right[j], true
			}
			res[j] = acc
		}
	}
	return res
}

// checkAgainstRef compares e with the reference fold of op on every shape,
// bit for bit.
func checkAgainstRef[T any](t *testing.T, e reducefn.Entry, op func(a, b T) T, gen func(*rand.Rand) T, seed uint64) {
	t.Helper()
	var z T
	require.Equal(t, int(unsafe.Sizeof(z)), e.Scalar, "Scalar")
	require.Equal(t, reducefn.AMSafe, e.Flags, "flags: commutative and AM-safe")
	rng := rand.New(rand.NewPCG(seed, 7))
	for _, k := range lanes {
		for _, nl := range leftCounts {
			for _, nr := range rightCounts {
				for range trials {
					left := fill(rng, gen, nl*k)
					right := fill(rng, gen, nr*k)
					want := refFold(op, left, right, k)
					got := call(t, e, left, right, k)
					require.Equal(t, reducefn.Bytes(want), reducefn.Bytes(got),
						"k=%d left=%d right=%d\nleft  %v\nright %v\nwant  %v\ngot   %v", k, nl, nr, left, right, want, got)
				}
			}
		}
	}
}

func fill[T any](rng *rand.Rand, gen func(*rand.Rand) T, n int) []T {
	if n == 0 {
		return nil
	}
	s := make([]T, n)
	for i := range s {
		s[i] = gen(rng)
	}
	return s
}

// Generators: integers mix zeros, small values (ties, logical operands) and
// full-range values (overflow); floats mix ordinary values with ±0, ±Inf
// and, when nan is set, NaNs with random payloads and signs.

func genInt[T reducefn.Integer](rng *rand.Rand) T {
	switch rng.IntN(4) {
	case 0:
		return 0
	case 1:
		return T(rng.IntN(7) - 3)
	default:
		return T(rng.Uint64())
	}
}

func genFloat[T reducefn.Float](nan bool) func(*rand.Rand) T {
	return func(rng *rand.Rand) T {
		switch n := rng.IntN(20); {
		case n == 0:
			return T(math.Copysign(0, -1))
		case n == 1:
			return 0
		case n == 2:
			return T(math.Inf(1 - 2*rng.IntN(2)))
		case n == 3 && nan:
			return nanOf[T](rng)
		case n < 7:
			return T(rng.IntN(3)) // ties
		default:
			return T(rng.NormFloat64() * math.Exp2(float64(rng.IntN(40)-20)))
		}
	}
}

// nanOf is a NaN with a random sign and payload (quiet or signalling).
func nanOf[T reducefn.Float](rng *rand.Rand) T {
	var z T
	if unsafe.Sizeof(z) == 4 {
		b := uint32(0x7f800000) | uint32(1+rng.IntN(1<<22)) | uint32(rng.IntN(2))<<22 | uint32(rng.IntN(2))<<31
		return T(math.Float32frombits(b))
	}
	b := uint64(0x7ff0000000000000) | uint64(1+rng.IntN(1<<51)) | uint64(rng.IntN(2))<<51 | uint64(rng.IntN(2))<<63
	return T(math.Float64frombits(b))
}

func genComplex[T reducefn.Complex](rng *rand.Rand) T {
	g := genFloat[float64](false)
	return T(complex(g(rng), g(rng)))
}

// Reference operators, written without the package's helpers.

func add[T reducefn.Number](a, b T) T  { return a + b }
func mul[T reducefn.Number](a, b T) T  { return a * b }
func and[T reducefn.Integer](a, b T) T { return a & b }
func or[T reducefn.Integer](a, b T) T  { return a | b }
func xor[T reducefn.Integer](a, b T) T { return a ^ b }

func truth[T reducefn.Integer](c bool) T {
	if c {
		return 1
	}
	return 0
}
func land[T reducefn.Integer](a, b T) T { return truth[T](a != 0 && b != 0) }
func lor[T reducefn.Integer](a, b T) T  { return truth[T](a != 0 || b != 0) }
func lxor[T reducefn.Integer](a, b T) T { return truth[T]((a != 0) != (b != 0)) }

func imin[T reducefn.Integer](a, b T) T {
	if b < a {
		return b
	}
	return a
}
func imax[T reducefn.Integer](a, b T) T {
	if b > a {
		return b
	}
	return a
}

// floatKey maps a float to a key whose unsigned order is the documented
// total order for Min: NaNs first (larger bit pattern first), then numbers
// ascending with -0 before +0. For Max, NaNs last (larger bit pattern
// last) and the largest number wins.
func floatKey[T reducefn.Float](x T, forMax bool) (class int, key uint64) {
	var raw, ordered uint64
	if unsafe.Sizeof(x) == 4 {
		b := math.Float32bits(float32(x))
		raw = uint64(b)
		if b>>31 != 0 {
			b = ^b
		} else {
			b |= 1 << 31
		}
		ordered = uint64(b)
	} else {
		b := math.Float64bits(float64(x))
		raw = b
		if b>>63 != 0 {
			b = ^b
		} else {
			b |= 1 << 63
		}
		ordered = b
	}
	switch {
	case !math.IsNaN(float64(x)):
		return 1, ordered
	case forMax:
		return 2, raw
	default:
		return 0, ^raw
	}
}

func fminRef[T reducefn.Float](a, b T) T {
	ca, ka := floatKey(a, false)
	cb, kb := floatKey(b, false)
	if cb < ca || cb == ca && kb < ka {
		return b
	}
	return a
}

func fmaxRef[T reducefn.Float](a, b T) T {
	ca, ka := floatKey(a, true)
	cb, kb := floatKey(b, true)
	if cb > ca || cb == ca && kb > ka {
		return b
	}
	return a
}

func testNumber[T reducefn.Number](t *testing.T, gen func(*rand.Rand) T) {
	t.Run("Sum", func(t *testing.T) { checkAgainstRef(t, reducefn.Sum[T](), add[T], gen, 1) })
	t.Run("Prod", func(t *testing.T) { checkAgainstRef(t, reducefn.Prod[T](), mul[T], gen, 2) })
}

func testInteger[T reducefn.Integer](t *testing.T) {
	testNumber(t, genInt[T])
	for i, c := range []struct {
		name string
		e    reducefn.Entry
		op   func(a, b T) T
	}{
		{"Min", reducefn.Min[T](), imin[T]},
		{"Max", reducefn.Max[T](), imax[T]},
		{"BitAnd", reducefn.BitAnd[T](), and[T]},
		{"BitOr", reducefn.BitOr[T](), or[T]},
		{"BitXor", reducefn.BitXor[T](), xor[T]},
		{"LogAnd", reducefn.LogAnd[T](), land[T]},
		{"LogOr", reducefn.LogOr[T](), lor[T]},
		{"LogXor", reducefn.LogXor[T](), lxor[T]},
	} {
		t.Run(c.name, func(t *testing.T) { checkAgainstRef(t, c.e, c.op, genInt[T], uint64(10+i)) })
	}
}

func testFloat[T reducefn.Float](t *testing.T) {
	testNumber(t, genFloat[T](false))
	t.Run("Min", func(t *testing.T) { checkAgainstRef(t, reducefn.Min[T](), fminRef[T], genFloat[T](true), 3) })
	t.Run("Max", func(t *testing.T) { checkAgainstRef(t, reducefn.Max[T](), fmaxRef[T], genFloat[T](true), 4) })
}

func TestInt8(t *testing.T)   { testInteger[int8](t) }
func TestInt32(t *testing.T)  { testInteger[int32](t) }
func TestUint64(t *testing.T) { testInteger[uint64](t) }
func TestInt(t *testing.T)    { testInteger[int](t) }
func TestUint16(t *testing.T) { testInteger[uint16](t) }

func TestFloat32(t *testing.T) { testFloat[float32](t) }
func TestFloat64(t *testing.T) { testFloat[float64](t) }
func TestCelsius(t *testing.T) { testFloat[celsius](t) }

func TestComplex64(t *testing.T)  { testNumber(t, genComplex[complex64]) }
func TestComplex128(t *testing.T) { testNumber(t, genComplex[complex128]) }

// Hand-checked values, so that the reference is not the only judge.
func TestKnownValues(t *testing.T) {
	// Wrapping: 127 + 1 in int8, 2^63 * 2 in uint64.
	require.Equal(t, []int8{-128}, call(t, reducefn.Sum[int8](), []int8{127}, []int8{1}, 1))
	require.Equal(t, []uint64{0}, call(t, reducefn.Prod[uint64](), []uint64{1 << 63}, []uint64{2}, 1))
	// Prefix with a left fold, two lanes: left (1,10),(2,20); right (3,30),(4,40).
	require.Equal(t, []int32{6, 60, 10, 100},
		call(t, reducefn.Sum[int32](), []int32{1, 10, 2, 20}, []int32{3, 30, 4, 40}, 2))
	// Complex product: (1+2i)(3+4i) = -5+10i.
	require.Equal(t, []complex128{-5 + 10i}, call(t, reducefn.Prod[complex128](), []complex128{1 + 2i}, []complex128{3 + 4i}, 1))
	// Logical operators give 1/0; a lone operand passes through.
	require.Equal(t, []int32{5, 1, 0}, call(t, reducefn.LogAnd[int32](), nil, []int32{5, 7, 0}, 1))
	require.Equal(t, []int32{1, 0, 0}, call(t, reducefn.LogXor[int32](), []int32{-3}, []int32{0, 9, 0}, 1))
	require.Equal(t, []int32{0, 1}, call(t, reducefn.LogOr[int32](), []int32{0}, []int32{0, 4}, 1))

	// Floats: -0 below +0, NaN wins, the larger NaN bits win.
	negZero := math.Copysign(0, -1)
	min := reducefn.Min[float64]()
	max := reducefn.Max[float64]()
	got := call(t, min, []float64{0}, []float64{negZero}, 1)
	require.True(t, math.Signbit(got[0]))
	got = call(t, max, []float64{negZero}, []float64{0}, 1)
	require.False(t, math.Signbit(got[0]))
	require.True(t, math.IsNaN(call(t, min, []float64{1}, []float64{math.NaN()}, 1)[0]))
	require.True(t, math.IsNaN(call(t, max, []float64{math.NaN()}, []float64{math.Inf(1)}, 1)[0]))
	n1, n2 := math.Float64frombits(0x7ff8000000000001), math.Float64frombits(0xfff8000000000000)
	for _, e := range []reducefn.Entry{min, max} {
		require.Equal(t, uint64(0xfff8000000000000), math.Float64bits(call(t, e, []float64{n1}, []float64{n2}, 1)[0]))
		require.Equal(t, uint64(0xfff8000000000000), math.Float64bits(call(t, e, []float64{n2}, []float64{n1}, 1)[0]))
	}
	require.Equal(t, []float32{-2, 7}, call(t, reducefn.Min[float32](), []float32{3, 7}, []float32{-2, 9}, 2))
	require.Equal(t, []float32{3, 9}, call(t, reducefn.Max[float32](), []float32{3, 7}, []float32{-2, 9}, 2))
}

// Min and Max on floats are selection in a total order: commutative and
// associative bit for bit, NaN payloads and signed zeros included.
func TestFloatMinMaxAlgebra(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	gen := genFloat[float64](true)
	for _, e := range []reducefn.Entry{reducefn.Min[float64](), reducefn.Max[float64]()} {
		op := func(a, b float64) uint64 {
			return math.Float64bits(call(t, e, []float64{a}, []float64{b}, 1)[0])
		}
		for range 5000 {
			a, b, c := gen(rng), gen(rng), gen(rng)
			require.Equal(t, op(a, b), op(b, a), "commutative %v %v", a, b)
			ab := math.Float64frombits(op(a, b))
			bc := math.Float64frombits(op(b, c))
			require.Equal(t, op(ab, c), op(a, bc), "associative %v %v %v", a, b, c)
		}
	}
}

// The MINLOC/MAXLOC reference: MPI's definition, with Min's order on Val.
func locRef[T reducefn.Float](forMax bool) func(a, b reducefn.ValLoc[T]) reducefn.ValLoc[T] {
	return func(a, b reducefn.ValLoc[T]) reducefn.ValLoc[T] {
		ca, ka := floatKey(a.Val, forMax)
		cb, kb := floatKey(b.Val, forMax)
		if ca == cb && ka == kb {
			if b.Loc < a.Loc {
				return b
			}
			return a
		}
		bFirst := cb < ca || cb == ca && kb < ka
		if bFirst != forMax {
			return b
		}
		return a
	}
}

func locRefInt[T reducefn.Integer](forMax bool) func(a, b reducefn.ValLoc[T]) reducefn.ValLoc[T] {
	return func(a, b reducefn.ValLoc[T]) reducefn.ValLoc[T] {
		switch {
		case a.Val == b.Val:
			if b.Loc < a.Loc {
				return b
			}
			return a
		case (b.Val < a.Val) != forMax:
			return b
		}
		return a
	}
}

func genLoc[T reducefn.Ordered](val func(*rand.Rand) T) func(*rand.Rand) reducefn.ValLoc[T] {
	return func(rng *rand.Rand) reducefn.ValLoc[T] {
		return reducefn.ValLoc[T]{Val: val(rng), Loc: int64(rng.IntN(4))}
	}
}

// equalLoc compares pairs by field (Val by bits), never by padding.
func equalLoc[T reducefn.Ordered](t *testing.T, want, got []reducefn.ValLoc[T], msg ...any) {
	t.Helper()
	require.Len(t, got, len(want))
	for i := range want {
		require.Equal(t, want[i].Loc, got[i].Loc, msg...)
		require.Equal(t, reducefn.Bytes([]T{want[i].Val}), reducefn.Bytes([]T{got[i].Val}), msg...)
	}
}

func checkLoc[T reducefn.Ordered](t *testing.T, e reducefn.Entry, op func(a, b reducefn.ValLoc[T]) reducefn.ValLoc[T], gen func(*rand.Rand) reducefn.ValLoc[T]) {
	t.Helper()
	require.Equal(t, int(unsafe.Sizeof(reducefn.ValLoc[T]{})), e.Scalar)
	require.Equal(t, reducefn.AMSafe, e.Flags)
	rng := rand.New(rand.NewPCG(6, 6))
	for _, k := range lanes {
		for _, nl := range leftCounts {
			for _, nr := range rightCounts {
				for range trials {
					left, right := fill(rng, gen, nl*k), fill(rng, gen, nr*k)
					equalLoc(t, refFold(op, left, right, k), call(t, e, left, right, k), "k=%d left=%d right=%d", k, nl, nr)
				}
			}
		}
	}
	// Commutative and associative on random triples, ties frequent.
	apply := func(a, b reducefn.ValLoc[T]) reducefn.ValLoc[T] {
		return call(t, e, []reducefn.ValLoc[T]{a}, []reducefn.ValLoc[T]{b}, 1)[0]
	}
	for range 3000 {
		a, b, c := gen(rng), gen(rng), gen(rng)
		equalLoc(t, []reducefn.ValLoc[T]{apply(a, b)}, []reducefn.ValLoc[T]{apply(b, a)}, "commutative %v %v", a, b)
		equalLoc(t, []reducefn.ValLoc[T]{apply(apply(a, b), c)}, []reducefn.ValLoc[T]{apply(a, apply(b, c))}, "associative %v %v %v", a, b, c)
	}
}

func TestMinLocMaxLoc(t *testing.T) {
	t.Run("float64", func(t *testing.T) {
		gen := genLoc(genFloat[float64](true))
		checkLoc(t, reducefn.MinLoc[float64](), locRef[float64](false), gen)
		checkLoc(t, reducefn.MaxLoc[float64](), locRef[float64](true), gen)
	})
	t.Run("float32", func(t *testing.T) {
		gen := genLoc(genFloat[float32](true))
		checkLoc(t, reducefn.MinLoc[float32](), locRef[float32](false), gen)
		checkLoc(t, reducefn.MaxLoc[float32](), locRef[float32](true), gen)
	})
	t.Run("int8", func(t *testing.T) {
		gen := genLoc(genInt[int8])
		checkLoc(t, reducefn.MinLoc[int8](), locRefInt[int8](false), gen)
		checkLoc(t, reducefn.MaxLoc[int8](), locRefInt[int8](true), gen)
	})
	t.Run("int32", func(t *testing.T) {
		gen := genLoc(genInt[int32])
		checkLoc(t, reducefn.MinLoc[int32](), locRefInt[int32](false), gen)
		checkLoc(t, reducefn.MaxLoc[int32](), locRefInt[int32](true), gen)
	})
	t.Run("uint16", func(t *testing.T) {
		gen := genLoc(genInt[uint16])
		checkLoc(t, reducefn.MinLoc[uint16](), locRefInt[uint16](false), gen)
		checkLoc(t, reducefn.MaxLoc[uint16](), locRefInt[uint16](true), gen)
	})
	t.Run("uint64", func(t *testing.T) {
		gen := genLoc(genInt[uint64])
		checkLoc(t, reducefn.MinLoc[uint64](), locRefInt[uint64](false), gen)
		checkLoc(t, reducefn.MaxLoc[uint64](), locRefInt[uint64](true), gen)
	})
	t.Run("ties go to the lower Loc", func(t *testing.T) {
		type p = reducefn.ValLoc[float64]
		for _, e := range []reducefn.Entry{reducefn.MinLoc[float64](), reducefn.MaxLoc[float64]()} {
			require.Equal(t, []p{{2, 1}}, call(t, e, []p{{2, 3}}, []p{{2, 1}}, 1))
			require.Equal(t, []p{{2, 1}}, call(t, e, []p{{2, 1}}, []p{{2, 3}}, 1))
			// Vector of two pairs, prefix over three right operands.
			require.Equal(t,
				[]p{{5, 4}, {1, 2}, {5, 0}, {1, 2}, {5, 0}, {1, 0}},
				call(t, e, []p{{5, 4}, {1, 2}}, []p{{5, 9}, {1, 7}, {5, 0}, {1, 3}, {5, 8}, {1, 0}}, 2))
		}
		require.Equal(t, []p{{-1, 6}}, call(t, reducefn.MinLoc[float64](), []p{{3, 0}}, []p{{-1, 6}}, 1))
		require.Equal(t, []p{{3, 0}}, call(t, reducefn.MaxLoc[float64](), []p{{3, 0}}, []p{{-1, 6}}, 1))
	})
	t.Run("layout", func(t *testing.T) {
		var v reducefn.ValLoc[int8]
		require.Zero(t, unsafe.Offsetof(v.Val))
		require.Equal(t, unsafe.Alignof(v.Loc), unsafe.Offsetof(v.Loc))
		if unsafe.Sizeof(uintptr(0)) == 8 {
			require.Equal(t, 16, reducefn.MinLoc[int8]().Scalar)
			require.Equal(t, 16, reducefn.MaxLoc[float64]().Scalar)
		}
	})
}

func strRef(forMax bool) func(a, b string) string {
	return func(a, b string) string {
		if (b < a && !forMax) || (b > a && forMax) {
			return b
		}
		return a
	}
}

// callStr runs a string entry on elements of width bytes; s holds whole
// elements, joined.
func callStr(e reducefn.Entry, left, right []string, width int) []string {
	join := func(s []string) []byte {
		var b []byte
		for _, x := range s {
			// Blank padded to width bytes, as Fortran assignment pads.
			b = append(b, x...)
			b = append(b, bytes.Repeat([]byte{' '}, width-len(x))...)
		}
		return b
	}
	res := make([]byte, len(right)*width)
	e.Fn(res, join(left), join(right), width, e.Flags, 0)
	out := make([]string, len(right))
	for i := range out {
		out[i] = string(res[i*width : (i+1)*width])
	}
	return out
}

func TestStrings(t *testing.T) {
	min, max := reducefn.MinString(), reducefn.MaxString()
	for _, e := range []reducefn.Entry{min, max} {
		require.Zero(t, e.Scalar, "a string is not split")
		require.Equal(t, reducefn.AMSafe, e.Flags)
	}
	// Equal prefixes: the blank padding sorts below any printable character.
	require.Equal(t, []string{"abc   "}, callStr(min, []string{"abcd"}, []string{"abc"}, 6))
	require.Equal(t, []string{"abcd  "}, callStr(max, []string{"abcd"}, []string{"abc"}, 6))
	require.Equal(t, []string{"ab c  "}, callStr(min, []string{"ab d"}, []string{"ab c"}, 6))
	require.Equal(t, []string{"ab d  "}, callStr(max, []string{"ab c"}, []string{"ab d"}, 6))
	// Fold and prefix: left "m","z"; right "q","a","x".
	require.Equal(t, []string{"m", "a", "a"}, callStr(min, []string{"m", "z"}, []string{"q", "a", "x"}, 1))
	require.Equal(t, []string{"z", "z", "z"}, callStr(max, []string{"m", "z"}, []string{"q", "a", "x"}, 1))
	require.Equal(t, []string{"q", "q", "x"}, callStr(max, nil, []string{"q", "a", "x"}, 1))
	// Bytes are unsigned: é (0xC3 0xA9) is above every ASCII letter.
	require.Equal(t, []string{"zz"}, callStr(min, []string{"é"}, []string{"zz"}, 2))
	require.Equal(t, []string{"é"}, callStr(max, []string{"é"}, []string{"zz"}, 2))
	// Zero bytes sort below blanks: the padding the doc warns about.
	require.Equal(t, []byte("ab\x00"), func() []byte {
		r := make([]byte, 3)
		min.Fn(r, []byte("ab "), []byte("ab\x00"), 3, min.Flags, 0)
		return r
	}())

	// Random strings over a small alphabet (many equal prefixes) against
	// the reference fold.
	rng := rand.New(rand.NewPCG(8, 8))
	const width = 4
	gen := func(rng *rand.Rand) string {
		b := make([]byte, width)
		for i := range b {
			b[i] = " ab\xff"[rng.IntN(4)]
		}
		return string(b)
	}
	for _, forMax := range []bool{false, true} {
		e := min
		if forMax {
			e = max
		}
		for _, nl := range leftCounts {
			for _, nr := range rightCounts {
				for range trials {
					left, right := fill(rng, gen, nl), fill(rng, gen, nr)
					require.Equal(t, refFold(strRef(forMax), left, right, 1), callStr(e, left, right, width))
				}
			}
		}
	}
}

// Misuse by the caller is a bug in the engine: a clear panic, never
// memory outside the buffers.
func TestContractPanics(t *testing.T) {
	e := reducefn.Sum[float64]()
	b := reducefn.Bytes(make([]float64, 4))
	r := make([]byte, 32)
	require.Panics(t, func() { e.Fn(r, nil, b, 12, 0, 0) }, "elemSize not a multiple of 8")
	require.Panics(t, func() { e.Fn(r, nil, b, 0, 0, 0) }, "elemSize 0")
	require.Panics(t, func() { e.Fn(r, nil, nil, 8, 0, 0) }, "empty right")
	require.Panics(t, func() { e.Fn(r[:8], nil, b, 8, 0, 0) }, "results too short")
	require.Panics(t, func() { e.Fn(r, b[:8], b, 16, 0, 0) }, "left not whole elements")
	s := reducefn.MinString()
	require.Panics(t, func() { s.Fn(r, nil, []byte("abc"), 2, 0, 0) }, "right not whole strings")
	require.NotPanics(t, func() { e.Fn(r, b, b, 32, 0, 0) })
}

// Bytes views a typed slice without copying, and nil stays nil.
func TestBytes(t *testing.T) {
	s := []uint16{0x0102, 0x0304}
	b := reducefn.Bytes(s)
	require.Len(t, b, 4)
	b[0] = 0xff
	require.NotEqual(t, uint16(0x0102), s[0])
	require.Nil(t, reducefn.Bytes[float64](nil))
}

// The hot path allocates nothing: every entry, vector and scalar shapes.
func TestNoAllocs(t *testing.T) {
	left := make([]float64, 3*1024)
	right := make([]float64, 2*1024)
	res := make([]float64, 2*1024)
	for i := range left {
		left[i] = float64(i)
	}
	for i := range right {
		right[i] = float64(-i)
	}
	l, r, out := reducefn.Bytes(left), reducefn.Bytes(right), reducefn.Bytes(res)
	sum := reducefn.Sum[float64]()
	n := testing.AllocsPerRun(100, func() {
		sum.Fn(out[:8*1024], l[:8*1024], r[:8*1024], 8*1024, sum.Flags, 0)
	})
	require.Zero(t, n, "Sum[float64], one 1024-scalar element on each side")

	for name, e := range map[string]reducefn.Entry{
		"Sum": sum, "Prod": reducefn.Prod[float64](), "Min": reducefn.Min[float64](),
		"Max": reducefn.Max[float64](), "MinLoc": reducefn.MinLoc[float64](),
		"MaxString": reducefn.MaxString(), "BitXor": reducefn.BitXor[int64](), "LogOr": reducefn.LogOr[uint64](),
	} {
		for _, elem := range []int{16, 16 * 64} {
			require.Zero(t, testing.AllocsPerRun(20, func() { e.Fn(out, l, r, elem, e.Flags, 0) }), "%s elem %d", name, elem)
		}
	}
}

// benchSum reduces two vectors of size bytes, as one ReduceAll step does.
func benchSum(b *testing.B, e reducefn.Entry, size int) {
	left := make([]float64, size/8)
	right := make([]float64, size/8)
	res := make([]float64, size/8)
	for i := range left {
		left[i], right[i] = float64(i), 1/float64(i+1)
	}
	l, r, out := reducefn.Bytes(left), reducefn.Bytes(right), reducefn.Bytes(res)
	b.SetBytes(int64(size))
	for b.Loop() {
		e.Fn(out, l, r, size, e.Flags, 0)
	}
}

// BenchmarkSumFloat64 is one 1 MiB element of float64 on each side: 131072
// additions in one straight loop.
func BenchmarkSumFloat64(b *testing.B) { benchSum(b, reducefn.Sum[float64](), 1<<20) }

// BenchmarkSumFloat64Small is the latency end: one 8-byte element.
func BenchmarkSumFloat64Small(b *testing.B) { benchSum(b, reducefn.Sum[float64](), 8) }

func BenchmarkMinFloat64(b *testing.B) { benchSum(b, reducefn.Min[float64](), 1<<20) }

func BenchmarkMaxInt64(b *testing.B) {
	e := reducefn.Max[int64]()
	left, right, res := make([]int64, 1<<17), make([]int64, 1<<17), make([]int64, 1<<17)
	rng := rand.New(rand.NewPCG(1, 1))
	for i := range left {
		left[i], right[i] = rng.Int64(), rng.Int64()
	}
	b.SetBytes(1 << 20)
	for b.Loop() {
		e.Fn(reducefn.Bytes(res), reducefn.Bytes(left), reducefn.Bytes(right), 1<<20, e.Flags, 0)
	}
}

// BenchmarkPrefixSumFloat64 is the scalar scan: 131072 one-float elements
// in right, one in left.
func BenchmarkPrefixSumFloat64(b *testing.B) {
	e := reducefn.Sum[float64]()
	right, res := make([]float64, 1<<17), make([]float64, 1<<17)
	left := []float64{1}
	b.SetBytes(1 << 20)
	for b.Loop() {
		e.Fn(reducefn.Bytes(res), reducefn.Bytes(left), reducefn.Bytes(right), 8, e.Flags, 0)
	}
}

// The byte comparison behind MinString matches bytes.Compare on whole
// elements: a guard for the doc's claim.
func TestStringOrderIsBytesCompare(t *testing.T) {
	a, b := []byte("ab\xff "), []byte("ab \xff")
	res := make([]byte, 4)
	reducefn.MaxString().Fn(res, a, b, 4, 0, 0)
	require.Equal(t, 1, bytes.Compare(a, b))
	require.Equal(t, a, res)
}

func BenchmarkMinLocFloat64(b *testing.B) {
	e := reducefn.MinLoc[float64]()
	n := 1 << 16 // 1 MiB of pairs
	left, right, res := make([]reducefn.ValLoc[float64], n), make([]reducefn.ValLoc[float64], n), make([]reducefn.ValLoc[float64], n)
	rng := rand.New(rand.NewPCG(1, 1))
	for i := range left {
		left[i] = reducefn.ValLoc[float64]{Val: rng.Float64(), Loc: 0}
		right[i] = reducefn.ValLoc[float64]{Val: rng.Float64(), Loc: 1}
	}
	b.SetBytes(1 << 20)
	for b.Loop() {
		e.Fn(reducefn.Bytes(res), reducefn.Bytes(left), reducefn.Bytes(right), 1<<20, e.Flags, 0)
	}
}

// TestOwn: the ready-made entries are gocoll's own (coll runs them without
// the guard around user code); an entry whose Fn was replaced, or one made
// by hand, is not.
func TestOwn(t *testing.T) {
	for name, e := range map[string]reducefn.Entry{
		"Sum[float64]": reducefn.Sum[float64](), "Max[int8]": reducefn.Max[int8](),
		"MinLoc": reducefn.MinLoc[float64](), "MinString": reducefn.MinString(), "BitXor": reducefn.BitXor[uint32](),
	} {
		require.True(t, e.Own(), name)
		e.Fn = func(results, left, right []byte, elemSize int, flags reducefn.Flags, arg int) {}
		require.False(t, e.Own(), name+" with its Fn replaced")
	}
	require.False(t, reducefn.Entry{}.Own())
	require.False(t, reducefn.Entry{Fn: reducefn.Sum[int64]().Fn}.Own(), "a copy of the function alone")
}

// A ready-made entry's reduction step may write its result over its right
// operand (Entry.Own): the bits are those of a separate result, NaNs,
// infinities and signed zeros included, for short and long vectors.
func TestFoldIntoRight(t *testing.T) {
	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 0, 1e-308, -3.5}
	for _, e := range []reducefn.Entry{reducefn.Sum[float64](), reducefn.Min[float64](), reducefn.Prod[float64]()} {
		for _, n := range []int{1, 15, 16, 1000} {
			left, right := make([]float64, n), make([]float64, n)
			for i := range left {
				left[i], right[i] = specials[i%len(specials)], specials[(i*3+1)%len(specials)]*float64(i+1)
			}
			want := make([]float64, n)
			e.Fn(reducefn.Bytes(want), reducefn.Bytes(left), reducefn.Bytes(right), 8*n, e.Flags, 0)
			e.Fn(reducefn.Bytes(right), reducefn.Bytes(left), reducefn.Bytes(right), 8*n, e.Flags, 0)
			for i := range want {
				require.Equal(t, math.Float64bits(want[i]), math.Float64bits(right[i]), "lane %d of %d", i, n)
			}
		}
	}
}
