package exec

import (
	"encoding/binary"
	"sync/atomic"

	"github.com/gocoll/gocoll/coll/internal/alg"
	"github.com/gocoll/gocoll/coll/internal/plan"
	"github.com/gocoll/gocoll/internal/engine"
	gsync "github.com/gocoll/gocoll/sync"
)

// The executor: it runs every collective's schedule (alg.Round) and is the
// one place where the output sync modes are enforced; input sync modes are
// enforced by the entry barrier rounds that alg.WithSync prepends.

// item is the bookkeeping of one transfer.
type item struct {
	round  int
	send   bool
	client bool
	done   bool
	seg    int32 // on the one-sided path: 1 + its index in seg.xs (segment.go)
}

// roundState counts what a round still waits for.
type roundState struct {
	sendAt   int // index in items of the round's first send
	recvLeft int // receives not complete
	sendLeft int // sends not complete (or not started)
}

// Sched executes a schedule; it implements engine.Op.
type Sched struct {
	n      *Node
	tn     *TeamNode
	cd     Conduit
	key    plan.Key
	bufs   []plan.BufID // every member's buffers, when the node has several (see cache.go)
	v      []plan.VArgs // a v-call's extents, its own copy (see cache.go)
	out    gsync.Flags  // output sync mode
	rounds []alg.Round
	sc     *alg.Scratch // internal buffers: back to their pools once finished, unless cached
	seg    *segState    // the one-sided path (segment.go), or nil

	// state of one run, set by reset
	slot    uint32
	idxBase uint32 // added to transfer indices in tokens (an aggregate's part: aggregate.go)
	TagBase int
	mbases  []int  // an aggregate's part: its members' tag bases (wireBase)
	items   []item // the receives of all rounds, then the sends in round order
	state   []roundState
	posted  bool
	next    int // next round to start
	// counts that decide the output sync modes
	clientLeft     int // client transfers and copies not complete
	clientRecvLeft int // client receives and copies into client memory not complete
	left           int // all transfers not complete

	// message headers (wire.go): the arguments' hash, each transfer's
	// header state by item, and the run's failure (a header that did not
	// match), returned by Step
	sigHash uint32
	wire    []wireX
	err     error
	// a header that did not match on a receive of round lateRound, not
	// started when it came: the run's failure once that round starts
	// (checkHdr)
	late      error
	lateRound int
	// Preset: the next Bind keeps tagBase, taken by the initiation
	// (checked mode agrees on the arguments under it first: core's check.go)
	Preset bool

	// Cached schedules are run again once idle (see cache.go); held is
	// what the cache counts for one, used when it last ran (the cache's
	// clock)
	Cached bool
	held   int
	Idle   atomic.Bool
	used   atomic.Uint64
	Ref    CacheRef // where the cache holds it
	// counting: this run is counted in tn.unfinished (Bind, not bindAs);
	// counted: and has been taken off it
	counting, counted bool

	// inline storage: most schedules have a few transfers and rounds
	itemBuf  [4]item
	stateBuf [3]roundState

	fresh *freshRun // a cached schedule's run before its start (Reset)
}

// freshRun is the state of a schedule's run before its start.
type freshRun struct {
	items                      []item
	state                      []roundState
	clientLeft, clientRecvLeft int
	itemBuf                    [4]item
	stateBuf                   [3]roundState
}

func NewSched(tn *TeamNode, c *plan.Call, rounds []alg.Round, sc *alg.Scratch, seg int) *Sched {
	n := tn.N
	o := &Sched{n: n, tn: tn, cd: n.Cd, key: c.Key, out: c.Key.Flags.Out(), rounds: rounds, sc: sc}
	if len(c.Dst) > 1 {
		o.bufs = plan.BufIDs(c)
	}
	o.v = plan.CloneV(c.V)
	if seg != 0 {
		o.seg = &segState{mode: seg}
	}
	o.items = o.itemBuf[:0]
	o.state = o.stateBuf[:0]
	o.Reset()
	o.setupWire()
	return o
}

// Reset prepares a run of the schedule: it builds the items and the
// counts from the rounds, or, for a cached schedule run again, copies them
// from its fresh state (keepFresh).
func (o *Sched) Reset() {
	o.posted, o.next, o.left = false, 0, 0
	o.err, o.late = nil, nil
	if f := o.fresh; f != nil {
		o.items = o.items[:len(f.items)]
		copy(o.items, f.items)
		copy(o.state, f.state)
		o.clientLeft, o.clientRecvLeft = f.clientLeft, f.clientRecvLeft
	} else {
		o.build()
	}
	if o.seg != nil {
		o.resetSeg()
	}
}

