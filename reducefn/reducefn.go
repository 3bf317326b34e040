// Package reducefn is the registered function table of gocoll's
// computational collectives: the callback signature and the flags of an entry.
package reducefn

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

// Func is a (prefix) reduction callback in the spec's shape. right holds one
// or more operands of elemSize bytes each, and results has room for as many;
// left holds zero or more operands lying to the left of right. flags include
// NonComm exactly when the entry was registered with it; arg is the caller's
// argument passed through.
type Func func(results, left, right []byte, elemSize int, flags Flags, arg int)

// Entry is one registered function: the table is indexed by position, the
// same on every node.
type Entry struct {
	Fn    Func
	Flags Flags
}
