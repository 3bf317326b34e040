package coll

import (
	"context"

	"github.com/gocoll/gocoll/coll/internal/alg"
	"github.com/gocoll/gocoll/coll/internal/plan"
	"github.com/gocoll/gocoll/internal/engine"
	gsync "github.com/gocoll/gocoll/sync"
)

// A small blocking ReduceAll without a schedule. The commonest call of a
// scientific code (an MPI_Allreduce of one value per image, a Fortran
// CO_SUM of a scalar) is a ReduceAll of one small element per image in
// rank order on a team with one image per node. Its schedule is the
// recursive doubling of recursiveDoublingSched; run through the engine,
// the slot, the handle, the rounds' bookkeeping and the wait cost more
// than the messages themselves. Where the node's engine lets it run alone
// (engine.Engine.RunAlone: one image on the node, no other operation live),
// doublingOp does the same exchanges one stage after another with no
// schedule, straight on the conduit.
//
// It is that schedule on the wire, so that a node that runs it and a node
// that runs the schedule (an operation of its own was live, or it called
// the non-blocking form) make one operation together: the same tag base
// (the team's next, taken at Bind as a schedule's is), the same sub-tags,
// one inline message per transfer with the schedule's header (wire.go),
// checked as the schedule checks it, and the same folds in the same
// order, lower node ranks on the left, so that every image gets the same
// bits. What decides it (fitsDoubling) is the same on every node; only
// the form and the engine's state may differ.
//
// The stages of node rank me (P nodes, P2 the largest power of two not
// above P, rem = P - P2):
//
//   - me < 2*rem, even: send its element to me+1 (sub-tag 0), receive the
//     result from it (sub-tag 1);
//   - me < 2*rem, odd: receive me-1's element (sub-tag 0) and fold it on
//     the left; then the exchanges; then send the result to me-1;
//   - every other rank, and the odd ones above: in exchange k, swap the
//     partial with the rank whose doubling rank differs in bit k
//     (sub-tag 2+k) and fold the two, the lower rank's on the left; the
//     last fold of a rank >= 2*rem writes the caller's destination.
//
// The partials travel in wire buffers of the node's (header and element):
// the two sends alternate, so that a fold never writes an operand of its
// own; the callback gets operands and results in these buffers (or the
// caller's destination), allocations with no Go pointers in them, as the
// schedule's are (a C operator may be handed them). A stage starts once
// the one before is complete, its send included.

// Stages before the exchanges (odd ranks below 2*rem) and the even ranks'
// single stage.
const (
	stagePre  = -1
	stageEven = -2
)

// Token indices: the run's generation above, which transfer below.
const (
	tokSend = 1
	tokRecv = 2
	genMask = 1<<30 - 1
)

// doublingFit is a team's cached decision for the last key asked about,
// and what a run of it needs beyond the call's buffers.
type doublingFit struct {
	key   plan.Key
	ok    bool
	sig   uint32 // the arguments' hash, as the schedule's headers carry it
	local int    // the element's index in the member's source
	rd    alg.Reducer
	// the doubling on the team's nodes: node rank me, rem as above, the
	// exchanges (lg P2), me's doubling rank and first stage
	me, rem, steps, nr, first int
}

// fitsDoubling reports whether a's call may run as a doublingOp: a
// blocking ReduceAll by the node's only image, on a team of several nodes,
// that the schedule would do by recursive doubling of a single element per
// node, inline and without barriers, aggregation, segments or the checked
// mode's agreement.
func (n *node) fitsDoubling(a *callArgs) bool {
	tn := a.tn
	// One image on the node (so no other goroutine uses the node's
	// doublingOp or the engine: RunAlone's condition too).
	if n.count != 1 || a.nb || tn.local || a.Key.Kind != plan.ReduceAll || tn.aggregating(&a.Call) {
		return false
	}
	fit := &tn.doubling
	if !fit.key.Equal(&a.Key) {
		*fit = doublingFit{key: a.Key}
		fit.ok = n.decideDoubling(tn, fit)
	}
	return fit.ok
}

