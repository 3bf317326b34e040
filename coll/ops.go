package coll

import (
	"fmt"
	"hash/fnv"
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Op is an operation of the typed reductions (ReduceAllOf, ReduceOf,
// PrefixReduceOf, ExclusivePrefixReduceOf): one of the built-in operations
// (Sum, Prod, Min, Max, the bitwise and logical ones, MinLoc and MaxLoc), or
// one made from a Go function by OpOf or SliceOpOf. The zero Op is none.
//
// Behind an Op the spec's function table stays the mechanism: Init adds to
// every node's table the standard entries, one per built-in operation and
// element type, and two that call user operations. A user operation is
// known to the engine by its argument (the collective's arg): a number the
// process gives it when it is made, and a hash of its function's name and
// element type. Every image must pass the same operation, made by the same
// code in the same order as on the other images (package-level variables,
// or the same statements before the collectives that use them, as in any
// SPMD program); then the arguments agree. Where they do not (another
// function, or operations made in another order), the engine's check of
// the call's arguments fails the call with ErrMismatch, as for any other
// argument that differs between images.
type Op struct {
	b builtinOp
	u *userOp
}

type builtinOp uint8

const (
	opNone builtinOp = iota
	opSum
	opProd
	opMin
	opMax
	opBitAnd
	opBitOr
	opBitXor
	opLogAnd
	opLogOr
	opLogXor
	opMinLoc
	opMaxLoc
	numOps
)

var opNames = [numOps]string{"none", "Sum", "Prod", "Min", "Max", "BitAnd", "BitOr", "BitXor",
	"LogAnd", "LogOr", "LogXor", "MinLoc", "MaxLoc"}

// The built-in operations, as MPI's: on numbers (Sum, Prod; complex
// numbers too), ordered numbers (Min, Max: floats in reducefn.Min's order),
// integers (the bitwise and logical ones: logical on nonzero as true, with 1
// for true) and reducefn.ValLoc pairs (MinLoc, MaxLoc: of equal values the
// lower Loc).
var (
	Sum    = Op{b: opSum}
	Prod   = Op{b: opProd}
	Min    = Op{b: opMin}
	Max    = Op{b: opMax}
	BitAnd = Op{b: opBitAnd}
	BitOr  = Op{b: opBitOr}
	BitXor = Op{b: opBitXor}
	LogAnd = Op{b: opLogAnd}
	LogOr  = Op{b: opLogOr}
	LogXor = Op{b: opLogXor}
	MinLoc = Op{b: opMinLoc}
	MaxLoc = Op{b: opMaxLoc}
)

// String names the operation.
func (op Op) String() string {
	if op.u != nil {
		return op.u.name
	}
	if op.b < numOps {
		return opNames[op.b]
	}
	return fmt.Sprintf("Op(%d)", op.b)
}

// userOp is an operation made from a Go function.
type userOp struct {
	id      uint32
	name    string       // the function's name, for errors
	typ     reflect.Type // the element type it takes
	arg     int          // the collectives' argument: id and hash (Op)
	noncomm bool
	combine func(dst, a, b []byte) // dst = a op b, lane by lane; dst may be a
}

// userOps are the process's user operations, by id: copied on write, so
// that the reductions' callbacks find theirs with one load.
var (
	userOps   atomic.Pointer[[]*userOp]
	userOpsMu sync.Mutex
)

// OpOf makes an operation of fn, applied to the elements of the slices
// lane by lane: the reduction of []T vectors is the vector of fn's folds.
// commutative false keeps the images' rank order (fn(a, b) with a from the
// lower ranks). fn must be pure: gocoll may call it on any of the process's
// goroutines that is inside a gocoll call, and on any pair of partial
// results. Make operations once (a package-level variable, or before the
// loop): each one is kept for the life of the process. A nil fn makes no
// operation (the zero Op, which the reductions refuse with ErrOp).
func OpOf[T any](fn func(a, b T) T, commutative bool) Op {
	if fn == nil {
		return Op{}
	}
	return newUserOp[T](fn, !commutative, func(dst, a, b []byte) {
		d, x, y := view[T](dst), view[T](a), view[T](b)
		for i := range d {
			d[i] = fn(x[i], y[i])
		}
	})
}

// SliceOpOf makes an operation of fn, which sets dst to a op b for whole
// vectors (dst may be a itself); as OpOf otherwise.
func SliceOpOf[T any](fn func(dst, a, b []T), commutative bool) Op {
	if fn == nil {
		return Op{}
	}
	return newUserOp[T](fn, !commutative, func(dst, a, b []byte) {
		fn(view[T](dst), view[T](a), view[T](b))
	})
}

func newUserOp[T any](fn any, noncomm bool, combine func(dst, a, b []byte)) Op {
	typ := reflect.TypeFor[T]()
	name := "func"
	if f := runtime.FuncForPC(reflect.ValueOf(fn).Pointer()); f != nil {
		name = f.Name()
	}
	h := fnv.New32a()
	_, _ = fmt.Fprintf(h, "%s %v %v", name, typ, noncomm)
	userOpsMu.Lock()
	defer userOpsMu.Unlock()
	var ops []*userOp
	if p := userOps.Load(); p != nil {
		ops = *p
	}
	u := &userOp{id: uint32(len(ops)), name: name, typ: typ, noncomm: noncomm, combine: combine}
	u.arg = int(u.id) | int(h.Sum32()&0x7fffffff)<<32
	ops = append(ops[:len(ops):len(ops)], u)
	userOps.Store(&ops)
	return Op{u: u}
}

// userOpOf is the user operation of a reduction's argument.
func userOpOf(arg int) *userOp {
	ops := *userOps.Load()
	return ops[uint32(arg)]
}

// view is b as a []T (b is a whole number of T, aligned for T).
func view[T any](b []byte) []T {
	var z T
	n := int(unsafe.Sizeof(z))
	if len(b) == 0 || n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/n)
}
