package mpi

/*
#include "gc.h"
*/
import "C"

import (
	"math"
	"reflect"
	"unsafe"
)

// Datatype is an MPI datatype with its size in bytes.
//
// It is one pointer to an immutable description, so that the typed
// operations pass it around for the cost of a word.
type Datatype struct{ *dtype }

type dtype struct {
	h    C.MPI_Datatype
	size int
	name string
	kind uint8 // the data kind of a predefined datatype (kindOf), for the operator checks
}

// Size is the size of one element in bytes.
func (d Datatype) Size() int {
	if d.dtype == nil {
		return 0
	}
	return d.size
}

// String is the MPI name of the datatype.
func (d Datatype) String() string {
	if d.dtype == nil {
		return ""
	}
	return d.name
}

// The pair types of MINLOC and MAXLOC, laid out as MPI's C structs.
type (
	// Float64Int is MPI_DOUBLE_INT: a value and an index.
	Float64Int struct {
		Val float64
		Loc int32
		_   int32
	}
	// Float32Int is MPI_FLOAT_INT.
	Float32Int struct {
		Val float32
		Loc int32
	}
	// Int32Int is MPI_2INT.
	Int32Int struct {
		Val int32
		Loc int32
	}
	// Int64Int is MPI_LONG_INT.
	Int64Int struct {
		Val int64
		Loc int32
		_   int32
	}
)

func newDatatype(code int, size int, name string) Datatype {
	d := &dtype{h: C.gc_datatype(C.int(code)), size: size, name: name}
	switch {
	case code == 1:
		d.kind = kindByte
	case code <= 9:
		d.kind = kindInt
	case code <= 11:
		d.kind = kindFloat
	case code <= 13:
		d.kind = kindComplex
	default:
		d.kind = kindPair
	}
	return Datatype{d}
}

// The predefined datatypes. The codes match gc_datatype in gc.c.
var (
	Byte       = newDatatype(1, 1, "MPI_BYTE")
	Int8       = newDatatype(2, 1, "MPI_INT8_T")
	Int16      = newDatatype(3, 2, "MPI_INT16_T")
	Int32      = newDatatype(4, 4, "MPI_INT32_T")
	Int64      = newDatatype(5, 8, "MPI_INT64_T")
	Uint8      = newDatatype(6, 1, "MPI_UINT8_T")
	Uint16     = newDatatype(7, 2, "MPI_UINT16_T")
	Uint32     = newDatatype(8, 4, "MPI_UINT32_T")
	Uint64     = newDatatype(9, 8, "MPI_UINT64_T")
	Float32    = newDatatype(10, 4, "MPI_FLOAT")
	Float64    = newDatatype(11, 8, "MPI_DOUBLE")
	Complex64  = newDatatype(12, 8, "MPI_C_FLOAT_COMPLEX")
	Complex128 = newDatatype(13, 16, "MPI_C_DOUBLE_COMPLEX")
	FloatInt   = newDatatype(14, int(unsafe.Sizeof(Float32Int{})), "MPI_FLOAT_INT")
	DoubleInt  = newDatatype(15, int(unsafe.Sizeof(Float64Int{})), "MPI_DOUBLE_INT")
	TwoInt     = newDatatype(16, int(unsafe.Sizeof(Int32Int{})), "MPI_2INT")
	LongInt    = newDatatype(17, int(unsafe.Sizeof(Int64Int{})), "MPI_LONG_INT")
)

// Number is the set of Go numeric types that map onto MPI datatypes.
type Number interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~int |
		~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uint |
		~float32 | ~float64 | ~complex64 | ~complex128
}

// Element is every Go type the typed operations accept: the numbers and the
// MINLOC/MAXLOC pairs.
type Element interface {
	Number | Float64Int | Float32Int | Int32Int | Int64Int
}

var (
	tFloat64Int = reflect.TypeFor[Float64Int]()
	tFloat32Int = reflect.TypeFor[Float32Int]()
	tInt32Int   = reflect.TypeFor[Int32Int]()
	tInt64Int   = reflect.TypeFor[Int64Int]()
)

