package reducefn

import (
	"bytes"
	"unsafe"
)

// Min is the entry for the minimum, lane by lane (MPI_MIN, CO_MIN on
// integers and reals).
//
// On floats it is the IEEE 754-2019 minimum, as Go's built-in min: -0 is
// below +0, and a NaN operand makes the result NaN. Unlike the built-in,
// which of two NaNs comes out is fixed: the one whose bit pattern, read as
// an unsigned integer, is larger. Min is then the selection of the first of
// two values in a total order on bit patterns, so it is commutative and
// associative bit for bit, and the result does not depend on the shape of
// the reduction tree. Neither alternative has that: with a plain x < y,
// min(+0, -0) and min(NaN1, NaN2) depend on operand order; Go's built-in
// leaves the NaN's bits open, and on amd64 it ORs both operands' bits into
// the NaN, which is not associative (min(min(NaN, 1.1), 1.3) and
// min(NaN, min(1.1, 1.3)) differ).
func Min[T Ordered]() Entry {
	return entryOf(kernel[T]{vec: fminVec[T], fold: fminFold[T], scan: fminScan[T]})
}

// Max is the entry for the maximum, lane by lane (MPI_MAX, CO_MAX on
// integers and reals). On floats it mirrors Min: +0 is above -0, a NaN
// operand makes the result NaN, and of two NaNs the one with the larger bit
// pattern comes out.
func Max[T Ordered]() Entry {
	return entryOf(kernel[T]{vec: fmaxVec[T], fold: fmaxFold[T], scan: fmaxScan[T]})
}

// fmin is Min's operator. Go's built-in min is branch-free (MINSD on
// amd64, CMOV on integers) and already right for ordinary numbers and
// signed zeros; only a NaN result needs the slow path, which picks the NaN
// the total order says. A plain "if x < y" would mispredict on random data
// (10x slower measured). On integers m != m is false and compiles away.
func fmin[T Ordered](x, y T) T {
	m := min(x, y)
	if m != m {
		return pickTie(x, y, false)
	}
	return m
}

// fmax is Max's operator, built like fmin.
func fmax[T Ordered](x, y T) T {
	m := max(x, y)
	if m != m {
		return pickTie(x, y, true)
	}
	return m
}

// pickTie is the slow path of fmin (max false) and fmax (max true): at
// least one NaN.
//
//go:noinline
func pickTie[T Ordered](x, y T, max bool) T {
	if tie(x, y, max) > 0 {
		return y
	}
	return x
}

// tie ranks x and y when neither x < y nor y < x: they are equal numbers
// or at least one is a NaN. It returns -1 when x comes out of Min (max
// false) or Max (max true), +1 when y does, and 0 when x and y are the same
// bits, so that either will do (MinLoc and MaxLoc then look at Loc). On
// integers equal values always have the same bits, so the answer is 0.
func tie[T Ordered](x, y T, max bool) int {
	bx, by := bitsOf(x), bitsOf(y)
	if bx == by {
		return 0
	}
	xnan, ynan := x != x, y != y
	switch {
	case xnan && ynan:
		if bx > by {
			return -1
		}
		return 1
	case xnan:
		return -1
	case ynan:
		return 1
	}
	// Equal numbers with different bits: -0 and +0. Min takes the one
	// with the sign bit, Max the other.
	xneg := bx>>(8*unsafe.Sizeof(x)-1) != 0
	if xneg != max {
		return -1
	}
	return 1
}

// bitsOf is the bit pattern of x, zero-extended.
func bitsOf[T Ordered](x T) uint64 {
	p := unsafe.Pointer(&x)
	switch unsafe.Sizeof(x) {
	case 1:
		return uint64(*(*uint8)(p))
	case 2:
		return uint64(*(*uint16)(p))
	case 4:
		return uint64(*(*uint32)(p))
	default:
		return *(*uint64)(p)
	}
}

// ValLoc is a value with the index of the image it came from: the element
// of MinLoc and MaxLoc, like MPI's MINLOC/MAXLOC pairs.
//
// Layout, which peers in other languages must match: Go's struct layout,
// with Val at offset 0 and Loc at the size of Val rounded up to the
// alignment of int64, the whole padded to a multiple of its alignment. On
// 64-bit platforms that is Loc at offset 8 and 16 bytes per pair for every
// T, like C's struct { T val; int64_t loc; } (not MPI_DOUBLE_INT, whose
// index is a 32-bit int). Padding bytes carry nothing: the operators may or
// may not copy them, so compare pairs by field, never by bytes.
type ValLoc[T Ordered] struct {
	// Val is the value compared.
	Val T
	// Loc is where Val came from, normally an image index; of equal Vals
	// the lower Loc wins.
	Loc int64
}

// MinLoc is the entry for MPI's MINLOC on ValLoc[T] pairs: the smallest
// Val, in Min's order (floats included), with its Loc; equal Vals (same
// bits) keep the lower Loc. Breaking ties by Loc rather than by position
// keeps the operator commutative and associative, so any reduction tree
// gives the same pair. Scalar is unsafe.Sizeof(ValLoc[T]{}): an element is
// one pair or a vector of pairs reduced one by one.
func MinLoc[T Ordered]() Entry {
	return entryOf(kernel[ValLoc[T]]{vec: minLocVec[T], fold: minLocFold[T], scan: minLocScan[T]})
}

