// Package reducefn is the registered function table of gocoll's
// computational collectives: the callback signature, the flags of an entry,
// and ready-made entries for the usual operators.
//
// The ready-made entries (Sum, Prod, Min, Max, BitAnd, BitOr, BitXor,
// LogAnd, LogOr, LogXor, MinLoc, MaxLoc, MinString, MaxString) are
// commutative, AM-safe and allocation-free. The numeric ones view the
// buffers as []T in place, so results, left and right must be aligned for
// T, as the spec requires of computational collectives: a []T seen through
// Bytes is.
package reducefn

import "reflect"

// Flags of a registered function.
type Flags uint32

const (
	// NonComm marks a non-commutative operator; without it an operator is
	// assumed commutative.
	NonComm Flags = 1 << iota
	// AMSafe allows gocoll to run the function on an internal goroutine;
	// without it the function runs only on an application goroutine inside a
	// gocoll call.
	AMSafe
)

// Func is a (prefix) reduction callback in the spec's shape, on elements of
// elemSize bytes:
//
//   - right holds one or more operands and results has room for as many
//     (len(results) == len(right), a multiple of elemSize);
//   - left holds zero or more operands that lie to the left of right;
//   - with acc the left-to-right fold of left (absent when left is empty),
//     results[0] = acc op right[0] (or right[0] alone), and results[i] =
//     results[i-1] op right[i]: the inclusive prefix.
//
// A reduction calls it with exactly one right operand. results may alias
// neither left nor right. flags include NonComm exactly when the entry was
// registered with it; arg is the caller's argument, passed through.
type Func func(results, left, right []byte, elemSize int, flags Flags, arg int)

// Entry is one registered function; the table is indexed by position, the
// same on every node.
type Entry struct {
	Fn    Func
	Flags Flags
	// Scalar, when > 0, says that Fn treats an element as elemSize/Scalar
	// independent scalars of Scalar bytes combined one by one (a vector of
	// numbers): gocoll may then split elements at multiples of Scalar, and
	// an elemSize that is not a multiple of Scalar is an error.
	Scalar int
	// own is the code address of a ready-made entry's Fn (Own).
	own uintptr
}

// Own reports whether e is one of this package's ready-made entries, with
// its Fn unchanged. Such a function calls nothing of gocoll and does not
// panic on the arguments gocoll gives it, so gocoll runs it without the
// guard it puts around user code (a count of goroutines inside user code
// that every gocoll call reads, whose cache line would otherwise move
// between the cores of a node's images on every reduction). It also
// combines lane by lane, so that in a reduction step (one left and one
// right element) results may be right itself: gocoll then folds into a
// received partial in place.
func (e Entry) Own() bool {
	return e.own != 0 && e.Fn != nil && reflect.ValueOf(e.Fn).Pointer() == e.own
}

// owned marks e as a ready-made entry (Own).
func owned(e Entry) Entry {
	e.own = reflect.ValueOf(e.Fn).Pointer()
	return e
}