// build makes the items and counts of a run before its start from the
// rounds.
func (o *Sched) build() {
	o.clientLeft, o.clientRecvLeft = 0, 0
	o.items = o.items[:0]
	if cap(o.state) < len(o.rounds) {
		o.state = make([]roundState, len(o.rounds))
	}
	o.state = o.state[:len(o.rounds)]
	for r := range o.rounds {
		for _, x := range o.rounds[r].Recvs {
			o.items = append(o.items, item{round: r, client: x.Client})
			o.count(x.Client, true, 1)
		}
		o.state[r] = roundState{recvLeft: len(o.rounds[r].Recvs)}
		for _, c := range o.rounds[r].Copies {
			o.count(c.Client, c.ToClient, 1)
		}
	}
	for r := range o.rounds {
		o.state[r].sendAt = len(o.items)
		for _, x := range o.rounds[r].Sends {
			o.items = append(o.items, item{round: r, send: true, client: x.Client})
			o.count(x.Client, false, 1)
		}
		o.state[r].sendLeft = len(o.rounds[r].Sends)
	}
}

// Hold makes o a schedule its maker keeps and runs again once idle (as
// the cache does its own): its buffers stay with it, and its runs start
// from its fresh state.
func (o *Sched) Hold() {
	o.Cached = true
	o.keepFresh()
}

// keepFresh keeps the state of the run about to start, which no step has
// changed yet, for the runs of a cached schedule to start from: a copy
// costs less than a build. A schedule that is built for one run (the
// cache had no room) makes none.
func (o *Sched) keepFresh() {
	f := &freshRun{}
	f.items = append(f.itemBuf[:0], o.items...)
	f.state = append(f.stateBuf[:0], o.state...)
	f.clientLeft, f.clientRecvLeft = o.clientLeft, o.clientRecvLeft
	o.fresh = f
}

// Retire implements engine.Op: a cached schedule becomes idle, ready to run
// again, unless it failed with transfers outstanding (a receive of that
// run may still land in its buffers), so it stays out of use.
func (o *Sched) Retire() {
	o.countFinished(true)
	if o.Cached && o.left == 0 {
		o.Idle.Store(true)
	}
}

func (o *Sched) count(client, into bool, d int) {
	if client {
		o.clientLeft += d
		if into {
			o.clientRecvLeft += d
		}
	}
}

func (o *Sched) countXfer(it *item, d int) {
	o.left += d
	if d < 0 {
		o.count(it.client, !it.send, d)
	}
}

// Bind implements engine.Op: the slot names the operation in its tokens, and
// the tag base comes from the next sequence number of the team. The engine
// binds operations one at a time, in initiation order, so every node gives
// the n-th operation of a team the same tags.
func (o *Sched) Bind(slot uint32) {
	o.slot = slot
	if !o.Preset {
		o.TagBase = o.tn.NextTagBase()
	}
	o.Preset = false
	// A run alone is not counted: its node has one image, whose goroutine
	// runs it to its end, so no Destroy can come meanwhile.
	o.counting, o.counted = !o.tn.All && slot != engine.AloneSlot, false
	if o.counting {
		o.tn.Count(1)
	}
}

// BindAs binds a schedule that runs on behalf of an arrival (package local),
// which took the sequence number and counts the operation.
func (o *Sched) BindAs(slot uint32, tagBase int) {
	o.slot, o.TagBase = slot, tagBase
	o.counting, o.counted = false, false
}

// countFinished takes a finished (or, when retired, failed) run off its
// team's count of unfinished operations, once.
func (o *Sched) countFinished(retired bool) {
	if o.counting && !o.counted && (retired || o.Finished()) {
		o.counted = true
		o.tn.Count(-1)
	}
}

// Complete implements engine.Op.
func (o *Sched) Complete(idx uint32) {
	switch {
	case idx&ignoreIdx != 0: // a message nobody waits for (segment.go)
		return
	case idx >= auxIdx:
		o.completeCtl(idx - auxIdx)
	case idx&hdrIdx != 0:
		o.completeHdr(idx &^ hdrIdx)
	default:
		o.complete(idx)
	}
	o.releaseIfFinished()
}

// complete records transfer idx as complete.
func (o *Sched) complete(idx uint32) {
	it := &o.items[idx]
	if it.done || !o.unwrap(idx) {
		return
	}
	it.done = true
	o.countXfer(it, -1)
	if it.seg != 0 && o.seg.mode == SegGet && !it.send {
		x := &o.seg.xs[it.seg-1]
		if int64(binary.LittleEndian.Uint64(x.ctl[:])) >= 0 { // the read is over: tell the sender
			x.doneOwed = true
			o.left++ // until sent (sendDone)
		}
	}
	if it.send {
		o.state[it.round].sendLeft--
	} else {
		o.state[it.round].recvLeft--
	}
}

// releaseIfFinished returns the internal buffers once nothing uses them.
func (o *Sched) releaseIfFinished() {
	o.countFinished(false)
	if o.sc != nil && !o.Cached && o.Finished() {
		o.sc.Release()
		o.sc = nil
	}
}

