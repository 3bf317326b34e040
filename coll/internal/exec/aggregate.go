package exec

import (
	"fmt"
	"slices"
	stdsync "sync"
	"sync/atomic"

	"github.com/gocoll/gocoll/coll/internal/alg"
	"github.com/gocoll/gocoll/coll/internal/plan"
	gsync "github.com/gocoll/gocoll/sync"
)

// Aggregation (the spec's GASNET_COLL_AGGREGATE). Consecutive non-blocking
// initiations with Aggregate on one team are the members of an aggregate,
// which the first initiation without the flag (the Last member, blocking or
// not) ends; the Last's handle syncs once every member completed to the
// extent of its output sync mode, and the members' handles are the invalid
// handle. Members' buffers are taken at their initiation (the spec's bulk
// lifetime), but nothing moves before the Last: then the node runs the
// aggregate as one operation.
//
// Coalescing: members whose schedules have the same skeleton (the same
// transfers between the same nodes in the same rounds: the same kind and
// root, for the data-movement collectives the same algorithm for their
// size, sizes aside; for the reductions the same array, function and
// layouts) are fused into one schedule run in lockstep: in each round,
// their messages to one peer with one sub-tag travel as one message
// (packed into an internal buffer, unpacked by copies at the start of the
// next round) up to fuseMax bytes, their copies and computations run
// together. Beyond fuseMax each member's message travels on its own,
// with its member's tag (the member's sequence number), as it would
// without the flag: one message per tag, so a large one goes with its
// header message straight into place (wire.go). Both ends of every
// message fuse the same members, since every node sees the same
// aggregate, so each knows the size and layout of the fused message.
// Members of different skeletons form groups that run side by side, all
// their transfers in flight together. IN_ALLSYNC and OUT_ALLSYNC cost one
// barrier each per aggregate: the entry barrier runs before any group
// starts when a member asks for IN_ALLSYNC, the exit barrier once every
// group finished when a member asks for OUT_ALLSYNC; the aggregate syncs
// in its strongest output mode.
//
// On a team that lives on one node there is nothing to coalesce: members
// run at once, as without the flag (and their errors are returned by their
// own calls).
//
// Rules (errors, not hangs): Aggregate on a blocking call is
// sync.ErrAggregateBlocking; an aggregate has at most maxAggregate members
// (ErrAggregate); Barrier, NodeBarrier, Split, TeamFromImages and Destroy on
// a team where the image left an aggregate open, and Close with one open,
// are ErrAggregateOpen. An aggregate open on one team does not hold
// collectives on other teams back: each team has its own.

// maxAggregate bounds the members of an aggregate, so that every member's
// sequence number, whose tag its unfused messages use, stays unique among
// the team's live operations.
const maxAggregate = 1024

// aggWays is how many aggregate operations a team keeps for reuse: an
// iterative code makes the same aggregate again and again, and building
// one (every member's schedule, then the fusion) costs far more than
// running it, at every size: it allocates per member, where a run of a
// cached one allocates nothing.
const aggWays = 2

// Aggregate is a team's open Aggregate on a node, and its cached
// Aggregate operations.
type Aggregate struct {
	mu    stdsync.Mutex
	n     int         // members so far
	open  atomic.Bool // n > 0, read without the lock by every initiation
	bases []int       // their tag bases
	// the members so far are those of cand, a cached operation, as long as
	// they match it (checked as each arrives, so that a repeated aggregate
	// stores nothing); else they are in calls (storage reused)
	cand   *AggOp
	calls  []aggCall
	cache  [aggWays]*AggOp
	victim int
	listed bool // in its node's Cache.aggs (evict)
}

// aggCall is a member: its arguments (key, with its buffers' identities),
// its buffers and its tag base.
type aggCall struct {
	key      plan.Key
	tagBase  int
	dst, src []byte       // the buffers of a call for one member
	dl, sl   [][]byte     // of a call for several: copies of its lists
	v        []plan.VArgs // a v-call's extents, its own copy
}