// decideDoubling is fitsDoubling's decision on fit's key (see there);
// when it is yes, it fills in the rest of fit.
func (n *node) decideDoubling(tn *teamNode, fit *doublingFit) bool {
	k := &fit.key
	f := k.Flags
	if k.ElemSize > inlineMax || f.In() == gsync.InAllSync || f.Out() == gsync.OutAllSync || n.segMode(k) != 0 || n.checking(tn) {
		return false
	}
	t := tn.team
	g := alg.Geom{P: t.Nodes(), Me: t.NodeRank(n.me), Team: t, Mem: tn.mem}
	rd := n.reducerOf(k)
	d := alg.Dist{Layout: k.SrcLayout, P: t.Size(), Count: k.Count}
	if g.P < 2 || !rd.Commutative() && !t.NodeMajor() || rd.Splits(g, d, n.opts.SplitsReduceAll(g.P, k.ElemSize)) {
		return false
	}
	sh := rd.ShapeFor(g, d)
	runs := d.Runs(tn.mem[0])
	if !sh.Dense || sh.Rows != 1 || len(runs) != 1 || runs[0].N != 1 {
		return false
	}
	fit.local, fit.rd, fit.sig = runs[0].Local, rd, plan.SigOf(k).Hash()
	P2 := 1
	for P2*2 <= g.P {
		P2 *= 2
		fit.steps++
	}
	fit.me, fit.rem = g.Me, g.P-P2
	switch {
	case fit.me >= 2*fit.rem:
		fit.nr, fit.first = fit.me-fit.rem, 0
	case fit.me%2 == 0:
		fit.nr, fit.first = -1, stageEven
	default:
		fit.nr, fit.first = fit.me/2, stagePre
	}
	return true
}

// doublingOp runs a ReduceAll by recursive doubling; it implements
// engine.Op for engine.Engine.RunAlone. A node keeps one, run again call
// after call.
type doublingOp struct {
	n        *node
	tn       *teamNode
	fit      *doublingFit // the call's key, function and doubling
	dst, own []byte       // the caller's destination and element
	// the run
	slot     uint32
	tagBase  int
	gen      uint32
	stage    int  // stageEven, stagePre, an exchange, or steps (the send back)
	started  bool // the stage's transfers started
	sendOut  bool // the stage's send is in flight
	recvOut  bool // the stage's receive is in flight
	peer     int  // the stage's node
	cur      int  // which send buffer holds the partial
	finished bool
	err      error
	// wire buffers of hdrSize+es bytes: two sends, one receive
	w [3][]byte
}

// runDoubling runs a's call as a doublingOp if the engine lets it run
// alone (see engine.Engine.RunAlone); ran false means it did not start.
func (n *node) runDoubling(a *callArgs) (ran bool, err error) {
	fit := &a.tn.doubling
	o := &n.doubling
	es := a.Key.ElemSize
	// Field by field: the wire buffers and the generation stay.
	o.n, o.tn, o.fit, o.stage = n, a.tn, fit, fit.first
	o.dst, o.own = a.Dst[0][:es], a.Src[0][fit.local*es:(fit.local+1)*es]
	o.started, o.sendOut, o.recvOut, o.cur, o.finished, o.err = false, false, false, 0, false, nil
	if m := hdrSize + es; len(o.w[0]) != m {
		buf := make([]byte, 3*m)
		o.w = [3][]byte{buf[:m:m], buf[m : 2*m : 2*m], buf[2*m:]}
	}
	ran, err = n.eng.RunAlone(context.Background(), o)
	if ran {
		n.doublings++
	}
	o.dst, o.own = nil, nil // the caller's memory is not the node's to keep
	return ran, err
}

// orig is the node rank of doubling rank r (recursiveDoublingSched).
func (o *doublingOp) orig(r int) int {
	if r < o.fit.rem {
		return 2*r + 1
	}
	return r + o.fit.rem
}

// Bind implements engine.Op: the tag base is the team's next, as a
// schedule's is.
func (o *doublingOp) Bind(slot uint32) {
	o.slot, o.tagBase = slot, o.tn.nextTagBase()
	o.gen = (o.gen + 1) & genMask
}

// Complete implements engine.Op; a completion of an earlier run (one that
// failed with a transfer in flight) is not this run's.
func (o *doublingOp) Complete(idx uint32) {
	if idx>>2 != o.gen {
		return
	}
	switch idx & 3 {
	case tokSend:
		o.sendOut = false
	case tokRecv:
		o.recvOut = false
	}
}

// Step implements engine.Op: a stage's transfers start once the stage
// before is complete, and its fold runs once they are.
func (o *doublingOp) Step() error {
	for o.err == nil && !o.finished && !o.sendOut && !o.recvOut {
		if !o.started {
			o.started = true
			o.err = o.start()
			continue
		}
		o.started = false
		o.err = o.end()
	}
	return o.err
}

