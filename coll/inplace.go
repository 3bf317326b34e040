package coll

import "fmt"

// In-place reductions. A member's destination may be its source's own
// buffer (the same first byte): what MPI programs write with MPI_IN_PLACE.
// The results are those of separate buffers: the schedule works on a
// snapshot of such a source, taken as its first data round starts (after
// the input sync mode let it), so that no callback is handed results that
// alias an operand (reducefn.Func forbids it) and no result overwrites a
// source element before every read of it, local or by a send, is done.
// The copy is of the member's local part only, which the reduction reads
// anyway. Any other overlap of a destination with its source is
// ErrOverlap.

// notPartly checks member k's destination area against its source area
// (once both are validated): disjoint, or in place.
func (a *callArgs) notPartly(k int) {
	if a.err != nil {
		return
	}
	d, s := compAreas(&a.key, a.tn.mem[k], a.P, a.dst[k], a.src[k])
	if !overlap(d, s) || &d[0] == &s[0] {
		return
	}
	a.err = fmt.Errorf("%w: the destination%s overlaps the source without starting where it does (in place, pass the source's buffer as the destination)",
		ErrOverlap, a.whose(k))
}

// compAreas are member k's destination and source areas in a
// computational collective of key k (validated), nil where they do not
// apply.
func compAreas(key *planKey, rank, P int, dst, src []byte) (d, s []byte) {
	sd := dist{Layout: key.sl, P: P, count: key.count}
	if n := sd.localLen(rank) * key.es; n > 0 && len(src) >= n {
		s = src[:n]
	}
	n := key.es
	switch key.kind {
	case kReduce:
		if rank != key.root {
			n = 0
		}
	case kPrefix, kExclusivePrefix:
		n = dist{Layout: key.dl, P: P, count: key.count}.localLen(rank) * key.es
	}
	if n > 0 && len(dst) >= n {
		d = dst[:n]
	}
	return d, s
}

// inPlaceSources returns c's source list with a snapshot for every member
// whose destination is its source, and the copies that take them (nil
// when no member reduces in place).
func inPlaceSources(g geom, c *call) (src [][]byte, copies []copyOp) {
	for k, r := range g.mem {
		d, s := compAreas(&c.key, r, g.t.Size(), c.dst[k], c.src[k])
		if !overlap(d, s) {
			continue
		}
		if src == nil {
			src = append([][]byte(nil), c.src...)
		}
		snap := g.buf(len(s))
		src[k] = snap
		copies = append(copies, cp(snap, s, false))
	}
	return src, copies
}