// call is the member's call, with lists of its own.
func (ac *aggCall) call() plan.Call {
	if ac.dl != nil {
		return plan.Call{Key: ac.key, Dst: ac.dl, Src: ac.sl, V: ac.v}
	}
	return plan.Call{Key: ac.key, Dst: [][]byte{ac.dst}, Src: [][]byte{ac.src}, V: ac.v}
}

// is reports whether ac is call c on the same buffers (c.key carries the
// identities of its first buffers).
func (ac *aggCall) is(c *plan.Call) bool {
	if !ac.key.Equal(&c.Key) || (c.V != nil && !plan.SameV(ac.v, c.V)) {
		return false
	}
	if len(c.Dst) == 1 {
		return ac.dl == nil
	}
	return sameLists(ac.dl, c.Dst) && sameLists(ac.sl, c.Src)
}

// add records a member (c.key carries its buffers' identities).
func (ag *Aggregate) add(c *plan.Call, tagBase int) error {
	ag.mu.Lock()
	defer ag.mu.Unlock()
	if ag.n >= maxAggregate {
		ag.reset()
		return fmt.Errorf("%w: more than %d members", ErrAggregate, maxAggregate)
	}
	i := ag.n
	ag.n++
	ag.open.Store(true)
	ag.bases = append(ag.bases, tagBase)
	if i == 0 {
		// An idle one first: the last run of an aggregate may still be
		// finishing (its output mode let its handle sync before its
		// last sends completed), and then the other way may hold a copy.
		for _, a := range ag.cache {
			if a != nil && a.members[0].is(c) && (ag.cand == nil || a.idle.Load()) {
				ag.cand = a
			}
		}
	}
	if a := ag.cand; a != nil {
		if i < len(a.members) && a.members[i].is(c) {
			return nil
		}
		ag.calls, ag.cand = append(ag.calls[:0], a.members[:i]...), nil
	}
	ac := aggCall{key: c.Key, v: plan.CloneV(c.V)}
	if len(c.Dst) == 1 {
		ac.dst, ac.src = c.Dst[0], c.Src[0]
	} else {
		ac.dl, ac.sl = slices.Clone(c.Dst), slices.Clone(c.Src)
	}
	ag.calls = append(ag.calls, ac)
	return nil
}

// Open reports whether the aggregate has members: a call that joins it or
// ends it is under way.
func (ag *Aggregate) Open() bool { return ag.open.Load() }

// reset empties the aggregate.
func (ag *Aggregate) reset() {
	ag.n, ag.bases, ag.cand, ag.calls = 0, ag.bases[:0], nil, ag.calls[:0]
	ag.open.Store(false)
}

// JoinAggregate adds c (its key carrying its buffers' identities) as a
// member, or, for the Last, returns the aggregate operation, cached or
// built (nil and no error for a member).
func (tn *TeamNode) JoinAggregate(c *plan.Call, tagBase int) (*AggOp, error) {
	ag := &tn.Agg
	if err := ag.add(c, tagBase); err != nil || c.Key.Flags&gsync.Aggregate != 0 {
		return nil, err
	}
	ag.mu.Lock()
	defer ag.mu.Unlock()
	defer ag.reset()
	if a := ag.cand; a != nil {
		if len(a.members) == ag.n && a.idle.CompareAndSwap(true, false) {
			tn.N.Plans.touch(&a.used)
			a.rerun(ag.bases)
			return a, nil
		}
		ag.calls = append(ag.calls[:0], a.members[:ag.n]...) // the same calls, built anew
	}
	calls := slices.Clone(ag.calls)
	for i := range calls {
		calls[i].tagBase = ag.bases[i]
	}
	a := tn.buildAggregate(calls)
	ag.keep(&tn.N.Plans, a)
	return a, nil
}

