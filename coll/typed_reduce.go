package coll

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/gocoll/gocoll/images"
	gsync "github.com/gocoll/gocoll/sync"
)

// The typed reductions, in MPI's shape: every image of the team brings a
// vector (src, a []T of the same length everywhere) and the result is the
// vector of lane-by-lane folds over the images in rank order (MPI_Reduce,
// MPI_Allreduce, MPI_Scan, MPI_Exscan). To the engine the whole vector is
// one element of an array of one element per image (Cyclic), folded by the
// operation's entry of the standard table (Op); the built-in operations'
// entries let it split long vectors (a reduce-scatter and a gather) where
// that is faster. The sync and addressing modes are the caller's (f), as
// in the byte forms; a slice that does not apply to an image (dst of
// ReduceOf away from the root) may be nil unless f has Single.

// ReduceAllOf sets dst, on every image of team t, to the fold by op of the
// images' src vectors (MPI_Allreduce). dst and src have the same length on
// every image; dst may not overlap src.
func ReduceAllOf[T any](im *Image, t *images.Team, dst, src []T, op Op, f gsync.Flags) error {
	var c compCall
	if err := typedComp(&c, im, t, dst, src, true, op); err != nil {
		return err
	}
	return im.ReduceAll(t, c.dst, c.src, Cyclic, c.es, c.count, c.fn, c.arg, f)
}

// ReduceAllOfNB is the non-blocking ReduceAllOf.
func ReduceAllOfNB[T any](im *Image, t *images.Team, dst, src []T, op Op, f gsync.Flags) (gsync.Handle, error) {
	var c compCall
	if err := typedComp(&c, im, t, dst, src, true, op); err != nil {
		return gsync.Handle{}, err
	}
	return im.ReduceAllNB(t, c.dst, c.src, Cyclic, c.es, c.count, c.fn, c.arg, f)
}

// ReduceOf sets dst on the image of team rank root to the fold by op of the
// images' src vectors (MPI_Reduce); dst applies to the root only.
func ReduceOf[T any](im *Image, t *images.Team, root int, dst, src []T, op Op, f gsync.Flags) error {
	var c compCall
	if err := typedComp(&c, im, t, dst, src, atRoot(im, t, root), op); err != nil {
		return err
	}
	return im.Reduce(t, root, c.dst, c.src, Cyclic, c.es, c.count, c.fn, c.arg, f)
}

// ReduceOfNB is the non-blocking ReduceOf.
func ReduceOfNB[T any](im *Image, t *images.Team, root int, dst, src []T, op Op, f gsync.Flags) (gsync.Handle, error) {
	var c compCall
	if err := typedComp(&c, im, t, dst, src, atRoot(im, t, root), op); err != nil {
		return gsync.Handle{}, err
	}
	return im.ReduceNB(t, root, c.dst, c.src, Cyclic, c.es, c.count, c.fn, c.arg, f)
}

// PrefixReduceOf sets dst on the image of team rank r to the fold by op of
// the src vectors of ranks 0..r (MPI_Scan).
func PrefixReduceOf[T any](im *Image, t *images.Team, dst, src []T, op Op, f gsync.Flags) error {
	var c compCall
	if err := typedComp(&c, im, t, dst, src, true, op); err != nil {
		return err
	}
	return im.PrefixReduce(t, c.dst, Cyclic, c.src, Cyclic, c.es, c.count, c.fn, c.arg, f)
}

// PrefixReduceOfNB is the non-blocking PrefixReduceOf.
func PrefixReduceOfNB[T any](im *Image, t *images.Team, dst, src []T, op Op, f gsync.Flags) (gsync.Handle, error) {
	var c compCall
	if err := typedComp(&c, im, t, dst, src, true, op); err != nil {
		return gsync.Handle{}, err
	}
	return im.PrefixReduceNB(t, c.dst, Cyclic, c.src, Cyclic, c.es, c.count, c.fn, c.arg, f)
}

