package coll

// Direct runs on a team that lives on one node. The last image to arrive
// runs the node's operation for every member (localRec.run); for the two
// shapes below it does so without a schedule, since on a team of a few
// images the schedule's lookup, binding and rounds cost more than the
// copies and the fold themselves:
//
//   - a Broadcast: the root's block copied to every other destination;
//   - a ReduceAll of one element per member in rank order (Cyclic with
//     count = team size, what MPI_Allreduce users write) of at most
//     maxDirectFold bytes: the elements folded left to right in rank
//     order, the order of the schedule's local fold (reducer.foldSegs), so
//     the results are bitwise the same, then copied to every destination.
//
// Both read every source before writing any destination, so a member
// reducing in place (its destination its source) gets the results of
// separate buffers, and the callback never gets results aliasing an
// operand (the fold alternates between two scratch elements).
const maxDirectFold = maxStageBytes

// direct reports whether call c runs directly.
func (r *localRec) direct(c *call) bool {
	k := &c.key
	switch k.kind {
	case kBroadcast:
		return true
	case kReduceAll:
		return k.sl == Cyclic && k.count == len(r.tn.mem) && k.es <= maxDirectFold
	}
	return false
}

// foldOverlap is crossOverlap for a direct fold, where every member's
// areas are the first es bytes of its destination and of its source.
func foldOverlap(c *call, tn *teamNode) error {
	es := c.key.es
	return overlapAmong(c, tn, func(k int) (d, s []byte) { return c.dst[k][:es], c.src[k][:es] })
}

// runDirect runs c directly (see direct).
func (r *localRec) runDirect(c *call) error {
	k := &c.key
	if k.kind == kBroadcast {
		r.blocksFrom(c, c.src[k.root]) // member k.root: team ranks are the members' indices
		return nil
	}
	es := k.es
	rd := r.tn.n.reducerOf(k)
	if cap(r.stage) < 2*es {
		r.stage = make([]byte, 2*es)
	}
	acc := c.src[0][:es]
	for m := 1; m < len(c.src); m++ {
		t := r.stage[m%2*es : (m%2+1)*es]
		rd.call(t, acc, c.src[m][:es], es)
		acc = t
	}
	for _, d := range c.dst {
		copy(d[:es], acc)
	}
	return nil
}
