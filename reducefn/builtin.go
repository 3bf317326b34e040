package reducefn

import (
	"fmt"
	"reflect"
	"unsafe"

	"gonum.org/v1/gonum/floats"
)

// Built-in entries: how they run.
//
// Every built-in entry treats an element of elemSize bytes as a vector of
// k = elemSize/Scalar scalars of one Go type T, combined lane by lane (the
// MPI way of reducing many values in one call). Each call:
//
//  1. views results, left and right as []T with unsafe.Slice (no copy, no
//     allocation);
//  2. folds left into the first result and combines it with right[0];
//  3. runs the inclusive prefix over the rest of right.
//
// The per-operator work lives in a kernel: three tight loops the compiler
// keeps in registers, called once per element (vec) or once per call (fold,
// scan). Go cannot inline an operator passed as a value into a generic loop,
// so each operator spells its three loops out (kernels.go).
//
// Alignment: the caller must give buffers aligned for T (unsafe.Alignof of
// the scalar type: at most 8 for every built-in type), as the spec
// requires of computational collectives (GASNET_DATA_ALIGNMENT). A []T
// viewed with Bytes is; so is a sub-slice of it at a multiple of elemSize.
// A bare make([]byte, n) is not guaranteed to be (Go's allocator may place
// small byte slices at 1-, 2- or 4-byte boundaries). The entries do not
// check alignment on the hot path; misaligned buffers are a caller bug
// that amd64 and arm64 forgive at a cost in speed, and other
// architectures may not.
//
// Contract violations by the caller (elemSize not a positive multiple of
// Scalar, a buffer length that is not a multiple of elemSize, an empty
// right, results shorter than right) panic with a message: they are bugs in
// the engine, which checks user input before calling, not user errors.

// kernel is one operator on scalars of type T in the three loop shapes a
// call needs.
type kernel[T any] struct {
	// vec sets dst[i] = a[i] op b[i]; len(a) == len(b) == len(dst), and
	// dst may be a (lanes are independent, so in place is safe).
	vec func(dst, a, b []T)
	// fold returns ((acc op s[0]) op s[1]) op ..., left to right.
	fold func(acc T, s []T) T
	// scan sets dst[i] = acc = acc op s[i]: the inclusive prefix with a
	// carried-in accumulator; len(dst) == len(s).
	scan func(dst, s []T, acc T)
}

// entryOf wraps a kernel as a commutative, AM-safe entry whose scalar is T.
// Every built-in operator is a pure function of its arguments, so it may run
// on any goroutine (AMSafe), and none needs NonComm.
func entryOf[T any](k kernel[T]) Entry {
	return owned(Entry{
		Fn: func(results, left, right []byte, elemSize int, _ Flags, _ int) {
			apply(&k, results, left, right, elemSize)
		},
		Flags:  AMSafe,
		Scalar: int(unsafe.Sizeof(*new(T))),
	})
}

// apply runs the Func contract for a kernel. The scalar size comes from T
// inside the function, where the compiler knows it from the instantiation
// (a shift, not a division, for the power-of-two sizes).
func apply[T any](k *kernel[T], results, left, right []byte, elemSize int) {
	size := int(unsafe.Sizeof(*new(T)))
	n := elemSize / size
	checkArgs(size, n, len(results), len(left), len(right), elemSize)
	r := view[T](right, len(right)/size)
	l := view[T](left, len(left)/size)
	res := view[T](results, len(r))

	if n == 1 {
		// Scalars: one pass each, with the accumulator in a register.
		switch len(l) {
		case 0:
			res[0] = r[0]
			if len(r) > 1 {
				k.scan(res[1:], r[1:], r[0])
			}
		case 1:
			k.scan(res, r, l[0])
		default:
			k.scan(res, r, k.fold(l[0], l[1:]))
		}
		return
	}

	// Vectors of n lanes. The first result is ((l0 op l1) ... op r0),
	// accumulated in place in res[:n], which no operand aliases.
	first := res[:n]
	switch len(l) / n {
	case 0:
		copy(first, r[:n])
	case 1:
		// The common case (a reduction step: two vectors in, one out) is
		// a single straight vector loop.
		k.vec(first, l[:n], r[:n])
	default:
		k.vec(first, l[:n], l[n:2*n])
		for j := 2 * n; j < len(l); j += n {
			k.vec(first, first, l[j:j+n])
		}
		k.vec(first, first, r[:n])
	}
	for i := n; i < len(r); i += n {
		k.vec(res[i:i+n], res[i-n:i], r[i:i+n])
	}
}

