package mpiconduit

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
type Datatype struct {
	h    C.MPI_Datatype
	size int
	name string
}

// Size is the size of one element in bytes.
func (d Datatype) Size() int { return d.size }

func (d Datatype) String() string { return d.name }

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
	return Datatype{h: C.gc_datatype(C.int(code)), size: size, name: name}
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
	t := reflect.TypeFor[T]()
	switch t.Kind() {
	case reflect.Int8:
		return Int8
	case reflect.Int16:
		return Int16
	case reflect.Int32:
		return Int32
	case reflect.Int64:
		return Int64
	case reflect.Int:
		if t.Size() == 4 {
			return Int32
		}
		return Int64
	case reflect.Uint8:
		return Uint8
	case reflect.Uint16:
		return Uint16
	case reflect.Uint32:
		return Uint32
	case reflect.Uint64:
		return Uint64
	case reflect.Uint:
		if t.Size() == 4 {
			return Uint32
		}
		return Uint64
	case reflect.Float32:
		return Float32
	case reflect.Float64:
		return Float64
	case reflect.Complex64:
		return Complex64
	case reflect.Complex128:
		return Complex128
	}
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
	panic("mpiconduit: no MPI datatype for " + t.String()) // unreachable: Element is closed
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
	if isNil {
		return buf{}, misuse(ErrNilBuffer, op, "a buffer is required")
	}
	if n > math.MaxInt32 {
		return buf{}, misuse(ErrCount, op, "%d elements > %d", n, math.MaxInt32)
	}
	return buf{p: p, n: C.int(n), dt: dt}, nil
}

// part is elements [off, off+n) of b, for collectives that address blocks.
func (b buf) part(off, n int) buf {
	return buf{p: unsafe.Add(b.p, off*b.dt.size), n: C.int(n), dt: b.dt}
}
