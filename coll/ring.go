package coll

import (
	"context"
	"sync/atomic"

	gsync "github.com/gocoll/gocoll/sync"
)

// The ring: a small ReduceAll that every member of a local team calls in
// the blocking form (selfFolds) needs no record and no member to run it.
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
// their least value, imageTeam.safe) and, if one is not, takes the chain
// rather than wait: an image may run ahead of the others with
// non-blocking calls by any number of calls, as on the chain.
const ringCalls = 32

// finLine is a member's fin, on a cache line of its own.
type finLine struct {
	v atomic.Uint64
	_ [56]byte
}

// newRing gives a local team of several members on this node its ring.
func (tn *teamNode) newRing() {
	if len(tn.mem) > 1 {
		tn.ring = make([]memberLine, ringCalls*len(tn.mem))
		tn.fins = make([]finLine, len(tn.mem))
	}
}

// selfFolds reports whether member a.mine's call may fold its own result
// from the elements the members bring in their lines (inline), leaving
// before the others are done: the blocking form, outside an aggregate,
// without OUT_ALLSYNC.
func selfFolds(a *callArgs) bool {
	f := a.key.f
	return !a.nb && f&gsync.Aggregate == 0 && f.Out() != gsync.OutAllSync && inlineKey(&a.key, len(a.tn.mem))
}

// ringFree reports whether the slot of call n is free for member mine to
// write: every other member's fin is past n-ringCalls.
func (it *imageTeam) ringFree(n uint64, mine int) bool {
	if n < it.safe+ringCalls {
		return true
	}
	least := ^uint64(0)
	for m := range it.tn.fins {
		if m != mine {
			least = min(least, it.tn.fins[m].v.Load())
		}
	}
	it.safe = least
	return n < least+ringCalls
}

// byRing runs a's call, the member's call number n, by the ring if it
// can; done is false when the call takes the chain (its line of the slot
// then says nothing to anyone: the others take the chain too).
func (it *imageTeam) byRing(a *callArgs, n uint64) (done bool, err error) {
	tn, mine := it.tn, a.mine
	if !it.ringFree(n, mine) {
		return false, nil
	}
	rl := it.slot(n)
	m := len(rl.lines)
	ln := &rl.lines[mine]
	ln.dst, ln.src = a.dst[mine], a.src[mine]
	copy(ln.val[:], ln.src[:a.key.es])
	sig := lineWord(&a.key)
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
	err = tn.n.eng.WaitArrivals(context.Background(), func() bool {
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
		if _, err = rl.gather(a, sig); err == nil {
			err = rl.fold(a, true)
		}
	}
	it.ahead = 0
	it.ringed++
	tn.fins[mine].v.Store(n + 1) // done reading the slot
	return true, err
}

// slot is the lines of call n in the ring.
func (it *imageTeam) slot(n uint64) recLines {
	m := len(it.tn.mem)
	s := int(n%ringCalls) * m
	return recLines{tn: it.tn, num: n, lines: it.tn.ring[s : s+m]}
}

// ringWaiting says which members have not arrived at the image's call in
// the ring (its last), for a stalled wait's error: made once per image
// and team (imageTeam.ringStalled), not per call.
func (it *imageTeam) ringWaiting() string {
	rl := it.slot(it.calls - 1)
	return rl.waitingFor()
}