// ExclusivePrefixReduceOf sets dst on the image of team rank r > 0 to the
// fold by op of the src vectors of ranks 0..r-1 (MPI_Exscan); rank 0's dst
// is not written.
func ExclusivePrefixReduceOf[T any](im *Image, t *images.Team, dst, src []T, op Op, f gsync.Flags) error {
	var c compCall
	if err := typedComp(&c, im, t, dst, src, true, op); err != nil {
		return err
	}
	return im.ExclusivePrefixReduce(t, c.dst, Cyclic, c.src, Cyclic, c.es, c.count, c.fn, c.arg, f)
}

// ExclusivePrefixReduceOfNB is the non-blocking ExclusivePrefixReduceOf.
func ExclusivePrefixReduceOfNB[T any](im *Image, t *images.Team, dst, src []T, op Op, f gsync.Flags) (gsync.Handle, error) {
	var c compCall
	if err := typedComp(&c, im, t, dst, src, true, op); err != nil {
		return gsync.Handle{}, err
	}
	return im.ExclusivePrefixReduceNB(t, c.dst, Cyclic, c.src, Cyclic, c.es, c.count, c.fn, c.arg, f)
}

// atRoot reports whether im is the image of team rank root.
func atRoot(im *Image, t *images.Team, root int) bool {
	return t != nil && root >= 0 && root < t.Size() && t.Image(root) == im.ImageNum()
}

// compCall is a typed reduction in the byte forms' terms.
type compCall struct {
	dst, src           []byte
	es, count, fn, arg int
}

// typedComp fills c from a typed reduction's slices and operation, which
// it checks; withDst says that dst applies to this image. The team, the
// flags and what the images pass alike are the byte forms' to check. (c is
// the caller's, filled field by field: a struct built here and returned
// would be copied out in wider moves than it was written in, a stall on
// the path of every small reduction.) A built-in operation on one of Go's
// numbers is opFor's first way, inlined here.
func typedComp[T any](c *compCall, im *Image, t *images.Team, dst, src []T, withDst bool, op Op) error {
	fn, arg := stdBase+int(builtinIndex[T](op)), 0
	if fn < stdBase {
		var err error
		if fn, arg, err = entryFor[T](im, op); err != nil {
			return err
		}
	}
	switch {
	case len(src) == 0:
		return fmt.Errorf("%w: src is empty", ErrLength)
	case (withDst || dst != nil) && len(dst) != len(src):
		return fmt.Errorf("%w: dst has %d elements, src %d", ErrLength, len(dst), len(src))
	}
	c.dst, c.src = bytesView(dst), bytesView(src)
	c.es, c.fn, c.arg = len(c.src), fn, arg
	if t != nil {
		c.count = t.Size()
	}
	return nil
}

// opFor is op's standard table index and argument for elements of T, or
// why there is none. A built-in operation on one of Go's numbers is found
// by builtinIndex, inlined here (on the path of every small reduction,
// reflection's lookups and a call are most of the typed layer's cost);
// other types and the user operations take entryFor's way.
func opFor[T any](im *Image, op Op) (fn, arg int, err error) {
	if i := builtinIndex[T](op); i >= 0 {
		return stdBase + int(i), 0, nil
	}
	return entryFor[T](im, op)
}

// builtinIndex is the standard table's index of op on T when op is
// built-in and T one of Go's numbers, -1 otherwise.
func builtinIndex[T any](op Op) int32 {
	if op.u != nil || op.b >= numOps {
		return -1
	}
	return std.index[op.b][numKind[T]()] // (-1 at eNone)
}

// numKind is T's elemKind when T is one of Go's numbers (not a named type
// of one: kindOf knows those), eNone otherwise.
func numKind[T any]() elemKind {
	switch any((*T)(nil)).(type) {
	case *float64:
		return eFloat64
	case *float32:
		return eFloat32
	case *int:
		return eInt
	case *int64:
		return eInt64
	case *int32:
		return eInt32
	case *int16:
		return eInt16
	case *int8:
		return eInt8
	case *uint:
		return eUint
	case *uint64:
		return eUint64
	case *uint32:
		return eUint32
	case *uint16:
		return eUint16
	case *uint8:
		return eUint8
	case *complex128:
		return eComplex128
	case *complex64:
		return eComplex64
	}
	return eNone
}

