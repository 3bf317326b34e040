package coarray

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/gocoll/gocoll/reducefn"
)

// Kind is the element type of a byte-level collective (Image.SumBytes and
// friends): what CO_SUM, CO_MIN and CO_MAX compute on. Go's int and uint are
// Int64 and Uint64 (64-bit platforms only).
type Kind uint8

// The kinds. Char holds one-byte characters (Fortran's default kind; Go
// strings as UTF-8 bytes, whose byte order is code point order); Char4
// holds four-byte characters (Fortran's ISO_10646 kind, UCS-4 in the
// machine's byte order), compared as code points.
const (
	Int8 Kind = iota + 1
	Int16
	Int32
	Int64
	Uint8
	Uint16
	Uint32
	Uint64
	Float32
	Float64
	Complex64
	Complex128
	Char
	Char4
	numKinds
)

var kindNames = [...]string{"invalid", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
	"float32", "float64", "complex64", "complex128", "char", "char4"}

// String names the kind.
func (k Kind) String() string {
	if k >= numKinds {
		return fmt.Sprintf("Kind(%d)", int(k))
	}
	return kindNames[k]
}

// Size is the size in bytes of one element (one character for Char and
// Char4).
func (k Kind) Size() int {
	switch k {
	case Int8, Uint8, Char:
		return 1
	case Int16, Uint16:
		return 2
	case Int32, Uint32, Float32, Char4:
		return 4
	case Int64, Uint64, Float64, Complex64:
		return 8
	case Complex128:
		return 16
	}
	return 0
}

func (k Kind) char() bool { return k == Char || k == Char4 }

// The operations, as they appear in the agreement.
const (
	opBroadcast = iota + 1
	opSum
	opMin
	opMax
	opReduce
	opFormTeam
)

// builtins is the head of every image's function table: sum, min and max
// of each kind where defined, then the agreement's operator. Operators
// given to Init follow it.
type builtins struct {
	entries []reducefn.Entry
	index   [opMax + 1][numKinds]int // fn index of (op, kind); -1 where undefined
	agree   int                      // fn of the agreement
}

var builtin = makeBuiltins()

func makeBuiltins() *builtins {
	b := &builtins{}
	for op := range b.index {
		for k := range b.index[op] {
			b.index[op][k] = -1
		}
	}
	add := func(op int, k Kind, e reducefn.Entry) {
		b.index[op][k] = len(b.entries)
		b.entries = append(b.entries, e)
	}
	num := func(k Kind, sum, min, max reducefn.Entry) {
		add(opSum, k, sum)
		if min.Fn != nil {
			add(opMin, k, min)
			add(opMax, k, max)
		}
	}
	num(Int8, reducefn.Sum[int8](), reducefn.Min[int8](), reducefn.Max[int8]())
	num(Int16, reducefn.Sum[int16](), reducefn.Min[int16](), reducefn.Max[int16]())
	num(Int32, reducefn.Sum[int32](), reducefn.Min[int32](), reducefn.Max[int32]())
	num(Int64, reducefn.Sum[int64](), reducefn.Min[int64](), reducefn.Max[int64]())
	num(Uint8, reducefn.Sum[uint8](), reducefn.Min[uint8](), reducefn.Max[uint8]())
	num(Uint16, reducefn.Sum[uint16](), reducefn.Min[uint16](), reducefn.Max[uint16]())
	num(Uint32, reducefn.Sum[uint32](), reducefn.Min[uint32](), reducefn.Max[uint32]())
	num(Uint64, reducefn.Sum[uint64](), reducefn.Min[uint64](), reducefn.Max[uint64]())
	num(Float32, reducefn.Sum[float32](), reducefn.Min[float32](), reducefn.Max[float32]())
	num(Float64, reducefn.Sum[float64](), reducefn.Min[float64](), reducefn.Max[float64]())
	num(Complex64, reducefn.Sum[complex64](), reducefn.Entry{}, reducefn.Entry{})
	num(Complex128, reducefn.Sum[complex128](), reducefn.Entry{}, reducefn.Entry{})
	for _, k := range []Kind{Char, Char4} {
		add(opMin, k, charEntry(k, -1))
		add(opMax, k, charEntry(k, +1))
	}
	b.agree = len(b.entries)
	b.entries = append(b.entries, reducefn.Max[int64]())
	return b
}

// charEntry is CO_MIN (sign -1) or CO_MAX (+1) on arrays of character
// values: an element is the whole array, arg the length in bytes of one
// value (the lane). reducefn.MinString compares an element as one string,
// so it serves scalars only, and it has no four-byte characters.
func charEntry(k Kind, sign int) reducefn.Entry {
	cmp := bytes.Compare
	if k == Char4 {
		cmp = compareUCS4
	}
	return reducefn.Entry{Flags: reducefn.AMSafe, Fn: reducefn.Elementwise(func(dst, a, b []byte, w int) {
		for off := 0; off+w <= len(dst); off += w {
			x, y := a[off:off+w], b[off:off+w]
			if cmp(y, x)*sign > 0 {
				x = y
			}
			copy(dst[off:off+w], x)
		}
	})}
}

// compareUCS4 compares two values of four-byte characters (same length) as
// code points.
func compareUCS4(a, b []byte) int {
	for i := 0; i+4 <= len(a); i += 4 {
		x, y := binary.NativeEndian.Uint32(a[i:]), binary.NativeEndian.Uint32(b[i:])
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}
