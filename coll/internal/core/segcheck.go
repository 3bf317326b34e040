package core

import (
	"fmt"

	"github.com/gocoll/gocoll/coll/internal/plan"
	gsync "github.com/gocoll/gocoll/sync"
)

// checkSegment reports ErrNotInSegment when a flag asserts a data area in
// the segment that is not there (member k of c).
func (n *node) checkSegment(c *plan.Call, tn *teamNode, k int) error {
	f := c.Key.Flags
	if f&(gsync.SrcInSegment|gsync.DstInSegment) == 0 {
		return nil
	}
	d, s := plan.Area(c, k, tn.Team, tn.Mem)
	who := tn.Team.Image(tn.Mem[k])
	if f&gsync.DstInSegment != 0 && d != nil && n.SegOffset(d) < 0 {
		return fmt.Errorf("%w: destination of image %d", ErrNotInSegment, who)
	}
	if f&gsync.SrcInSegment != 0 && s != nil && n.SegOffset(s) < 0 {
		return fmt.Errorf("%w: source of image %d", ErrNotInSegment, who)
	}
	return nil
}

// segmentErr checks the data areas of the members this call names against
// the segment flags (remembered: run asks twice).
func (a *callArgs) segmentErr() error {
	if a.segChecked || a.Key.Flags&(gsync.SrcInSegment|gsync.DstInSegment) == 0 {
		return a.segErr
	}
	a.segChecked = true
	lo, hi := a.members()
	for k := lo; k < hi && a.segErr == nil; k++ {
		a.segErr = a.tn.n.checkSegment(&a.Call, a.tn, k)
	}
	return a.segErr
}

// allocSegment allocates the node's segment, collectively (every node, in
// Init).
func (n *node) allocSegment() error {
	os, ok := n.Cd.(segments)
	if !ok {
		return fmt.Errorf("%w: Options.SegmentSize needs a conduit with one-sided transfers (OneSided)", ErrConduit)
	}
	seg, err := os.AllocSegment(n.count * n.opts.SegmentSize)
	if err != nil {
		return fmt.Errorf("allocating the segment: %w", err)
	}
	n.Seg = seg[:n.count*n.opts.SegmentSize]
	return nil
}