// checkArgs validates a call's shape, n being elemSize/size. The common
// shapes (one element each side) pass without a division.
func checkArgs(size, n, nres, nleft, nright, elemSize int) {
	if n < 1 || n*size != elemSize {
		panic(fmt.Sprintf("reducefn: elemSize %d is not a positive multiple of the scalar size %d", elemSize, size))
	}
	if nright == 0 || nright != elemSize && nright%elemSize != 0 ||
		nleft != 0 && nleft != elemSize && nleft%elemSize != 0 {
		panic(fmt.Sprintf("reducefn: operand lengths left %d, right %d are not multiples of elemSize %d with right non-empty", nleft, nright, elemSize))
	}
	if nres < nright {
		panic(fmt.Sprintf("reducefn: results holds %d bytes, right %d", nres, nright))
	}
}

// view is b seen as n values of T, sharing b's memory. b must hold at least
// n*Sizeof(T) bytes and be aligned for T.
func view[T any](b []byte, n int) []T {
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// Bytes is the memory of s seen as bytes, without a copy: the form the
// registered functions and the byte-level collectives take. Being a view of
// a []T, it is aligned for T, as the built-in entries need. T must hold no
// pointers (numbers, ValLoc, arrays and structs of them): the bytes are
// meant to travel to other nodes.
func Bytes[T any](s []T) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(*new(T))))
}

// Sum is the entry for +, lane by lane. Integers wrap on overflow as Go's +
// does; floating-point results are the left-to-right fold of the Func
// contract, rounded at each step, so a fixed evaluation order gives bitwise
// reproducible sums.
//
// On float64 (and types with its layout), vectors of at least
// gonumMinLanes lanes are added by gonum's SIMD kernel (floats.AddTo),
// measured 2x faster than the plain loop on cache-resident vectors and no
// slower at 1 MiB; each lane is still one IEEE addition, so results are
// bitwise those of the plain loop.
func Sum[T Number]() Entry {
	k := kernel[T]{vec: sumVec[T], fold: sumFold[T], scan: sumScan[T]}
	if reflect.TypeFor[T]().Kind() == reflect.Float64 {
		k.vec = addFloat64[T]
	}
	return entryOf(k)
}

// gonumMinLanes is where gonum's call overhead stops mattering: below it,
// the plain loop is as fast.
const gonumMinLanes = 16

// addFloat64 is sumVec for a T laid out as float64. A result written over
// b (a fold in place: see Entry.Own) is added by gonum's two-vector kernel,
// a + b in that order as the three-vector one adds: it moves a third less
// memory.
func addFloat64[T Number](dst, a, b []T) {
	if len(a) < gonumMinLanes {
		sumVec(dst, a, b)
		return
	}
	if unsafe.SliceData(dst) == unsafe.SliceData(b) {
		floats.Add(asFloat64(dst[:len(a)]), asFloat64(a))
		return
	}
	floats.AddTo(asFloat64(dst[:len(a)]), asFloat64(a), asFloat64(b[:len(a)]))
}

// asFloat64 views s, whose T has float64's layout, as []float64.
func asFloat64[T any](s []T) []float64 {
	return unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

// Prod is the entry for *, lane by lane, with the same wrapping and
// rounding as Sum.
func Prod[T Number]() Entry {
	return entryOf(kernel[T]{vec: prodVec[T], fold: prodFold[T], scan: prodScan[T]})
}

// BitAnd is the entry for bitwise and (MPI_BAND), lane by lane.
func BitAnd[T Integer]() Entry {
	return entryOf(kernel[T]{vec: bandVec[T], fold: bandFold[T], scan: bandScan[T]})
}

// BitOr is the entry for bitwise or (MPI_BOR), lane by lane.
func BitOr[T Integer]() Entry {
	return entryOf(kernel[T]{vec: borVec[T], fold: borFold[T], scan: borScan[T]})
}

// BitXor is the entry for bitwise exclusive or (MPI_BXOR), lane by lane.
func BitXor[T Integer]() Entry {
	return entryOf(kernel[T]{vec: bxorVec[T], fold: bxorFold[T], scan: bxorScan[T]})
}

// LogAnd is the entry for logical and (MPI_LAND), lane by lane: nonzero is
// true, and a combination of two or more operands is 1 or 0. A lone operand
// (an empty left with the first right) passes through unchanged, as the
// Func contract says and as MPI does on one process; normalising it here
// would make the result depend on whether the engine called the function
// at all.
func LogAnd[T Integer]() Entry {
	return entryOf(kernel[T]{vec: landVec[T], fold: landFold[T], scan: landScan[T]})
}

// LogOr is the entry for logical or (MPI_LOR), lane by lane, with LogAnd's
// truth values.
func LogOr[T Integer]() Entry {
	return entryOf(kernel[T]{vec: lorVec[T], fold: lorFold[T], scan: lorScan[T]})
}

// LogXor is the entry for logical exclusive or (MPI_LXOR), lane by lane,
// with LogAnd's truth values.
func LogXor[T Integer]() Entry {
	return entryOf(kernel[T]{vec: lxorVec[T], fold: lxorFold[T], scan: lxorScan[T]})
}