// MaxLoc is the entry for MPI's MAXLOC: the largest Val, in Max's order,
// with its Loc; equal Vals keep the lower Loc, as in MinLoc.
func MaxLoc[T Ordered]() Entry {
	return entryOf(kernel[ValLoc[T]]{vec: maxLocVec[T], fold: maxLocFold[T], scan: maxLocScan[T]})
}

// minLoc is MinLoc's operator. On strictly ordered Vals it selects the Val
// with min and the Loc with a conditional move: no branch on the data,
// which measured 2x faster than returning a or b on random input. Equal
// Vals and NaNs take the slow path.
func minLoc[T Ordered](a, b ValLoc[T]) ValLoc[T] {
	lt, gt := a.Val < b.Val, b.Val < a.Val
	if lt == gt {
		return minLocTie(a, b)
	}
	loc := a.Loc
	if gt {
		loc = b.Loc
	}
	return ValLoc[T]{Val: min(a.Val, b.Val), Loc: loc}
}

// maxLoc is MaxLoc's operator, built like minLoc.
func maxLoc[T Ordered](a, b ValLoc[T]) ValLoc[T] {
	lt, gt := a.Val < b.Val, b.Val < a.Val
	if lt == gt {
		return maxLocTie(a, b)
	}
	loc := a.Loc
	if lt {
		loc = b.Loc
	}
	return ValLoc[T]{Val: max(a.Val, b.Val), Loc: loc}
}

// minLocTie and maxLocTie are the slow paths of minLoc and maxLoc, kept
// out of line so that the common path stays small.
//
//go:noinline
func minLocTie[T Ordered](a, b ValLoc[T]) ValLoc[T] { return locTie(a, b, false) }

//go:noinline
func maxLocTie[T Ordered](a, b ValLoc[T]) ValLoc[T] { return locTie(a, b, true) }

// locTie decides between Vals neither below nor above each other: a
// difference in bits (±0, NaNs) still decides by the order of Min (max
// false) or Max (max true); identical Vals keep the lower Loc.
func locTie[T Ordered](a, b ValLoc[T], max bool) ValLoc[T] {
	switch tie(a.Val, b.Val, max) {
	case -1:
		return a
	case 1:
		return b
	}
	if b.Loc < a.Loc {
		return b
	}
	return a
}

// MinString is the entry for CO_MIN on fixed-width character strings: an
// element is one string of elemSize bytes, and the smallest in byte order
// (bytes.Compare: lexicographic, bytes unsigned) comes out.
//
// Fortran compares character values in the processor's collating sequence,
// padding the shorter of two values with blanks on the right. CO_MIN and
// CO_MAX require the same type parameters on every image, so all operands
// have the same length and the padding rule never comes into play between
// them: byte order is Fortran's order for one-byte (default kind, ASCII)
// characters. What this implements is the byte comparison only; a caller
// that stores a shorter Go string in an element must pad it with blanks
// (0x20), as Fortran assignment does, not with zero bytes, which sort below
// the blank. Unsigned bytes give code point order on UTF-8 text. Wider
// character kinds (UCS-4) are not supported: their little-endian bytes do
// not sort as their code points.
//
// Scalar is 0: a string is compared as a whole, so gocoll must not split
// an element.
func MinString() Entry {
	return owned(Entry{Fn: minString, Flags: AMSafe})
}

// MaxString is the entry for CO_MAX on fixed-width character strings: the
// largest element in MinString's byte order.
func MaxString() Entry {
	return owned(Entry{Fn: maxString, Flags: AMSafe})
}

func minString(results, left, right []byte, elemSize int, _ Flags, _ int) {
	pickStrings(results, left, right, elemSize, false)
}

func maxString(results, left, right []byte, elemSize int, _ Flags, _ int) {
	pickStrings(results, left, right, elemSize, true)
}

// pickStrings runs the Func contract for MinString (max false) and
// MaxString (max true). The operator selects one operand whole, so the fold
// keeps a reference to the winner and copies it once.
func pickStrings(results, left, right []byte, elemSize int, max bool) {
	checkArgs(1, elemSize, len(results), len(left), len(right), elemSize)
	e := elemSize
	pick := right[:e]
	if len(left) > 0 {
		pick = left[:e]
		for j := e; j < len(left); j += e {
			if beats(left[j:j+e], pick, max) {
				pick = left[j : j+e]
			}
		}
		if beats(right[:e], pick, max) {
			pick = right[:e]
		}
	}
	copy(results[:e], pick)
	for i := e; i < len(right); i += e {
		prev, x := results[i-e:i], right[i:i+e]
		if beats(x, prev, max) {
			copy(results[i:i+e], x)
		} else {
			copy(results[i:i+e], prev)
		}
	}
}

// beats reports whether x strictly precedes cur in the min (or max) order.
func beats(x, cur []byte, max bool) bool {
	c := bytes.Compare(x, cur)
	return c != 0 && (c > 0) == max
}