// entryFor checks T and op and finds their entry, or takes it from the
// image's last typed reduction that took this way when that had the same
// type and operation.
func entryFor[T any](im *Image, op Op) (fn, arg int, err error) {
	typ := reflect.TypeFor[T]()
	if im != nil && im.typed.typ == typ && im.typed.op == op {
		return im.typed.fn, im.typed.arg, nil
	}
	size, err := elemSize[T]()
	switch {
	case err != nil:
		return 0, 0, err
	case size == 0:
		return 0, 0, fmt.Errorf("%w: %v has no bytes", ErrType, typ)
	}
	if fn, arg, err = opEntry(op, typ); err != nil {
		return 0, 0, err
	}
	if im != nil {
		im.typed = typedEntry{typ: typ, op: op, fn: fn, arg: arg}
	}
	return fn, arg, nil
}

// typedEntry is an element type and operation with its standard table
// entry and argument.
type typedEntry struct {
	typ     reflect.Type
	op      Op
	fn, arg int
}

// opEntry is op's standard table index and argument for elements of typ.
func opEntry(op Op, typ reflect.Type) (fn, arg int, err error) {
	if u := op.u; u != nil {
		if u.typ != typ {
			return 0, 0, fmt.Errorf("%w: %v takes %v, not %v", ErrOpType, op, u.typ, typ)
		}
		fn = std.user
		if u.noncomm {
			fn = std.userNonComm
		}
		return stdBase + fn, u.arg, nil
	}
	if op.b == opNone || op.b >= numOps {
		return 0, 0, fmt.Errorf("%w: %v", ErrOp, op)
	}
	i := int32(-1)
	if k := kindOf(typ); k != eNone {
		i = std.index[op.b][k]
	}
	if i < 0 {
		return 0, 0, fmt.Errorf("%w: %v of %v", ErrOpType, op, typ)
	}
	return stdBase + int(i), 0, nil
}

// The m forms: one vector per image of the calling node (LOCAL) or of the
// team's table (SINGLE), as the byte m forms take their lists; the node's
// representative calls for all of them.

// ReduceAllMOf is ReduceAllOf with a destination and a source per image.
func ReduceAllMOf[T any](im *Image, t *images.Team, dsts, srcs [][]T, op Op, f gsync.Flags) error {
	var c compMCall
	if err := typedCompM(&c, im, t, dsts, srcs, op); err != nil {
		return err
	}
	return im.ReduceAllM(t, c.dsts, c.srcs, Cyclic, c.es, c.count, c.fn, c.arg, f)
}

// ReduceAllMOfNB is the non-blocking ReduceAllMOf.
func ReduceAllMOfNB[T any](im *Image, t *images.Team, dsts, srcs [][]T, op Op, f gsync.Flags) (gsync.Handle, error) {
	var c compMCall
	if err := typedCompM(&c, im, t, dsts, srcs, op); err != nil {
		return gsync.Handle{}, err
	}
	return im.ReduceAllMNB(t, c.dsts, c.srcs, Cyclic, c.es, c.count, c.fn, c.arg, f)
}

// ReduceMOf is ReduceOf with a source per image; dst is the root's, on
// the root's node.
func ReduceMOf[T any](im *Image, t *images.Team, root int, dst []T, srcs [][]T, op Op, f gsync.Flags) error {
	var c compMCall
	if err := typedCompM(&c, im, t, [][]T{dst}, srcs, op); err != nil {
		return err
	}
	return im.ReduceM(t, root, c.dsts[0], c.srcs, Cyclic, c.es, c.count, c.fn, c.arg, f)
}