// start starts the transfers of the current stage.
func (o *doublingOp) start() error {
	switch o.stage {
	case stageEven:
		copy(o.payload(0), o.own)
		o.peer = o.tn.team.NodeAt(o.fit.me + 1)
		if err := o.send(0, 0); err != nil {
			return err
		}
		return o.recv(1)
	case stagePre:
		copy(o.payload(0), o.own)
		o.peer = o.tn.team.NodeAt(o.fit.me - 1)
		return o.recv(0)
	case o.fit.steps: // the result back to the even rank
		copy(o.dst, o.payload(o.cur))
		o.peer = o.tn.team.NodeAt(o.fit.me - 1)
		return o.send(o.cur, 1)
	}
	if o.stage == 0 && o.fit.me >= 2*o.fit.rem {
		copy(o.payload(0), o.own)
	}
	o.peer = o.tn.team.NodeAt(o.orig(o.fit.nr ^ 1<<o.stage))
	if err := o.send(o.cur, 2+o.stage); err != nil {
		return err
	}
	return o.recv(2 + o.stage)
}

// end checks the stage's message and folds it, and moves to the next stage.
func (o *doublingOp) end() error {
	if o.stage == o.fit.steps {
		o.finished = true
		return nil
	}
	in := o.w[2][hdrSize:]
	if err := o.n.hdrErr(o.w[2], len(in), o.peer, &o.fit.key, o.tagBase, o.fit.sig); err != nil {
		return err
	}
	switch o.stage {
	case stageEven:
		copy(o.dst, in)
		o.finished = true
		return nil
	case stagePre: // me-1's element on the left
		o.fit.rd.Call(o.payload(1), in, o.payload(0), o.fit.rd.ElemSize)
		o.cur = 1
		o.stage = 0
		return nil
	}
	out, next := o.dst, o.cur
	if o.stage < o.fit.steps-1 || o.fit.me < 2*o.fit.rem {
		next = 1 - o.cur
		out = o.payload(next)
	}
	if o.fit.nr^1<<o.stage < o.fit.nr {
		o.fit.rd.Call(out, in, o.payload(o.cur), o.fit.rd.ElemSize)
	} else {
		o.fit.rd.Call(out, o.payload(o.cur), in, o.fit.rd.ElemSize)
	}
	o.cur = next
	o.stage++
	if o.stage == o.fit.steps && o.fit.me >= 2*o.fit.rem {
		o.finished = true // the last fold wrote the destination
	}
	return nil
}

// payload is send buffer i's element.
func (o *doublingOp) payload(i int) []byte { return o.w[i][hdrSize:] }

// send sends buffer i's header and element to the stage's peer.
func (o *doublingOp) send(i, sub int) error {
	putHdr(o.w[i], o.tagBase, o.fit.sig, o.fit.rd.ElemSize)
	done, err := o.n.cd.Isend(o.peer, wireTag(o.tagBase, sub), o.w[i], engine.Token(o.slot, o.gen<<2|tokSend))
	o.sendOut = err == nil && !done
	return err
}

// recv receives the stage's message from its peer.
func (o *doublingOp) recv(sub int) error {
	done, err := o.n.cd.Irecv(o.peer, wireTag(o.tagBase, sub), o.w[2], engine.Token(o.slot, o.gen<<2|tokRecv))
	o.recvOut = err == nil && !done
	return err
}

// Finished implements engine.Op.
func (o *doublingOp) Finished() bool { return o.finished && !o.sendOut && !o.recvOut }

// Syncable implements engine.Op: the run ends only once finished.
func (o *doublingOp) Syncable() bool { return o.Finished() }

// Retire implements engine.Op.
func (o *doublingOp) Retire() {}

// Quiet implements engine.Quieter.
func (o *doublingOp) Quiet() bool { return !o.sendOut && !o.recvOut }

// Abandon implements engine.Abandoner: a transfer of the run is in flight
// in the wire buffers, which the next run must not reuse.
func (o *doublingOp) Abandon() { o.w = [3][]byte{} }

// Stalled implements engine.Staller.
func (o *doublingOp) Stalled() string {
	var nodes []int
	if !o.Quiet() {
		nodes = []int{o.peer}
	}
	return o.tn.stalled(o.fit.key.Kind, o.tagBase, nodes)
}