// keep caches a, a new operation about to run, in place of an idle entry,
// within the node's budget for cached schedules (cache.go), which counts
// what a holds on to with theirs: its members' buffers, which it keeps
// reachable, and its internal buffers.
func (ag *Aggregate) keep(pc *Cache, a *AggOp) {
	size := a.heldBytes()
	if size > planBudget {
		return
	}
	pc.evict(int64(size))
	for i := range aggWays {
		w := (ag.victim + i) % aggWays
		old := ag.cache[w]
		if old != nil && !old.idle.CompareAndSwap(true, false) {
			continue // running
		}
		d := int64(size)
		if old != nil {
			d -= int64(old.held)
		}
		if pc.held.Add(d) > planBudget {
			pc.held.Add(-d)
			if old != nil {
				old.idle.Store(true)
			}
			continue
		}
		if old != nil {
			old.release()
		}
		a.cached, a.held = true, size
		for _, o := range a.groups {
			o.Cached = true // its buffers stay with it
		}
		for _, o := range a.subs {
			o.keepFresh() // it runs again from here (rerun)
		}
		a.used.Store(pc.ids.Add(1))
		ag.cache[w], ag.victim = a, w+1
		if !ag.listed {
			pc.list(ag, true)
			ag.listed = true
		}
		return
	}
}

// evictIdle drops a, if it is still ag's entry and idle, and reports
// whether it did. It only tries ag's lock: the caller may hold another
// team's (evict).
func (ag *Aggregate) evictIdle(pc *Cache, a *AggOp) bool {
	if !ag.mu.TryLock() {
		return false
	}
	defer ag.mu.Unlock()
	for w, e := range ag.cache {
		if e == a && a.idle.CompareAndSwap(true, false) {
			ag.cache[w] = nil
			pc.held.Add(-int64(a.held))
			a.release()
			return true
		}
	}
	return false
}

// oldestIdle is ag's idle entry that ran least recently, or nil (nil too
// when its lock is taken: the caller may hold another team's).
func (ag *Aggregate) oldestIdle() *AggOp {
	if !ag.mu.TryLock() {
		return nil
	}
	defer ag.mu.Unlock()
	var old *AggOp
	for _, a := range ag.cache {
		if a != nil && a.idle.Load() && (old == nil || a.used.Load() < old.used.Load()) {
			old = a
		}
	}
	return old
}

// Drop empties the cache of a team that is destroyed: its entries' bytes
// leave the node's budget, and the internal buffers of those that nothing
// runs go back to their pools.
func (ag *Aggregate) Drop(pc *Cache) {
	ag.mu.Lock()
	defer ag.mu.Unlock()
	if ag.listed {
		pc.list(ag, false)
		ag.listed = false
	}
	for w, a := range ag.cache {
		if a == nil {
			continue
		}
		pc.held.Add(-int64(a.held))
		if a.idle.CompareAndSwap(true, false) {
			a.release()
		}
		ag.cache[w] = nil
	}
}

// heldBytes is what a keeps from the GC and the pools while cached: its
// members' buffers, its internal buffers and its message headers.
func (a *AggOp) heldBytes() int {
	n := 0
	for _, o := range a.groups {
		n += o.sc.Bytes() + o.wireBytes()
	}
	for i := range a.members {
		m := &a.members[i]
		n += len(m.dst) + len(m.src)
		for _, l := range [2][][]byte{m.dl, m.sl} {
			for _, b := range l {
				n += len(b)
			}
		}
	}
	return n
}

// fusionKey is what members must share to be fused: every argument that
// shapes a schedule's transfers.
func fusionKey(k plan.Key) plan.Key {
	k.Flags, k.Dst, k.Src, k.BH, k.VH = 0, plan.BufID{}, plan.BufID{}, 0, 0
	if k.Kind < plan.Reduce {
		k.N = 0 // sizes scale messages, not rounds
	}
	return k
}

// groupKey names the group a member runs in: the fusionKey of its
// arguments, and the algorithm chosen for its size (the same skeleton at
// every node).
type groupKey struct {
	k    plan.Key
	algo int
}

// groupOf is the groupKey of key k on P nodes.
func (n *Node) groupOf(k *plan.Key, P int) groupKey {
	gk := groupKey{k: fusionKey(*k)}
	if k.Kind < plan.Reduce {
		gk.algo = n.Builder.SizeChoice(k, P)
	}
	return gk
}

