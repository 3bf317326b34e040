package coll

import (
	"fmt"
	"reflect"

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
	return wait(ReduceAllOfNB(im, t, dst, src, op, f))
}

// ReduceAllOfNB is the non-blocking ReduceAllOf.
func ReduceAllOfNB[T any](im *Image, t *images.Team, dst, src []T, op Op, f gsync.Flags) (gsync.Handle, error) {
	c, err := typedComp(im, t, dst, src, true, op)
	if err != nil {
		return gsync.Handle{}, err
	}
	return im.ReduceAllNB(t, c.dst, c.src, Cyclic, c.es, c.count, c.fn, c.arg, f)
}

// ReduceOf sets dst on the image of team rank root to the fold by op of the
// images' src vectors (MPI_Reduce); dst applies to the root only.
func ReduceOf[T any](im *Image, t *images.Team, root int, dst, src []T, op Op, f gsync.Flags) error {
	return wait(ReduceOfNB(im, t, root, dst, src, op, f))
}

// ReduceOfNB is the non-blocking ReduceOf.
func ReduceOfNB[T any](im *Image, t *images.Team, root int, dst, src []T, op Op, f gsync.Flags) (gsync.Handle, error) {
	atRoot := t != nil && root >= 0 && root < t.Size() && t.Image(root) == im.ImageNum()
	c, err := typedComp(im, t, dst, src, atRoot, op)
	if err != nil {
		return gsync.Handle{}, err
	}
	return im.ReduceNB(t, root, c.dst, c.src, Cyclic, c.es, c.count, c.fn, c.arg, f)
}

// PrefixReduceOf sets dst on the image of team rank r to the fold by op of
// the src vectors of ranks 0..r (MPI_Scan).
func PrefixReduceOf[T any](im *Image, t *images.Team, dst, src []T, op Op, f gsync.Flags) error {
	return wait(PrefixReduceOfNB(im, t, dst, src, op, f))
}

// PrefixReduceOfNB is the non-blocking PrefixReduceOf.
func PrefixReduceOfNB[T any](im *Image, t *images.Team, dst, src []T, op Op, f gsync.Flags) (gsync.Handle, error) {
	c, err := typedComp(im, t, dst, src, true, op)
	if err != nil {
		return gsync.Handle{}, err
	}
	return im.PrefixReduceNB(t, c.dst, Cyclic, c.src, Cyclic, c.es, c.count, c.fn, c.arg, f)
}

// ExclusivePrefixReduceOf sets dst on the image of team rank r > 0 to the
// fold by op of the src vectors of ranks 0..r-1 (MPI_Exscan); rank 0's dst
// is not written.
func ExclusivePrefixReduceOf[T any](im *Image, t *images.Team, dst, src []T, op Op, f gsync.Flags) error {
	return wait(ExclusivePrefixReduceOfNB(im, t, dst, src, op, f))
}

// ExclusivePrefixReduceOfNB is the non-blocking ExclusivePrefixReduceOf.
func ExclusivePrefixReduceOfNB[T any](im *Image, t *images.Team, dst, src []T, op Op, f gsync.Flags) (gsync.Handle, error) {
	c, err := typedComp(im, t, dst, src, true, op)
	if err != nil {
		return gsync.Handle{}, err
	}
	return im.ExclusivePrefixReduceNB(t, c.dst, Cyclic, c.src, Cyclic, c.es, c.count, c.fn, c.arg, f)
}

// compCall is a typed reduction in the byte forms' terms.
type compCall struct {
	dst, src           []byte
	es, count, fn, arg int
}

// typedComp checks a typed reduction's slices and operation and turns them
// into the byte forms' arguments; withDst says that dst applies to this
// image. The team, the flags and what the images pass alike are the byte
// forms' to check.
func typedComp[T any](im *Image, t *images.Team, dst, src []T, withDst bool, op Op) (compCall, error) {
	var c compCall
	s, size, err := raw(src)
	if err != nil {
		return c, err
	}
	d, _, _ := raw(dst)
	typ := reflect.TypeFor[T]()
	switch {
	case size == 0:
		return c, fmt.Errorf("%w: %v has no bytes", ErrType, typ)
	case len(src) == 0:
		return c, fmt.Errorf("%w: src is empty", ErrLength)
	case withDst && len(dst) != len(src):
		return c, fmt.Errorf("%w: dst has %d elements, src %d", ErrLength, len(dst), len(src))
	case !withDst && dst != nil && len(dst) != len(src):
		return c, fmt.Errorf("%w: dst has %d elements, src %d", ErrLength, len(dst), len(src))
	}
	c.fn, c.arg, err = opEntry(op, typ)
	if err != nil {
		return c, err
	}
	c.dst, c.src, c.es = d, s, len(s)
	if t != nil {
		c.count = t.Size()
	}
	return c, nil
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
