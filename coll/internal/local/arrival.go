package local

import (
	"fmt"
	"strings"
	stdsync "sync"
	"sync/atomic"

	"github.com/gocoll/gocoll/coll/internal/exec"
	"github.com/gocoll/gocoll/coll/internal/plan"
	"github.com/gocoll/gocoll/images"
	"github.com/gocoll/gocoll/internal/engine"
	gsync "github.com/gocoll/gocoll/sync"
)

// Arrivals gathers the AllThreads initiations of a team's members on this
// node, on a team with members on other nodes, into one operation of the
// node per call (arrival, below). A team's node holds one.
type Arrivals struct {
	tn   *exec.TeamNode
	eng  *engine.Engine
	node Node
	// the records of calls some member has arrived at and not the last:
	// pending[0] is call number base among the team's AllThreads calls
	mu      stdsync.Mutex
	pending []*arrival
	base    uint64
}

// Init makes as the arrivals of team tn on its node, asking node.
func (as *Arrivals) Init(tn *exec.TeamNode, eng *engine.Engine, node Node) {
	as.tn, as.eng, as.node = tn, eng, node
}

// arrival gathers the initiations of one collective by the node's members
// with AllThreads, on a team with members on other nodes (a team that
// lives on this node has its own records: local.go). The first to arrive
// makes it, with the team's next sequence number (in initiation order);
// the last builds its schedule and starts it in the engine, after which it
// runs as that schedule. Members that arrived before hold pending handles
// (engine.Pending) that find the operation through the record; none of them
// waits for the engine's lock.
type arrival struct {
	as       *Arrivals
	c        plan.Call
	vs       []plan.VArgs // c.V's storage, kept across uses
	arrived  int
	inner    atomic.Pointer[exec.Sched]
	agg      *exec.AggOp           // instead of inner: the Last of an aggregate (set before the record starts)
	err      atomic.Pointer[error] // the members disagree (set by arrivals, read by the engine)
	tagBase  int
	finished bool // counted as finished in tn.unfinished
	// finishMember's list of members, and recycle as a func value made
	// once (not per call)
	all     []int
	release func()
	// for a stalled wait's error (internal/exec/watchdog.go): the members that arrived,
	// and the call's number among the team's AllThreads calls
	joined []bool
	num    uint64
	// What waiting members read, on a cache line of its own: they poll
	// it while the last member fills the fields above.
	_    [64]byte
	pend engine.Pending
	_    [48]byte
}

var arrivals stdsync.Pool

// Arrive records member m's AllThreads initiation a (a.Mine's).
func (as *Arrivals) Arrive(m *Member, a *Args) (engine.Handle, error) {
	tn := as.tn
	k := m.Calls
	m.Calls++
	as.mu.Lock()
	i := int(k - as.base)
	var rec *arrival
	if i == len(as.pending) {
		rec = as.newArrival(a.Key, len(a.Dst))
		rec.tagBase = tn.NextTagBase() // in initiation order
		as.pending = append(as.pending, rec)
		as.eng.Arriving(1)
	} else {
		rec = as.pending[i]
		if rec.err.Load() == nil && !rec.c.Key.SameCall(&a.Key) {
			rec.fail(plan.ArgsDiffer("%v and %v", rec.c.Key.Kind, a.Key.Kind))
		}
	}
	rec.c.Dst[a.Mine], rec.c.Src[a.Mine] = a.Dst[a.Mine], a.Src[a.Mine]
	if rec.c.V != nil && a.V != nil {
		rec.c.V[a.Mine] = a.V[a.Mine]
	}
	rec.joined[a.Mine] = true
	rec.arrived++
	last := rec.arrived == len(tn.Mem)
	if last { // the oldest record: records complete in the order they were made
		n := copy(as.pending, as.pending[1:])
		as.pending[n] = nil
		as.pending = as.pending[:n]
		as.base++
	}
	gen := rec.pend.Gen()
	as.mu.Unlock()
	eng := as.eng
	if !last {
		if a.Key.Flags&gsync.Aggregate != 0 { // an aggregate's member: its handle is not to be synced
			return engine.Handle{}, nil
		}
		return eng.PendingHandle(&rec.pend, gen, a.Mine), nil
	}
	// The last to arrive has the node's operation made and starts it; the
	// others' handles find it through the record.
	if rec.err.Load() == nil {
		op, ag, member, err := as.node.Start(&rec.c, rec.tagBase)
		switch {
		case member: // an aggregate's member: its images' handles are the invalid handle
			return rec.finishMember(err)
		case err != nil:
			rec.fail(err)
		case ag != nil:
			rec.agg = ag
		default:
			rec.inner.Store(op)
		}
	}
	h, tk, err := eng.StartShared(rec, len(tn.Mem), a.Mine)
	rec.pend.Start(tk)
	eng.Arriving(-1)
	return h, err
}

// newArrival is the record of the call after the pending ones, of key.
func (as *Arrivals) newArrival(key plan.Key, members int) *arrival {
	rec, _ := arrivals.Get().(*arrival)
	if rec == nil {
		rec = &arrival{}
		rec.release = rec.recycle
		rec.pend.Describe(rec.waitingFor)
	}
	rec.as, rec.arrived, rec.finished = as, 0, false
	rec.num = as.base + uint64(len(as.pending))
	if cap(rec.joined) < members {
		rec.joined = make([]bool, members)
	}
	rec.joined = rec.joined[:members]
	clear(rec.joined)
	rec.pend.Attach(as.eng, false)
	rec.err.Store(nil)
	rec.c.Key = key
	if cap(rec.c.Dst) < members {
		rec.c.Dst, rec.c.Src = make([][]byte, members), make([][]byte, members)
	}
	rec.c.Dst, rec.c.Src = rec.c.Dst[:members], rec.c.Src[:members]
	rec.c.V = nil
	if key.Kind.Counted() {
		if cap(rec.vs) < members {
			rec.vs = make([]plan.VArgs, members)
		}
		rec.c.V = rec.vs[:members]
	}
	return rec
}

