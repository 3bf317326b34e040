package local

import (
	"context"
	"sync/atomic"

	"github.com/gocoll/gocoll/coll/internal/alg"
	"github.com/gocoll/gocoll/coll/internal/plan"
)

// The ring: a small ReduceAll that every member of a local team calls in
// the blocking form (Route.Self) needs no record and no member to run it.
// Each member writes its element into its line of the ring's slot for the
// call (the call's number among the team's AllThreads calls, modulo
// ringCalls), waits for the others' lines of that slot, and folds its own
// result from them, as a self member of a record does (local.go): the
// call costs each member its own line written and the others' read, with
// no count, no record to find, and no end to write.
//
// A member that cannot use the ring (it called the non-blocking form, or
// another collective, or its slot is still being read: see ringFree)
// takes the record chain instead, and so do the others then: a member
// waiting in the ring that sees a member arrived at the chain's next
// record, while that member's line of the slot is missing, joins the
// chain (as a self member). The decision is the same on every member: one
// that folded from the ring saw every line, so no member can have taken
// the chain for the call; one that took the chain saw a line missing, so
// no member could fold from the ring. Members whose lines disagree (other
// arguments, another operator) all see it, and all return ErrArgsDiffer.
//
// A slot serves again ringCalls calls later, once every other member is
// done reading it. Each member publishes, on a line of its own, its fin:
// a number of calls such that it reads no slot of an earlier call any
// more (the call it is at, as it takes the chain; the call after, as it
// leaves the ring). A member about to write the slot of call n needs
// every other fin past n-ringCalls: it reads the fins seldom (it keeps
// their least value, Member.safe) and, if one is not, takes the chain
// rather than wait: an image may run ahead of the others with
// non-blocking calls by any number of calls, as on the chain.
//
// The ring holds twice maxStaged calls, so that a root running ahead (see
// castByRing) reaches the limit a root has on the chain before it finds
// its slot still read.
const ringCalls = 2 * maxStaged

// finLine is a member's fin, on a cache line of its own.
type finLine struct {
	v atomic.Uint64
	_ [56]byte
}

// newRing gives a local team of several members on this node its ring.
func (tn *Team) newRing() {
	if len(tn.Mem) > 1 {
		tn.ring = make([]memberLine, ringCalls*len(tn.Mem))
		tn.fins = make([]finLine, len(tn.Mem))
	}
}

// ringFree reports whether the slot of call n is free for member mine to
// write: every other member's fin is past n-ringCalls.
func (it *Member) ringFree(n uint64, mine int) bool {
	if n < it.safe+ringCalls {
		return true
	}
	least := ^uint64(0)
	for m := range it.team.fins {
		if m != mine {
			least = min(least, it.team.fins[m].v.Load())
		}
	}
	it.safe = least
	return n < least+ringCalls
}

// byRing runs a's call, the member's call number n, by the ring if it
// can; done is false when the call takes the chain (its line of the slot
// then says nothing to anyone: the others take the chain too).
func (it *Member) byRing(a *Args, n uint64) (done bool, err error) {
	tn, mine := it.team, a.Mine
	if !it.ringFree(n, mine) {
		return false, nil
	}
	rl := it.slot(n)
	m := len(rl.lines)
	ln := &rl.lines[mine]
	ln.dst, ln.src = a.Dst[mine], a.Src[mine]
	copy(ln.val[:], ln.src[:a.Key.ElemSize])
	sig := lineWord(&a.Key)
	ln.word = sig | lineSelf
	ln.at.Store(n + 1)
	want, next, chained := n+1, 0, false
	arrived := func() bool {
		for ; next < m; next++ {
			if rl.lines[next].at.Load() != want {
				return false
			}
		}
		return true
	}
	cur := it.cur
	err = tn.eng.WaitArrivals(context.Background(), func() bool {
		if arrived() {
			return true
		}
		if nr := cur.next.Load(); nr != nil && nr.count.Load() > 0 {
			// A member is on the chain: for this call (see above), unless
			// its line came since.
			chained = !arrived()
			return true
		}
		return false
	}, it.ringStalled)
	if chained {
		return false, nil // the chain publishes the fin
	}
	if err == nil {
		if _, err = rl.gather(it, a, sig); err == nil {
			err = rl.fold(it, a, true)
		}
	}
	it.ahead = 0
	tn.fins[mine].v.Store(n + 1) // done reading the slot
	return true, err
}

// claimCalls is how many calls ahead claimAhead writes.
const claimCalls = 4

// claimAhead writes member mine's line of the slot claimCalls calls after
// n, if no one reads that slot any more (as the cached fins say: they are
// not read again for it): a plain store, so that the line comes over from the cores
// that read it last while the image returns and makes its next calls,
// rather than when that call stores its arrival, a fence that would wait
// for it. The line's word is written again before its arrival says the
// call's line is there. For a broadcast by the ring, whose root writes its
// line at every call and meets no one: there it took 10-15% off a call in
// process; in a ReduceAll, where every call waits for the others' lines
// anyway, it cost 5%.
func (it *Member) claimAhead(n uint64, mine int) {
	if c := n + claimCalls; c < it.safe+ringCalls {
		it.slot(c).lines[mine].word = 0
	}
}

// slot is the lines of call n in the ring.
func (it *Member) slot(n uint64) recLines {
	m := len(it.team.Mem)
	s := int(n%ringCalls) * m
	return recLines{tn: it.team, num: n, lines: it.team.ring[s : s+m]}
}