// buildAggregate is the aggregate operation of calls (in initiation order).
func (tn *TeamNode) buildAggregate(calls []aggCall) *AggOp {
	var in, out gsync.Flags = gsync.InNoSync, gsync.OutNoSync
	type group struct {
		rounds  [][]alg.Round
		members []int
		g       alg.Geom
	}
	var groups []*group
	byKey := map[groupKey]*group{}
	P := tn.Team.Nodes()
	for i := range calls {
		ac := &calls[i]
		c := ac.call()
		f := ac.key.Flags
		in, out = max(in, f.In()), max(out, f.Out()) // the flags grow stronger bit by bit
		gk := tn.N.groupOf(&ac.key, P)
		gr := byKey[gk]
		if gr == nil {
			gr = &group{g: tn.Geom(0)}
			byKey[gk] = gr
			groups = append(groups, gr)
		}
		g := gr.g
		g.Block = ac.key.N
		gr.rounds = append(gr.rounds, tn.N.Builder.Build(g, &c))
		gr.members = append(gr.members, i)
	}
	a := &AggOp{tn: tn, members: calls, bases: make([]int, len(calls))}
	for i := range calls {
		a.bases[i] = calls[i].tagBase
	}
	g := tn.Geom(0)
	base := calls[0].tagBase
	if in == gsync.InAllSync {
		a.entry = NewRawOp(tn, plan.Key{Kind: plan.Barrier}, alg.BarrierRounds(g, alg.SubEntry), gsync.OutMySync, nil, base)
		a.subs = append(a.subs, a.entry)
	}
	gout := min(out, gsync.OutMySync) // OUT_ALLSYNC is the exit barrier's
	for _, gr := range groups {
		first := gr.members[0]
		o := NewRawOp(tn, fusionKey(calls[first].key), fuse(gr.g, gr.rounds, gr.members), gout, gr.g.Scratch, calls[first].tagBase)
		o.mbases = a.bases
		a.groups = append(a.groups, o)
		a.firsts = append(a.firsts, first)
	}
	a.subs = append(a.subs, a.groups...)
	if out == gsync.OutAllSync {
		if rs := alg.BarrierRounds(g, alg.SubExit); len(rs) > 0 {
			a.exit = NewRawOp(tn, plan.Key{Kind: plan.Barrier}, rs, gsync.OutMySync, nil, base)
			a.subs = append(a.subs, a.exit)
		}
	}
	items := uint32(0)
	for _, o := range a.subs {
		a.offs = append(a.offs, items)
		items += uint32(len(o.items))
	}
	return a
}

// fuse merges the rounds of members with one skeleton (see above) into
// one schedule: round by round, the members' copies, then the packing of
// fused sends, the sends, the late copies; fused receives land in an
// internal buffer unpacked at the start of the next round. idx are the
// members' indices in the aggregate: a transfer that does not fuse
// travels on its member's tag.
func fuse(g alg.Geom, members [][]alg.Round, idx []int) []alg.Round {
	if len(members) == 1 {
		return members[0]
	}
	R := 0
	for _, rs := range members {
		R = max(R, len(rs))
	}
	out := make([]alg.Round, R+1)
	type xkey struct{ peer, sub int }
	for r := range R {
		o := &out[r]
		var sends, recvs []xkey
		bySend, byRecv := map[xkey][]memberXfer{}, map[xkey][]memberXfer{}
		for j, rs := range members {
			if r >= len(rs) {
				continue
			}
			o.AfterSends = o.AfterSends || rs[r].AfterSends
			for _, c := range rs[r].Copies {
				if !c.Late {
					o.Copies = append(o.Copies, c)
				}
			}
			for _, x := range rs[r].Sends {
				k := xkey{x.Peer, x.Sub}
				if bySend[k] == nil {
					sends = append(sends, k)
				}
				bySend[k] = append(bySend[k], memberXfer{idx[j], x})
			}
			for _, x := range rs[r].Recvs {
				k := xkey{x.Peer, x.Sub}
				if byRecv[k] == nil {
					recvs = append(recvs, k)
				}
				byRecv[k] = append(byRecv[k], memberXfer{idx[j], x})
			}
		}
		for _, k := range sends {
			xs, copies := fused(g, bySend[k], false)
			o.Copies = append(o.Copies, copies...) // packed before the round's sends start
			o.Sends = append(o.Sends, xs...)
		}
		for _, rs := range members {
			if r < len(rs) {
				for _, c := range rs[r].Copies {
					if c.Late {
						o.Copies = append(o.Copies, c)
					}
				}
			}
		}
		for _, k := range recvs {
			xs, copies := fused(g, byRecv[k], true)
			out[r+1].Copies = append(out[r+1].Copies, copies...) // unpacked before anything of the next round
			o.Recvs = append(o.Recvs, xs...)
		}
	}
	if last := &out[R]; len(last.Copies) == 0 {
		out = out[:R]
	}
	return out
}