func (r *arrival) fail(err error) { r.err.Store(&err) }

// finishMember ends the record of an aggregate's member on its last
// arrival: the member joined the aggregate, and no image syncs its handle
// (the spec leaves that undefined: here the handles are dead).
func (r *arrival) finishMember(err error) (engine.Handle, error) {
	n := len(r.as.tn.Mem)
	r.as.eng.Arriving(-1)
	r.all = allMembers(r.all, n)
	r.pend.Finish(n, err, r.release, r.all...)
	return engine.Handle{}, err
}

// allMembers is buf holding every member index of a node's n members: an
// aggregate member's record, whose handles nobody syncs, is done for all.
func allMembers(buf []int, n int) []int {
	buf = buf[:0]
	for m := range n {
		buf = append(buf, m)
	}
	return buf
}

// Bind implements engine.Op; the arrival took its sequence number when made.
func (r *arrival) Bind(slot uint32) {
	if r.agg != nil {
		r.agg.Bind(slot) // counts itself
		return
	}
	if op := r.inner.Load(); op != nil {
		op.BindAs(slot, r.tagBase)
	}
	r.as.tn.Count(1)
}

// Complete implements engine.Op.
func (r *arrival) Complete(idx uint32) {
	if r.agg != nil {
		r.agg.Complete(idx)
		return
	}
	op := r.inner.Load()
	op.Complete(idx)
	r.noteFinished(op)
}

// Step implements engine.Op: nothing happens before the last member arrived.
func (r *arrival) Step() error {
	if err := r.err.Load(); err != nil {
		return *err
	}
	if r.agg != nil {
		return r.agg.Step()
	}
	op := r.inner.Load()
	if op == nil {
		return nil
	}
	err := op.Step()
	r.noteFinished(op)
	return err
}

func (r *arrival) noteFinished(op *exec.Sched) {
	if !r.finished && op.Finished() {
		r.finished = true
		r.as.tn.Count(-1)
	}
}

// AgentSafe implements engine.AgentSafe.
func (r *arrival) AgentSafe() bool {
	if r.agg != nil {
		return r.agg.AgentSafe()
	}
	op := r.inner.Load()
	return op == nil || op.AgentSafe()
}

// Syncable implements engine.Op.
func (r *arrival) Syncable() bool {
	if r.agg != nil {
		return r.agg.Syncable()
	}
	op := r.inner.Load()
	return op != nil && op.Syncable()
}

// Finished implements engine.Op.
func (r *arrival) Finished() bool {
	if r.agg != nil {
		return r.agg.Finished()
	}
	op := r.inner.Load()
	return op != nil && op.Finished()
}

// Retire implements engine.Op: the schedule may run again, the record is reused.
func (r *arrival) Retire() {
	if op := r.inner.Swap(nil); op != nil {
		op.Retire()
	}
	if r.agg != nil {
		r.agg.Retire() // counted itself
		r.agg = nil
	} else if !r.finished {
		r.as.tn.Count(-1)
	}
	r.recycle()
}

// recycle makes the record serve another operation.
func (r *arrival) recycle() {
	clear(r.c.Dst)
	clear(r.c.Src)
	r.as = nil
	r.pend.Reuse() // handles of this use are dead
	arrivals.Put(r)
}

// Stalled implements engine.Staller.
func (r *arrival) Stalled() string {
	if r.agg != nil {
		return r.agg.Stalled()
	}
	if op := r.inner.Load(); op != nil {
		return op.Stalled()
	}
	return r.waitingFor()
}

// waitingFor says which of the node's members have not called the
// record's collective yet (a pending handle's stalled wait).
func (r *arrival) waitingFor() string {
	as := r.as
	if as == nil {
		return "a collective that ended"
	}
	tn := as.tn
	as.mu.Lock()
	var missing []int
	for m, ok := range r.joined {
		if !ok {
			missing = append(missing, tn.Team.Image(tn.Mem[m]))
		}
	}
	as.mu.Unlock()
	num := fmt.Sprintf("AllThreads call #%d", r.num)
	if !tn.Local {
		num = fmt.Sprintf("#%d", tn.SeqOf(r.tagBase))
	}
	return fmt.Sprintf("%v %s on %s (node %d): images %s of the node have not called it",
		r.c.Key.Kind, num, tn.Name(), tn.N.Me, strings.Trim(fmt.Sprint(missing), "[]"))
}

// Quiet implements engine.Quieter.
func (r *arrival) Quiet() bool {
	if r.agg != nil {
		return r.agg.Quiet()
	}
	op := r.inner.Load()
	return op == nil || op.Quiet()
}

// Abandon implements engine.Abandoner.
func (r *arrival) Abandon() {
	if r.agg != nil {
		r.agg.Abandon()
		return
	}
	if !r.finished {
		r.finished = true
		r.as.tn.Count(-1)
	}
}

// TeamSeq is the team the operation runs on and its sequence number there
// (see exec's).
func (r *arrival) TeamSeq() (*images.Team, uint64) { return r.as.tn.Team, exec.TagSeq(r.tagBase) }
