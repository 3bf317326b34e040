package local

import (
	"github.com/gocoll/gocoll/coll/internal/alg"
	"github.com/gocoll/gocoll/coll/internal/plan"
)

// Direct runs on a team that lives on one node. The last image to arrive
// runs the node's operation for every member (localRec.run); for the two
// shapes below it does so without a schedule, since on a team of a few
// images the schedule's lookup, binding and rounds cost more than the
// copies and the fold themselves:
//
//   - a Broadcast: the root's block copied to every other destination;
//   - a ReduceAll of one element per member in rank order (Cyclic with
//     count = team size, what MPI_Allreduce users write), of any size: the
//     elements folded left to right in rank order, the order of the
//     schedule's local fold (alg.Reducer's foldSegs), so the results are bitwise
//     the same, then copied to every destination. The schedule would do
//     the same fold and copies through internal buffers of several
//     elements.
//
// Both read every source before writing any destination, so a member
// reducing in place (its destination its source) gets the results of
// separate buffers, and the callback never gets results aliasing an
// operand (the fold alternates between two scratch pieces, the running
// image's own: Member.fold). A piece of a destination is written only
// after every source's same piece was read, and areas that are not
// identical do not overlap (foldOverlap), so folding piece by piece keeps
// this.

// An element whose function allows splitting it (reducefn.Entry.Scalar)
// is folded and copied out foldChunk bytes at a time, so that the pieces
// stay in the core's cache from the fold to the copies; any other element
// as a whole. maxKeptFold is the largest fold scratch (two pieces) an image
// keeps from one call to the next; a larger fold allocates its own.
const (
	foldChunk   = 16 << 10
	maxKeptFold = 4 << 20
)

// foldOverlap is crossOverlap for a direct fold, where every member's
// areas are the first es bytes of its destination and of its source.
func foldOverlap(c *plan.Call, tn *Team) error {
	es := c.Key.ElemSize
	return plan.OverlapAmong(c, tn.Team, tn.Mem, func(k int) (d, s []byte) { return c.Dst[k][:es], c.Src[k][:es] })
}

// runDirect runs c directly (see direct), on the image of it.
func (r *recLines) runDirect(c *plan.Call, it *Member) error {
	k := &c.Key
	if k.Kind == plan.Broadcast {
		r.blocksFrom(c, c.Src[k.Root]) // member k.root: team ranks are the members' indices
		return nil
	}
	es := k.ElemSize
	rd := r.tn.node.Reducer(k.Fn, k.Arg, k.ElemSize)
	step := es
	if rd.Scalar > 0 && es > foldChunk {
		step = max(rd.Scalar, foldChunk/rd.Scalar*rd.Scalar)
	}
	scratch := it.fold
	if cap(scratch) < 2*step {
		scratch = make([]byte, 2*step)
		if 2*step <= maxKeptFold {
			it.fold = scratch
		}
	}
	for lo := 0; lo < es; lo += step {
		hi := min(lo+step, es)
		n := hi - lo
		acc := c.Src[0][lo:hi]
		for m := 1; m < len(c.Src); m++ {
			t := scratch[m%2*step : m%2*step+n]
			rd.Call(t, acc, c.Src[m][lo:hi], n)
			acc = t
		}
		for _, d := range c.Dst {
			if d != nil { // a member that folds its own (local.go, self)
				alg.CopyData(d[lo:hi], acc)
			}
		}
	}
	return nil
}
