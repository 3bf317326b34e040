package mpiconduit

/*
#include "gc.h"
*/
import "C"

// Op is an MPI reduction operator: one of the predefined ones, or a Go
// function registered with NewOp.
type Op struct {
	h    C.MPI_Op
	name string
	user int // index+1 in the user-operator table; 0 for predefined
	// serial tells this user operator from a later one in the same slot, so
	// a stale copy of a freed Op is refused instead of calling the new one.
	serial uint64
}

func (o Op) String() string { return o.name }

func predefinedOp(code int, name string) Op {
	return Op{h: C.gc_op(C.int(code)), name: name}
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