// ReduceMOfNB is the non-blocking ReduceMOf.
func ReduceMOfNB[T any](im *Image, t *images.Team, root int, dst []T, srcs [][]T, op Op, f gsync.Flags) (gsync.Handle, error) {
	var c compMCall
	if err := typedCompM(&c, im, t, [][]T{dst}, srcs, op); err != nil {
		return gsync.Handle{}, err
	}
	return im.ReduceMNB(t, root, c.dsts[0], c.srcs, Cyclic, c.es, c.count, c.fn, c.arg, f)
}

// PrefixReduceMOf is PrefixReduceOf with a destination and a source per
// image.
func PrefixReduceMOf[T any](im *Image, t *images.Team, dsts, srcs [][]T, op Op, f gsync.Flags) error {
	var c compMCall
	if err := typedCompM(&c, im, t, dsts, srcs, op); err != nil {
		return err
	}
	return im.PrefixReduceM(t, c.dsts, Cyclic, c.srcs, Cyclic, c.es, c.count, c.fn, c.arg, f)
}

// PrefixReduceMOfNB is the non-blocking PrefixReduceMOf.
func PrefixReduceMOfNB[T any](im *Image, t *images.Team, dsts, srcs [][]T, op Op, f gsync.Flags) (gsync.Handle, error) {
	var c compMCall
	if err := typedCompM(&c, im, t, dsts, srcs, op); err != nil {
		return gsync.Handle{}, err
	}
	return im.PrefixReduceMNB(t, c.dsts, Cyclic, c.srcs, Cyclic, c.es, c.count, c.fn, c.arg, f)
}

// ExclusivePrefixReduceMOf is ExclusivePrefixReduceOf with a destination
// and a source per image.
func ExclusivePrefixReduceMOf[T any](im *Image, t *images.Team, dsts, srcs [][]T, op Op, f gsync.Flags) error {
	var c compMCall
	if err := typedCompM(&c, im, t, dsts, srcs, op); err != nil {
		return err
	}
	return im.ExclusivePrefixReduceM(t, c.dsts, Cyclic, c.srcs, Cyclic, c.es, c.count, c.fn, c.arg, f)
}

// ExclusivePrefixReduceMOfNB is the non-blocking ExclusivePrefixReduceMOf.
func ExclusivePrefixReduceMOfNB[T any](im *Image, t *images.Team, dsts, srcs [][]T, op Op, f gsync.Flags) (gsync.Handle, error) {
	var c compMCall
	if err := typedCompM(&c, im, t, dsts, srcs, op); err != nil {
		return gsync.Handle{}, err
	}
	return im.ExclusivePrefixReduceMNB(t, c.dsts, Cyclic, c.srcs, Cyclic, c.es, c.count, c.fn, c.arg, f)
}

// compMCall is a typed m-form reduction in the byte forms' terms.
type compMCall struct {
	dsts, srcs         [][]byte
	es, count, fn, arg int
}

// typedCompM fills c from an m form's lists: every vector given (nil
// entries are images the call does not concern) has the same length.
func typedCompM[T any](c *compMCall, im *Image, t *images.Team, dsts, srcs [][]T, op Op) error {
	fn, arg, err := opFor[T](im, op)
	if err != nil {
		return err
	}
	n := -1
	for _, l := range [2][][]T{srcs, dsts} {
		for k, v := range l {
			switch {
			case v == nil:
			case n < 0:
				n = len(v)
			case len(v) != n:
				return fmt.Errorf("%w: vector %d has %d elements, another %d", ErrLength, k, len(v), n)
			}
		}
	}
	if n <= 0 {
		return fmt.Errorf("%w: no vector, or empty ones", ErrLength)
	}
	c.dsts, c.srcs = make([][]byte, len(dsts)), make([][]byte, len(srcs))
	for k, v := range dsts {
		c.dsts[k] = bytesView(v)
	}
	for k, v := range srcs {
		c.srcs[k] = bytesView(v)
	}
	var z T
	c.es, c.fn, c.arg = n*int(unsafe.Sizeof(z)), fn, arg
	if t != nil {
		c.count = t.Size()
	}
	return nil
}