// DatatypeOf is the MPI datatype of T.
func DatatypeOf[T Element]() Datatype {
	// A type switch on a nil *T costs a few comparisons and never allocates;
	// named types (~float64 ...) take the reflect path.
	switch any((*T)(nil)).(type) {
	case *float64:
		return Float64
	case *int:
		if unsafe.Sizeof(int(0)) == 4 {
			return Int32
		}
		return Int64
	case *uint:
		if unsafe.Sizeof(uint(0)) == 4 {
			return Uint32
		}
		return Uint64
	case *byte:
		return Uint8
	case *int32:
		return Int32
	case *int64:
		return Int64
	case *float32:
		return Float32
	case *uint64:
		return Uint64
	case *uint32:
		return Uint32
	case *int8:
		return Int8
	case *int16:
		return Int16
	case *uint16:
		return Uint16
	case *complex128:
		return Complex128
	case *complex64:
		return Complex64
	case *Float64Int:
		return DoubleInt
	case *Float32Int:
		return FloatInt
	case *Int32Int:
		return TwoInt
	case *Int64Int:
		return LongInt
	}
	return datatypeOf(reflect.TypeFor[T]())
}

// datatypeOf is DatatypeOf for named types, by kind and size.
func datatypeOf(t reflect.Type) Datatype {
	switch t {
	case tFloat64Int:
		return DoubleInt
	case tFloat32Int:
		return FloatInt
	case tInt32Int:
		return TwoInt
	case tInt64Int:
		return LongInt
	}
	if d, ok := datatypeOfKindOK(t.Kind(), t.Size()); ok {
		return d
	}
	panic("mpi: no MPI datatype for " + t.String()) // unreachable: Element is closed
}

func datatypeOfKindOK(k reflect.Kind, size uintptr) (Datatype, bool) {
	switch k {
	case reflect.Int8:
		return Int8, true
	case reflect.Int16:
		return Int16, true
	case reflect.Int32:
		return Int32, true
	case reflect.Int64:
		return Int64, true
	case reflect.Int:
		if size == 4 {
			return Int32, true
		}
		return Int64, true
	case reflect.Uint8:
		return Uint8, true
	case reflect.Uint16:
		return Uint16, true
	case reflect.Uint32:
		return Uint32, true
	case reflect.Uint64:
		return Uint64, true
	case reflect.Uint:
		if size == 4 {
			return Uint32, true
		}
		return Uint64, true
	case reflect.Float32:
		return Float32, true
	case reflect.Float64:
		return Float64, true
	case reflect.Complex64:
		return Complex64, true
	case reflect.Complex128:
		return Complex128, true
	}
	return Datatype{}, false
}

// buf is a Go or C buffer as MPI sees it: address, element count, datatype.
type buf struct {
	p  unsafe.Pointer
	n  C.int
	dt Datatype
}

// bytesOf is the byte view of a typed slice.
func bytesOf[T any](s []T) []byte {
	if s == nil {
		return nil
	}
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(z)))
}

// typedBuf describes s; a nil s is ErrNilBuffer, more than MaxInt32 elements ErrCount.
func typedBuf[T Element](op string, s []T) (buf, error) {
	return sliceBuf(op, unsafe.Pointer(unsafe.SliceData(s)), s == nil, len(s), DatatypeOf[T]())
}

// byteBuf describes a byte slice as MPI_BYTE elements.
func byteBuf(op string, s []byte) (buf, error) {
	return sliceBuf(op, unsafe.Pointer(unsafe.SliceData(s)), s == nil, len(s), Byte)
}

func sliceBuf(op string, p unsafe.Pointer, isNil bool, n int, dt Datatype) (buf, error) {
	if !isNil && n <= math.MaxInt32 {
		return buf{p: p, n: C.int(n), dt: dt}, nil
	}
	return buf{}, sliceErr(op, isNil, n)
}

func sliceErr(op string, isNil bool, n int) error {
	if isNil {
		return misuse(ErrNilBuffer, op, "a buffer is required")
	}
	return misuse(ErrCount, op, "%d elements > %d", n, math.MaxInt32)
}

// part is elements [off, off+n) of b, for collectives that address blocks.
func (b buf) part(off, n int) buf {
	return buf{p: unsafe.Add(b.p, off*b.dt.size), n: C.int(n), dt: b.dt}
}
