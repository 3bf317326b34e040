package mpi

/*
#include "gc.h"
*/
import "C"

// Op is an MPI reduction operator: one of the predefined ones, or a Go
// function registered with NewOp. The zero Op is no operator.
//
// It is one pointer to an immutable description, so that the operations
// pass it around for the cost of a word.
type Op struct{ *opInfo }

type opInfo struct {
	h    C.MPI_Op
	name string
	user int // index+1 in the user-operator table; 0 for predefined
	// serial tells this user operator from a later one in the same slot, so
	// a stale copy of a freed Op is refused instead of calling the new one.
	serial uint64
	code   int // gc_op's code of a predefined operator; 0 for the others
}

// String is the MPI name of the operator.
func (o Op) String() string {
	if o.opInfo == nil {
		return ""
	}
	return o.name
}

// handle is the MPI_Op, or MPI_OP_NULL for the zero Op.
func (o Op) handle() C.MPI_Op {
	if o.opInfo == nil {
		return C.gc_op_null()
	}
	return o.h
}

func predefinedOp(code int, name string) Op {
	return Op{&opInfo{h: C.gc_op(C.int(code)), name: name, code: code}}
}

// opKinds holds, for each predefined operator code, the data kinds (bit
// 1<<kind) it applies to in reductions, after MPI-3.1 section 5.9.2; zero
// for the codes that checkPredefined refuses or explains.
var opKinds = [...]uint8{
	1:  kInt | kFloat | kComplex, // MPI_SUM
	2:  kInt | kFloat | kComplex, // MPI_PROD
	3:  kInt | kFloat,            // MPI_MIN
	4:  kInt | kFloat,            // MPI_MAX
	5:  kInt,                     // MPI_LAND
	6:  kInt,                     // MPI_LOR
	7:  kInt,                     // MPI_LXOR
	8:  kInt | kByte,             // MPI_BAND
	9:  kInt | kByte,             // MPI_BOR
	10: kInt | kByte,             // MPI_BXOR
	11: kPair,                    // MPI_MINLOC
	12: kPair,                    // MPI_MAXLOC
	13: 0,                        // MPI_REPLACE: one-sided only
	14: 0,                        // MPI_NO_OP: one-sided only
}

const (
	kInt     = 1 << kindInt
	kFloat   = 1 << kindFloat
	kComplex = 1 << kindComplex
	kPair    = 1 << kindPair
	kByte    = 1 << kindByte
)

// predefinedOK reports whether o is a predefined operator that reduces dt:
// the fast path of checkPredefined, which explains every other case.
func predefinedOK(o Op, dt Datatype) bool {
	return o.opInfo != nil && o.user == 0 && uint(o.code) < uint(len(opKinds)) &&
		dt.dtype != nil && opKinds[o.code]&(1<<dt.kind) != 0
}

// The predefined operators. The codes match gc_op in gc.c.
var (
	OpSum     = predefinedOp(1, "MPI_SUM")
	OpProd    = predefinedOp(2, "MPI_PROD")
	OpMin     = predefinedOp(3, "MPI_MIN")
	OpMax     = predefinedOp(4, "MPI_MAX")
	OpLand    = predefinedOp(5, "MPI_LAND")
	OpLor     = predefinedOp(6, "MPI_LOR")
	OpLxor    = predefinedOp(7, "MPI_LXOR")
	OpBand    = predefinedOp(8, "MPI_BAND")
	OpBor     = predefinedOp(9, "MPI_BOR")
	OpBxor    = predefinedOp(10, "MPI_BXOR")
	OpMinloc  = predefinedOp(11, "MPI_MINLOC")
	OpMaxloc  = predefinedOp(12, "MPI_MAXLOC")
	OpReplace = predefinedOp(13, "MPI_REPLACE")
	OpNoOp    = predefinedOp(14, "MPI_NO_OP")
)