// Step implements engine.Op. Transfers that the conduit completes as they
// start are recorded at once, so that a schedule whose data is already
// there runs to its end within one Step.
func (o *Sched) Step() error {
	if o.err != nil {
		return o.err
	}
	if !o.posted {
		o.posted = true
		if o.seg != nil {
			if err := o.postSeg(); err != nil {
				return err
			}
		}
		// Round 0's sends go first: a send leaves at once and no receive
		// of this node can hold it up, and on the critical path of an
		// exchange every call before the send is latency added.
		if len(o.rounds) > 0 {
			if err := o.startRound(); err != nil {
				return err
			}
		}
		i := uint32(0)
		for r := range o.rounds {
			xs := o.rounds[r].Recvs
			o.left += len(xs)
			for k := range xs {
				if o.items[i].seg != 0 { // the one-sided path's (segment.go)
					i++
					continue
				}
				done, err := o.irecv(i, &xs[k]) // not a copy: every collective's path
				if err != nil {
					return err
				}
				if done {
					o.complete(i)
				}
				if o.err != nil {
					return o.err
				}
				i++
			}
		}
	}
	for {
		for o.next < len(o.rounds) && o.ready(o.next) {
			if err := o.startRound(); err != nil {
				return err
			}
		}
		if o.late != nil && o.lateRound < o.next {
			o.err = o.late
			return o.err
		}
		if o.seg == nil {
			break
		}
		// the one-sided path may complete a receive as it issues it (a
		// get), which may make the next round ready
		if err := o.stepSeg(); err != nil {
			return err
		}
		if o.next == len(o.rounds) || !o.ready(o.next) {
			break
		}
	}
	o.releaseIfFinished()
	return nil
}

// startRound does round o.next's copies and starts its sends.
func (o *Sched) startRound() error {
	r := o.next
	o.next++
	o.copies(r, false)
	// Counted before any starts: a send completing at once must not make
	// the operation look finished while its round has more to send.
	xs := o.rounds[r].Sends
	o.left += len(xs)
	for k := range xs {
		idx := uint32(o.state[r].sendAt + k)
		if o.items[idx].seg != 0 {
			if err := o.startSeg(idx); err != nil {
				return err
			}
			continue
		}
		done, err := o.isend(idx, &xs[k])
		if err != nil {
			return err
		}
		if done {
			o.complete(idx)
		}
	}
	o.copies(r, true)
	return nil
}

// copies does round r's copies that are late, or not.
func (o *Sched) copies(r int, late bool) {
	cs := o.rounds[r].Copies
	for i := range cs {
		c := &cs[i] // not a copy: the loop is on every small collective's path
		if c.Late != late {
			continue
		}
		switch {
		case c.Fn != nil:
			c.Fn()
		case len(c.Dst) > 0 && &c.Dst[0] != &c.Src[0]: // identical blocks need no copy
			alg.CopyData(c.Dst, c.Src)
		}
		o.count(c.Client, c.ToClient, -1)
	}
}

// ready reports whether round r may start.
func (o *Sched) ready(r int) bool {
	for q := 0; q < r; q++ {
		if o.state[q].recvLeft > 0 || (o.rounds[r].AfterSends && o.state[q].sendLeft > 0) {
			return false
		}
	}
	return true
}

// AgentSafe implements engine.AgentSafe: the progress agent may step a
// schedule unless it calls a user function registered without AMSafe.
func (o *Sched) AgentSafe() bool {
	if o.key.Kind < plan.Reduce {
		return true
	}
	return o.n.Builder.AgentSafe(o.key.Fn)
}

// Finished implements engine.Op: every round started and every transfer complete.
func (o *Sched) Finished() bool { return o.next == len(o.rounds) && o.left == 0 }

// Syncable implements engine.Op; this is where the output sync modes are
// honoured.
//   - OUT_ALLSYNC: the schedule ends with a barrier that starts once this
//     node's transfers are complete, so finishing it means every node's data
//     areas are complete.
//   - OUT_MYSYNC: every transfer and copy touching this node's data areas
//     is complete (forwarding from internal buffers may go on).
//   - OUT_NOSYNC: every transfer into this node's data areas is complete.
//     All data movement ends in some node's data areas, so once the last
//     node syncs, all of it is complete; sends still in flight finish in
//     later progress.
func (o *Sched) Syncable() bool {
	switch o.out {
	case gsync.OutNoSync:
		return o.clientRecvLeft == 0
	case gsync.OutMySync:
		return o.clientLeft == 0
	}
	return o.Finished()
}

// Release gives a held schedule's internal buffers back to their pools:
// for its maker, done with it, once it claimed the schedule idle (no run
// in flight can use them).
func (o *Sched) Release() { o.sc.Release() }