// ringWaiting says which members have not arrived at the image's call in
// the ring (its last), for a stalled wait's error: made once per image
// and team (Member.ringStalled), not per call.
func (it *Member) ringWaiting() string {
	rl := it.slot(it.Calls - 1)
	return rl.waitingFor()
}

// A small broadcast goes by the ring too, but its root does not wait for
// the others: it writes its block into its line of the call's slot and
// leaves, as a staged root does on the chain (local.go), and the others
// copy from that line. Since the root meets no one, the choice between the
// ring and the chain is a decision taken once per call, by a
// compare-and-swap on the call's candidate record (the chain's next,
// which every member of the call finds: localRec.dec, which holds the
// call's number and the choice): the root takes the ring once its block is
// in its line; a member that calls the non-blocking form before the root
// came, whose slot is not free, or that calls another collective, takes
// the chain (every call on the chain decides so before it counts in), and
// then so does everyone, the root included. A member that calls the
// blocking form waits for the decision. So an image may still run ahead of
// the root with non-blocking calls, on the chain, and a root that finds
// the ring already taken knows another image thought itself the root.
const (
	decRing  = 1
	decChain = 2
)

// decide takes decision d for call n on its candidate record r unless
// one was taken; it returns the call's decision, and whether it took it.
func (r *localRec) decide(n, d uint64) (uint64, bool) {
	for {
		v := r.dec.Load()
		if v>>2 > n {
			return decisionOf(v, n), false
		}
		if r.dec.CompareAndSwap(v, (n+1)<<2|d) {
			return d, true
		}
	}
}

// decisionOf is the decision of call n that a candidate record's dec v
// holds, decided (v>>2 > n): a later call's decision means the ring, as
// a call on the chain would have taken the record.
func decisionOf(v, n uint64) uint64 {
	if v>>2 == n+1 {
		return v & 3
	}
	return decRing
}

// castByRing runs a's broadcast, the member's call number n, by the ring
// if the call's decision is so; done is false when it takes the chain.
// The root publishes its line (at) only once it took the ring, so that
// the others, who read that line anyway, find the decision there and not
// on the record, whose line would pass between their cores on every call.
func (it *Member) castByRing(a *Args, n uint64) (done bool, err error) {
	tn, mine, k := it.team, a.Mine, &a.Key
	r := it.cur.nextRec()
	rl := it.slot(n)
	root := k.Root // a local team's members are its ranks
	ln, rt := &rl.lines[mine], &rl.lines[root]
	sig, want := lineWord(k), n+1
	defer func() {
		if done {
			tn.fins[mine].v.Store(want) // done reading the slot; the chain publishes its own
			it.claimAhead(n, mine)
		}
	}()
	free := it.ringFree(n, mine)
	if mine == root {
		if !free {
			return false, nil // its block cannot go in its line: the chain decides
		}
		copy(ln.val[:], a.Src[mine][:k.N])
		if it.ahead >= maxStaged {
			// As far ahead as a root may run: the chain, and its line
			// says so at once.
			r.decide(n, decChain)
			ln.word = sig | lineChain
			ln.at.Store(want)
			return false, nil
		}
		ln.word = sig
		switch d, took := r.decide(n, decRing); {
		case d == decChain:
			return false, nil
		case !took: // another image took the ring as this call's root
			return true, plan.ArgsDiffer("image %d and another took themselves for the %v's root",
				tn.Team.Image(tn.Mem[mine]), k.Kind)
		}
		ln.at.Store(want)
		if dst, src := a.Dst[mine][:k.N], a.Src[mine][:k.N]; !alg.Identical(dst, src) {
			alg.CopyData(dst, src)
		}
		it.ahead++ // it returns before the others came, as a staged root
		return true, nil
	}
	if free {
		ln.word = sig // for a ReduceAll by the ring at this call to see
		ln.at.Store(want)
	}
	// The root's line, once there, says the decision (and, of another
	// call, that the calls differ: the ring, where they are found so).
	fromRoot := func() (d uint64, ok bool) {
		if rt.at.Load() != want {
			return 0, false
		}
		if rt.word&lineChain != 0 {
			return decChain, true
		}
		return decRing, true
	}
	// A member whose line is not in the slot takes the chain (decides so,
	// unless the root took the ring), where members of a ReduceAll by the
	// ring at this call, waiting for its line, would find it.
	var d uint64
	var ok bool
	if free {
		d, ok = fromRoot()
	}
	switch {
	case ok:
	case a.NB || !free:
		d, _ = r.decide(n, decChain)
	default:
		polls := 0
		err = tn.eng.WaitArrivals(context.Background(), func() bool {
			// The record's decision seldom, and not at once: the root's
			// line says its own, so only another member's goes there
			// (chain); and the root writes the record's line at every
			// call, so a read of it here on each call would cost the
			// root that line back.
			polls++
			d, ok = fromRoot()
			return ok || polls%256 == 0 && r.dec.Load()>>2 >= want
		}, it.ringStalled)
		if err != nil {
			return true, err
		}
		if !ok {
			d = decisionOf(r.dec.Load(), n)
		}
	}
	if d == decChain {
		return false, nil
	}
	// The root's block is in its line (written before it decided), unless
	// its line is another call's: a ReduceAll by the ring, or a broadcast
	// with other arguments.
	it.ahead = 0
	if rt.word&lineSig != sig {
		err = rl.differ(a, root)
	} else {
		copy(a.Dst[mine][:k.N], rt.val[:k.N])
	}
	return true, err
}
