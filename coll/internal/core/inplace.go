package core

import (
	"fmt"

	"github.com/gocoll/gocoll/coll/internal/alg"
	"github.com/gocoll/gocoll/coll/internal/plan"
)

// In-place reductions. A member's destination may be its source's own
// buffer (the same first byte): what MPI programs write with MPI_IN_PLACE.
// The results are those of separate buffers: the schedule works on a
// snapshot of such a source, taken as its first data round starts (after
// the input sync mode let it), so that no callback is handed results that
// alias an operand (reducefn.Func forbids it) and no result overwrites a
// source element before every read of it, local or by a send, is done.
// The copy is of the member's local part only, which the reduction reads
// anyway. Any other overlap of a destination with its source is
// plan.ErrOverlap.

// notPartly checks member k's destination area against its source area
// (once both are validated): disjoint, or in place.
func (a *callArgs) notPartly(k int) {
	if a.err != nil {
		return
	}
	d, s := compAreas(&a.Key, a.tn.Mem[k], a.P, a.Dst[k], a.Src[k])
	if !alg.Overlap(d, s) || &d[0] == &s[0] {
		return
	}
	a.err = fmt.Errorf("%w: the destination%s overlaps the source without starting where it does (in place, pass the source's buffer as the destination)",
		plan.ErrOverlap, a.whose(k))
}
