package coarray

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"unsafe"

	"github.com/gocoll/gocoll/reducefn"
)

// Operator is a CO_REDUCE operation, given to Init in Options.Operators and
// named in CoReduce by its position (an Op).
type Operator struct {
	fn    reducefn.Func
	flags reducefn.Flags
	typ   reflect.Type // the element type of OperatorOf; nil for ElementwiseOperator
}

// Op names one of Options.Operators by its position.
type Op int

// OperatorOf makes the operator that applies fn to corresponding elements:
// on arrays, element i of the result is fn(a[i], b[i]). The standard asks
// of OPERATION that it be pure and mathematically associative; flags say
// whether it is commutative too (reducefn.NonComm if not: the engine then
// combines the images' values in image order). For a string T, a and b are
// the blank-padded character values, and fn's result is blank-padded (or
// must fit) to the same character length. See Options.Checked for what is
// checked of fn.
func OperatorOf[T any](fn func(a, b T) T, flags reducefn.Flags) Operator {
	typ := reflect.TypeFor[T]()
	var combine func(dst, a, b []byte, arg int)
	if typ.Kind() == reflect.String {
		toT := func(b []byte) T { return reflect.ValueOf(string(b)).Convert(typ).Interface().(T) }
		combine = func(dst, a, b []byte, w int) {
			for off := 0; off+w <= len(dst); off += w {
				s := reflect.ValueOf(fn(toT(a[off:off+w]), toT(b[off:off+w]))).String()
				if len(s) > w {
					panic(fmt.Errorf("%w: the operator returned %d bytes for a character length of %d", ErrLength, len(s), w))
				}
				copy(dst[off:], s)
				copy(dst[off+len(s):off+w], blanks(w-len(s)))
			}
		}
	} else {
		combine = func(dst, a, b []byte, _ int) {
			d, x, y := view[T](dst), view[T](a), view[T](b)
			for i := range d {
				d[i] = fn(x[i], y[i])
			}
		}
	}
	return Operator{fn: reducefn.Elementwise(combine), flags: flags &^ reducefn.AMSafe, typ: typ}
}

// ElementwiseOperator makes an operator of combine, which sets dst to
// a op b for one element of the reduction (the whole array, as bytes; dst
// may be a itself); arg is the collective's (see ReduceBytes). It serves
// element types Go does not name, such as the gfortran runtime's.
func ElementwiseOperator(combine func(dst, a, b []byte, arg int), flags reducefn.Flags) Operator {
	return Operator{fn: reducefn.Elementwise(combine), flags: flags &^ reducefn.AMSafe}
}

// entry is the operator's function-table entry on a node: failures (a
// panic, an impure result) are recorded in the node's state, and in checked
// mode every call is made twice and the results compared.
func (op Operator) entry(ns *nodeState) reducefn.Entry {
	fn := op.fn
	return reducefn.Entry{Flags: op.flags, Fn: func(results, left, right []byte, es int, flags reducefn.Flags, arg int) {
		defer func() {
			if r := recover(); r != nil {
				err, ok := r.(error)
				if !ok {
					err = fmt.Errorf("%v", r)
				}
				if Stat(err) == StatCollective { // not one of ours (ErrLength is)
					err = fmt.Errorf("%w: %w", ErrOperator, err)
				}
				ns.fail(err)
			}
		}()
		fn(results, left, right, es, flags, arg)
		if ns.checked {
			c := make([]byte, len(results)) // callbacks of different teams may run at once
			fn(c, left, right, es, flags, arg)
			if !bytes.Equal(c, results) {
				ns.fail(ErrImpure)
			}
		}
	}}
}

// view is the memory of b seen as []T.
func view[T any](b []byte) []T {
	var z T
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/int(unsafe.Sizeof(z)))
}

func blanks(n int) string { return strings.Repeat(" ", n) }
