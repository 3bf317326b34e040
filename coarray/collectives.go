package coarray

import (
	"fmt"
	"reflect"
	"sync"
	"unsafe"

	"github.com/gocoll/gocoll/reducefn"
)

// The collectives of Fortran 2018 on Go values. Each takes the array A as a
// slice, which it updates in place (a scalar is a slice of one: see One),
// and is collective over the current team: every image of it calls the
// same routine with the same length and options, as the standard requires.
// Each is one collective of gocoll's engine, whatever the length (plus the
// agreement in the checked mode, see Options.Checked).
//
// Strings follow Fortran's character semantics: every value of the call has
// the same character length (CharLen, or by default the longest value on
// any image of the team for CO_MIN/CO_MAX/CO_REDUCE, the source image's for
// CO_BROADCAST), shorter values are blank-padded to it, and the results come
// back blank-padded.

// Option is an optional argument of a collective (ResultImage, CharLen).
// It is a value, not a function, so that passing options allocates
// nothing.
type Option struct {
	which optionKind
	value int
}

type optionKind uint8

const (
	optResultImage optionKind = iota + 1
	optCharLen
)

type options struct {
	resultImage int
	charLen     int
}

// ResultImage is RESULT_IMAGE: the result lands on that image (1-based)
// only; elsewhere A becomes undefined (gocoll leaves it as it was).
func ResultImage(i int) Option { return Option{optResultImage, i} }

// CharLen is the character length of string arguments: a value longer
// than it is an error (ErrLength, on every image: string collectives agree
// on it with one more small collective); without it the length is the one
// agreed on in that collective.
func CharLen(n int) Option { return Option{optCharLen, n} }

func optionsOf(opts []Option) options {
	var o options
	for _, op := range opts {
		switch op.which {
		case optResultImage:
			o.resultImage = op.value
		case optCharLen:
			o.charLen = op.value
		}
	}
	return o
}

// Ordered is what CO_MIN and CO_MAX take: integers, reals, and strings.
type Ordered interface {
	reducefn.Ordered | ~string
}

// One is the slice of one element aliasing *p: how a scalar is passed.
func One[T any](p *T) []T { return unsafe.Slice(p, 1) }

// CoBroadcast is CO_BROADCAST(A, SOURCE_IMAGE): A on every image of the
// team gets A's value on image sourceImage. T is any type without pointers
// (numbers, bool, arrays and structs of them: Fortran's derived types), or
// a string type. The only Option that applies is CharLen.
func CoBroadcast[T any](img *Image, a []T, sourceImage int, opts ...Option) error {
	o := optionsOf(opts)
	if isString[T]() {
		return img.broadcastStrings(strs(a), sourceImage, o.charLen)
	}
	var z T
	c := call{op: opBroadcast, count: len(a), elem: int(unsafe.Sizeof(z)), image: sourceImage}
	c.err = travels[T]()
	return img.broadcast(bytesOf(a), &c)
}

// CoSum is CO_SUM(A [, RESULT_IMAGE]): element-wise sums over the team.
// Integers wrap on overflow; floating-point sums are combined in an order
// fixed by the team, so they are the same run after run.
func CoSum[T reducefn.Number](img *Image, a []T, opts ...Option) error {
	return img.SumBytes(bytesOf(a), kindOf[T](), optionsOf(opts).resultImage)
}

// CoMin is CO_MIN(A [, RESULT_IMAGE]): element-wise minima over the team
// (floats in reducefn.Min's order: -0 below +0, NaN wins; strings in byte
// order, which is code point order, after blank padding).
func CoMin[T Ordered](img *Image, a []T, opts ...Option) error {
	return coMinMax(img, a, opMin, optionsOf(opts))
}

// CoMax is CO_MAX(A [, RESULT_IMAGE]), as CoMin.
func CoMax[T Ordered](img *Image, a []T, opts ...Option) error {
	return coMinMax(img, a, opMax, optionsOf(opts))
}

func coMinMax[T Ordered](img *Image, a []T, op int, o options) error {
	if isString[T]() {
		fn := builtin.index[op][Char]
		return img.reduceStrings(strs(a), op, fn, o)
	}
	return img.reduceBuiltin(bytesOf(a), op, kindOf[T](), 0, o.resultImage)
}

// CoReduce is CO_REDUCE(A, OPERATION [, RESULT_IMAGE]) with the operator op
// (Options.Operators[op], made by OperatorOf[T] or ElementwiseOperator): the
// element-wise reduction of A over the team. T is as for CoBroadcast.
func CoReduce[T any](img *Image, a []T, op Op, opts ...Option) error {
	o := optionsOf(opts)
	typ := reflect.TypeFor[T]()
	fn, err := img.opIndex(op, typ)
	if isString[T]() {
		if err != nil {
			return err
		}
		return img.reduceStrings(strs(a), opReduce, fn, o)
	}
	var z T
	c := call{op: opReduce, count: len(a), elem: int(unsafe.Sizeof(z)), image: o.resultImage, fn: fn, err: err}
	if c.err == nil {
		c.err = travels[T]()
	}
	return img.reduce(bytesOf(a), &c)
}

// kindOf is the Kind of a number type (by its underlying type).
func kindOf[T any]() Kind {
	switch reflect.TypeFor[T]().Kind() {
	case reflect.Int8:
		return Int8
	case reflect.Int16:
		return Int16
	case reflect.Int32:
		return Int32
	case reflect.Int64, reflect.Int:
		return Int64
	case reflect.Uint8:
		return Uint8
	case reflect.Uint16:
		return Uint16
	case reflect.Uint32:
		return Uint32
	case reflect.Uint64, reflect.Uint:
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
	return 0
}

func isString[T any]() bool { return reflect.TypeFor[T]().Kind() == reflect.String }

// strs is a []T of a string type seen as []string.
func strs[T any](a []T) []string {
	if len(a) == 0 {
		return nil
	}
	return unsafe.Slice((*string)(unsafe.Pointer(unsafe.SliceData(a))), len(a))
}

var pointerFree sync.Map // reflect.Type -> error

// travels reports whether T's bytes may go to another node: T holds no
// pointers.
func travels[T any]() error {
	typ := reflect.TypeFor[T]()
	if e, ok := pointerFree.Load(typ); ok {
		if e == nil {
			return nil
		}
		return e.(error)
	}
	var err error
	if hasPointers(typ) {
		err = fmt.Errorf("%w: %v holds pointers, whose values mean nothing on another image", ErrType, typ)
	}
	pointerFree.Store(typ, err)
	return err
}

func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Array:
		return t.Len() > 0 && hasPointers(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
		return false
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return false
	}
	return true // pointers, strings, slices, maps, channels, funcs, interfaces, uintptr
}
