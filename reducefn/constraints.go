package reducefn

// The type sets of the built-in operators. They use ~ so that named types
// (type Kelvin float64) work: the operators see only the memory layout, and
// a named type has its underlying type's layout.

// Integer is every signed and unsigned integer type, int and uint included.
// uintptr is left out on purpose: an address means nothing on another node,
// so summing or comparing addresses across images is never what a caller
// wants.
type Integer interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 |
		~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

// Float is the IEEE 754 binary floating-point types.
type Float interface {
	~float32 | ~float64
}

// Complex is the complex types; they have sums and products but no order.
type Complex interface {
	~complex64 | ~complex128
}

// Number is every type with + and *: the domain of Sum and Prod.
type Number interface {
	Integer | Float | Complex
}

// Ordered is every type with a total order on its ordinary values: the
// domain of Min, Max, MinLoc and MaxLoc. It is cmp.Ordered without strings
// (a Go string holds a pointer and cannot cross nodes; see MinString) and
// without uintptr (see Integer).
type Ordered interface {
	Integer | Float
}
