package coll

import (
	"reflect"

	"github.com/gocoll/gocoll/coll/internal/core"
	"github.com/gocoll/gocoll/reducefn"
)

// The standard table: the function-table entries of the typed reductions'
// operations, the same on every node of a gocoll build, so that they need
// no agreement at Init. Their indices start at stdBase, far above any table
// given to Init: no index a program counts from its own table reaches them.
const stdBase = core.StdBase

// elemKind is the element type of a built-in operation: a numeric kind, or
// reducefn.ValLoc of one (MinLoc, MaxLoc).
type elemKind uint8

const (
	eNone elemKind = iota
	eInt
	eInt8
	eInt16
	eInt32
	eInt64
	eUint
	eUint8
	eUint16
	eUint32
	eUint64
	eFloat32
	eFloat64
	eComplex64
	eComplex128
	numNumeric
)

// ValLoc kinds are numeric kinds shifted by numNumeric.
const numElemKinds = 2 * numNumeric

// std is the standard table: entries, the index of (operation, kind) in
// them (-1 where the operation does not take the kind), and the two
// entries that call user operations.
type stdTable struct {
	entries           []reducefn.Entry
	own               []bool
	index             [numOps][numElemKinds]int32
	user, userNonComm int
}

var std = makeStd()

func makeStd() *stdTable {
	s := &stdTable{}
	for op := range s.index {
		for k := range s.index[op] {
			s.index[op][k] = -1
		}
	}
	integer[int](s, eInt)
	integer[int8](s, eInt8)
	integer[int16](s, eInt16)
	integer[int32](s, eInt32)
	integer[int64](s, eInt64)
	integer[uint](s, eUint)
	integer[uint8](s, eUint8)
	integer[uint16](s, eUint16)
	integer[uint32](s, eUint32)
	integer[uint64](s, eUint64)
	ordered[float32](s, eFloat32)
	ordered[float64](s, eFloat64)
	number[complex64](s, eComplex64)
	number[complex128](s, eComplex128)
	user := reducefn.Elementwise(func(dst, a, b []byte, arg int) { userOpOf(arg).combine(dst, a, b) })
	s.user = s.add(reducefn.Entry{Fn: user})
	s.userNonComm = s.add(reducefn.Entry{Fn: user, Flags: reducefn.NonComm})
	return s
}

func (s *stdTable) add(e reducefn.Entry) int {
	s.entries = append(s.entries, e)
	s.own = append(s.own, e.Own())
	return len(s.entries) - 1
}

func (s *stdTable) set(op builtinOp, k elemKind, e reducefn.Entry) {
	s.index[op][k] = int32(s.add(e))
}

func number[T reducefn.Number](s *stdTable, k elemKind) {
	s.set(opSum, k, reducefn.Sum[T]())
	s.set(opProd, k, reducefn.Prod[T]())
}

func ordered[T reducefn.Ordered](s *stdTable, k elemKind) {
	number[T](s, k)
	s.set(opMin, k, reducefn.Min[T]())
	s.set(opMax, k, reducefn.Max[T]())
	s.set(opMinLoc, numNumeric+k, reducefn.MinLoc[T]())
	s.set(opMaxLoc, numNumeric+k, reducefn.MaxLoc[T]())
}

func integer[T reducefn.Integer](s *stdTable, k elemKind) {
	ordered[T](s, k)
	s.set(opBitAnd, k, reducefn.BitAnd[T]())
	s.set(opBitOr, k, reducefn.BitOr[T]())
	s.set(opBitXor, k, reducefn.BitXor[T]())
	s.set(opLogAnd, k, reducefn.LogAnd[T]())
	s.set(opLogOr, k, reducefn.LogOr[T]())
	s.set(opLogXor, k, reducefn.LogXor[T]())
}

// numericKinds are the elemKinds of reflect's numeric kinds.
var numericKinds = [...]elemKind{reflect.Int: eInt, reflect.Int8: eInt8, reflect.Int16: eInt16,
	reflect.Int32: eInt32, reflect.Int64: eInt64, reflect.Uint: eUint, reflect.Uint8: eUint8,
	reflect.Uint16: eUint16, reflect.Uint32: eUint32, reflect.Uint64: eUint64, reflect.Float32: eFloat32,
	reflect.Float64: eFloat64, reflect.Complex64: eComplex64, reflect.Complex128: eComplex128}

// kindOf is t's elemKind (eNone for other types): its numeric kind (named
// types such as type Celsius float64 included), or for reducefn.ValLoc[V],
// V's shifted by numNumeric.
func kindOf(t reflect.Type) elemKind {
	if k := t.Kind(); int(k) < len(numericKinds) {
		return numericKinds[k]
	}
	if t.Kind() == reflect.Struct && t.PkgPath() == valLocPkg && t.NumField() == 2 &&
		t.Field(0).Name == "Val" && t.Field(1).Name == "Loc" && t == valLocOf(t.Field(0).Type) {
		if k := kindOf(t.Field(0).Type); k != eNone && k < numNumeric {
			return numNumeric + k
		}
	}
	return eNone
}

var valLocPkg = reflect.TypeFor[reducefn.ValLoc[int]]().PkgPath()

// valLocOf is reducefn.ValLoc[v] for the built-in ordered types v, nil
// for others.
func valLocOf(v reflect.Type) reflect.Type {
	switch v {
	case reflect.TypeFor[int]():
		return reflect.TypeFor[reducefn.ValLoc[int]]()
	case reflect.TypeFor[int8]():
		return reflect.TypeFor[reducefn.ValLoc[int8]]()
	case reflect.TypeFor[int16]():
		return reflect.TypeFor[reducefn.ValLoc[int16]]()
	case reflect.TypeFor[int32]():
		return reflect.TypeFor[reducefn.ValLoc[int32]]()
	case reflect.TypeFor[int64]():
		return reflect.TypeFor[reducefn.ValLoc[int64]]()
	case reflect.TypeFor[uint]():
		return reflect.TypeFor[reducefn.ValLoc[uint]]()
	case reflect.TypeFor[uint8]():
		return reflect.TypeFor[reducefn.ValLoc[uint8]]()
	case reflect.TypeFor[uint16]():
		return reflect.TypeFor[reducefn.ValLoc[uint16]]()
	case reflect.TypeFor[uint32]():
		return reflect.TypeFor[reducefn.ValLoc[uint32]]()
	case reflect.TypeFor[uint64]():
		return reflect.TypeFor[reducefn.ValLoc[uint64]]()
	case reflect.TypeFor[float32]():
		return reflect.TypeFor[reducefn.ValLoc[float32]]()
	case reflect.TypeFor[float64]():
		return reflect.TypeFor[reducefn.ValLoc[float64]]()
	}
	return nil
}