// memberXfer is a member's transfer, with the member's index in the
// aggregate.
type memberXfer struct {
	m int
	x alg.Xfer
}

// fused is the members' transfers xs (one peer, one sub-tag) as one
// message through an internal buffer, with the copies that fill it from
// theirs (a send) or empty it into theirs (a receive); or, when they do
// not fuse, each as its member's own message: on its member's tag
// (wireBase), so that it is the only message of its tag, as it would be
// without the flag.
func fused(g alg.Geom, xs []memberXfer, recv bool) ([]alg.Xfer, []alg.CopyOp) {
	if !fusible(xs) {
		own := make([]alg.Xfer, len(xs))
		for i, mx := range xs {
			own[i] = mx.x
			own[i].Sub |= (mx.m + 1) << SubBits
		}
		return own, nil
	}
	buf := g.Buf(xferBytes(xs))
	copies := make([]alg.CopyOp, 0, len(xs))
	off := 0
	for _, mx := range xs {
		x := mx.x
		part := buf[off : off+len(x.Buf)]
		if recv {
			copies = append(copies, alg.CopyOp{Dst: x.Buf, Src: part, Client: x.Client, ToClient: x.Client})
		} else {
			copies = append(copies, alg.CopyOp{Dst: part, Src: x.Buf, Client: x.Client})
		}
		off += len(x.Buf)
	}
	return []alg.Xfer{{Peer: xs[0].x.Peer, Sub: xs[0].x.Sub, Buf: buf}}, copies
}

// fuseMax bounds a fused message: beyond it, messages are bandwidth bound
// and packing them would cost a copy each way for nothing, so the members'
// messages go one by one, each on its member's tag.
const fuseMax = 16 << 10

// fusible reports whether the members' transfers xs (one peer, one
// sub-tag) travel as one message; both ends decide alike, since the sizes
// of a message agree at its ends.
func fusible(xs []memberXfer) bool { return len(xs) > 1 && xferBytes(xs) <= fuseMax }

func xferBytes(xs []memberXfer) int {
	n := 0
	for _, x := range xs {
		n += len(x.x.Buf)
	}
	return n
}

// NewRawOp is a schedule that is no call's own (an aggregate's part) of
// the calls key describes (kind and function), synced in output mode out,
// with the tag base it will run with.
func NewRawOp(tn *TeamNode, key plan.Key, rounds []alg.Round, out gsync.Flags, sc *alg.Scratch, tagBase int) *Sched {
	o := &Sched{n: tn.N, tn: tn, cd: tn.N.Cd, key: key, out: out, rounds: rounds, sc: sc, TagBase: tagBase}
	o.items = o.itemBuf[:0]
	o.state = o.stateBuf[:0]
	o.Reset()
	o.setupWire()
	return o
}

// AggOp is an aggregate as the engine runs it: an entry barrier, the fused
// groups side by side, an exit barrier; each a schedule whose transfers
// are numbered on from the last one's (offs), so that a transfer's index
// names its schedule.
type AggOp struct {
	tn          *TeamNode
	entry, exit *Sched // nil when no member asks for them
	groups      []*Sched
	subs        []*Sched // entry, groups, exit (those there are)
	offs        []uint32 // by sub: the index of its first transfer
	bases       []int    // the members' tag bases (Sched.wireBase)
	finished    bool     // counted off the team's unfinished operations
	// for reuse (aggregate.keep): the members it was built for, each
	// group's first member (whose tag base the group runs with), and
	// whether it is cached, and idle
	members []aggCall
	firsts  []int
	cached  bool
	held    int // what the node's budget counts for it (keep)
	idle    atomic.Bool
	used    atomic.Uint64 // when it last ran, by the cache's clock (evict)
}

// rerun prepares a cached aggregate to run again, for members that are
// the same calls with the tag bases bases.
func (a *AggOp) rerun(bases []int) {
	copy(a.bases, bases)
	for _, o := range a.subs {
		o.Reset()
		o.TagBase = bases[0] // the barriers'
	}
	for i, o := range a.groups {
		o.TagBase = bases[a.firsts[i]]
	}
}

// release gives back the buffers of an aggregate that nothing runs.
func (a *AggOp) release() {
	for _, o := range a.groups {
		o.sc.Release()
	}
}

// Bind implements engine.Op.
func (a *AggOp) Bind(slot uint32) {
	for i, o := range a.subs {
		o.BindAs(slot, o.TagBase)
		o.idxBase = a.offs[i]
	}
	a.finished = false
	a.tn.Count(1)
}

// Complete implements engine.Op.
func (a *AggOp) Complete(idx uint32) {
	if idx&ignoreIdx != 0 { // an earlier operation's (segment.go)
		return
	}
	marks := idx & (hdrIdx | auxIdx)
	i := idx &^ marks
	lo, hi := 0, len(a.offs) // the last sub whose first index is at most i
	for hi-lo > 1 {
		if m := (lo + hi) / 2; a.offs[m] <= i {
			lo = m
		} else {
			hi = m
		}
	}
	a.subs[lo].Complete(marks | (i - a.offs[lo]))
	a.noteFinished()
}

// Step implements engine.Op: the groups start once the entry barrier is
// over, the exit barrier once every group finished.
func (a *AggOp) Step() error {
	defer a.noteFinished()
	if a.entry != nil {
		if err := a.entry.Step(); err != nil || !a.entry.Finished() {
			return err
		}
	}
	done := true
	for _, o := range a.groups {
		if err := o.Step(); err != nil {
			return err
		}
		done = done && o.Finished()
	}
	if done && a.exit != nil {
		return a.exit.Step()
	}
	return nil
}

// Syncable implements engine.Op: every group to the extent of the
// aggregate's output mode, and the exit barrier when there is one.
func (a *AggOp) Syncable() bool {
	if a.entry != nil && !a.entry.Finished() {
		return false
	}
	for _, o := range a.groups {
		if !o.Syncable() {
			return false
		}
	}
	return a.exit == nil || a.exit.Finished()
}

// Finished implements engine.Op.
func (a *AggOp) Finished() bool {
	for _, o := range a.subs {
		if !o.Finished() {
			return false
		}
	}
	return true
}

func (a *AggOp) noteFinished() {
	if !a.finished && a.Finished() {
		a.finished = true
		a.tn.Count(-1)
	}
}

// Retire implements engine.Op: a cached aggregate that finished may run
// again; one that failed is never reused (a transfer may still use its
// buffers), nor are its buffers.
func (a *AggOp) Retire() {
	done := a.Finished()
	for _, o := range a.subs {
		o.Retire()
	}
	if !a.finished {
		a.finished = true
		a.tn.Count(-1)
	}
	if a.cached && done {
		a.idle.Store(true)
	}
}

// AgentSafe implements engine.AgentSafe.
func (a *AggOp) AgentSafe() bool {
	for _, o := range a.subs {
		if !o.AgentSafe() {
			return false
		}
	}
	return true
}

// sameLists reports whether two lists hold the same buffers (same memory,
// same lengths).
func sameLists(x, y [][]byte) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if plan.IDOf(x[i]) != plan.IDOf(y[i]) {
			return false
		}
	}
	return true
}
