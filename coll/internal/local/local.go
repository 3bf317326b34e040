package local

import (
	"context"
	"fmt"
	"strings"
	stdsync "sync"
	"sync/atomic"

	"github.com/gocoll/gocoll/coll/internal/alg"
	"github.com/gocoll/gocoll/coll/internal/exec"
	"github.com/gocoll/gocoll/coll/internal/plan"
	"github.com/gocoll/gocoll/images"
	"github.com/gocoll/gocoll/internal/engine"
	gsync "github.com/gocoll/gocoll/sync"
)

// Arrivals on a team that lives on one node (exec.TeamNode.Local), with
// AllThreads: every member image calls for itself, the last to arrive runs
// the node's operation for all of them (run), which needs no transfer, and
// the others' handles end once it did (engine.Pending, alone).
//
// Such a call is a rendezvous of goroutines on different cores, and what
// it costs is the cache lines that move between them: so its record is
// laid out for that, and found without a lock. Each member writes its
// buffers into a line of its own (memberLine) and counts itself in on the
// record's first line; the last reads the others' lines, runs, and writes
// the result and the record's end on the Pending's line, which the others
// poll. That is the floor's protocol (BenchmarkRendezvousFloor) plus the
// record's lookup, on a line that the record's maker wrote before the
// last member needs it. In a small ReduceAll the members bring their
// elements in their lines, and those that called the blocking form fold
// their own results from them rather than wait for the last (self, see
// inlineBytes): one line from each other member instead of a chain of
// three. When all of them call it so, the call skips the records, as does
// a small broadcast whose root gets there first (ring.go).
//
// Records form a chain in call order. Each image holds the record of its
// last call on the team (Member.cur) and takes the next through its
// next pointer; the first member to arrive at a record makes the one after
// it (so the next call finds it on a line it has already), and an image
// that finds none makes it and links it with a compare-and-swap, the loser
// using the winner's. Images may run any number of calls ahead with the
// non-blocking forms: the chain grows as far as they go. A record is
// recycled once every member is done with it (synced its handle, or needed
// none) and every member has moved past it, which is known when the next
// record is complete: the Pending has a part for each member and one more
// for the chain, dropped by the next record's last arrival.

// Staging: the root image of a small broadcast (one that did not go by
// the ring) or scatter that arrives before the others copies its source
// into the record and its own block into its destination, and is done:
// it needs nothing from them, so (with IN_MYSYNC or IN_NOSYNC and
// OUT_MYSYNC or OUT_NOSYNC) its part of the collective is complete and its
// call returns at once, as the root of a one-image-per-node broadcast
// returns once its sends left. The others copy from the staged source. A
// root stages up to maxStaged calls in a row, counting those it took by
// the ring (it runs that far ahead of the others at most).
const (
	MaxStageBytes = 8 << 10
	maxStaged     = 64
)

// Team is the node-local path's state of a team that lives on the
// node: its records' chain and its ring.
type Team struct {
	*exec.TeamNode
	// the team and the node's members' ranks, kept here (they do not
	// change): every call reads them, one pointer fewer
	Team  *images.Team
	Mem   []int
	eng   *engine.Engine
	node  Node
	took  func(mine int, p Path) // the selector's hook, nil without one
	chain *localRec              // the start of its records' chain
	ring  []memberLine           // ringCalls slots of a line per member (ring.go)
	fins  []finLine              // by member: its fin, how far it is done reading the ring
}

// Node is what the node-local path asks of the node: the schedule of a
// call (a record's that runs neither staged nor directly), the reducer of
// a function, and the operation of an arrival record. A member's call
// goes by value: it stays on its caller's stack.
type Node interface {
	Op(c plan.Call) *exec.Sched
	Reducer(fn, arg, es int) alg.Reducer
	// Start makes the node's operation for the call c of an arrival
	// record (tag base tagBase), once its last member arrived: a
	// schedule, or an aggregate (its Last); member reports a call that
	// joined an aggregate (err: its failure), err a call that failed.
	Start(c *plan.Call, tagBase int) (op *exec.Sched, ag *exec.AggOp, member bool, err error)
}

// Path is how the node-local path ran a member's call, as it tells
// the selector's hook.
type Path uint8

const (
	Ring    Path = iota // the ring (ring.go)
	Staged              // a root that staged its source and left
	Direct              // the last member's direct run (direct.go)
	Records             // the last member's run of the record's schedule
)

// NewTeam is the node-local path of team tn, asking node.
func NewTeam(tn *exec.TeamNode, eng *engine.Engine, node Node, took func(mine int, p Path)) *Team {
	lt := &Team{TeamNode: tn, Team: tn.Team, Mem: tn.Mem, eng: eng, node: node, took: took}
	lt.chain = newChain(lt)
	lt.newRing()
	return lt
}

// Member is an image's state on a team that lives on its node.
type Member struct {
	team  *Team
	Calls uint64 // AllThreads initiations on the team so far
	// the least fin of the other members it saw (ring.go), and
	// ringWaiting as a func value made once
	safe        uint64
	ringStalled func() string
	// the record of its last AllThreads call, and how many calls in a
	// row it returned from as a staged root
	cur   *localRec
	ahead int
	done  []int  // the members done at a record's end, when this image ends it
	fold  []byte // the direct fold's scratch, when this image runs one (direct.go)
}

// Join makes m an image's state on team t, nil for a team with members on
// other nodes (where m counts the image's AllThreads calls only).
func (m *Member) Join(t *Team) {
	m.team = t
	m.ringStalled = m.ringWaiting
}

// Args is a member's call on a local team: the call (with only the
// member's own buffers in its lists), the member's index, its form, and
// what the selector decided for it.
type Args struct {
	*plan.Call
	Mine  int
	NB    bool
	Route Route
}

// Route is the selector's decision on a member's call (core's select.go).
type Route struct {
	Self     bool // the member folds its own result from the lines (core's selfFolds)
	ByRing   bool // a self ReduceAll tries the ring
	CastRing bool // a broadcast tries the ring (core's castsByRing)
	Stage    int  // as a root, it stages this many bytes and leaves (core's stages); 0: no
	Direct   bool // the last member runs the call directly (direct)
}

// localRec is the record of one AllThreads call on a local team.
type localRec struct {
	// The arrival line: every member counts itself in; and the decision
	// of a small broadcast whether it goes by the ring (ring.go), taken
	// before anyone counts in.
	count atomic.Int32
	dec   atomic.Uint64
	_     [48]byte
	// Written once per use (by the record's maker, and next by the maker
	// of the next record, each before the last member arrives), read by
	// every member: off the arrival line, so that reading them costs the
	// last member no line the others wrote since.
	next atomic.Pointer[localRec]
	prev *localRec
	recLines
	sentinel bool // the chain's start: no call, never recycled
	// the root's staged source (written by the staging root only), and
	// recycle as a func value made once
	stage   []byte
	release func()
	// What waiting members poll, on a line of its own.
	_    [64]byte
	pend engine.Pending
	_    [64]byte
}

// recLines are the member lines of one call on a local team: a record's,
// or the ring's (ring.go). What reads them (gather, fold, the direct run,
// a stalled wait's words) serves both.
type recLines struct {
	tn    *Team
	num   uint64       // the call's number among the team's AllThreads calls (a record's: among the chain's)
	lines []memberLine // by member, two lines each
	vs    []plan.VArgs // by member, a v-call's extents (a record's; the ring serves no v-call)
}

// memberLine is what a member writes when it arrives, on two cache lines
// of its own (a record's lines are one allocation, 128 bytes each): first
// what the others poll and read in a small call (its arrival, its word and
// the element it brought: inline), then its buffers.
type memberLine struct {
	at   atomic.Uint64 // num+1 of the record's call once the member arrived
	word uint64        // the call's signature and the member's flags (lineWord)
	val  [InlineBytes]byte
	dst  []byte
	src  []byte
	_    [16]byte
}

// A member line's word: the call's signature (planKey.sig) in the low 56
// bits, its kind in the next 4 (for a stalled wait's error), and four
// flags, which the signature's comparison leaves out.
const (
	lineDone   = 1 << 63 // the member returned at its arrival: it holds no handle
	lineStaged = 1 << 62 // a staged root: its src is the record's stage or its val
	lineSelf   = 1 << 61 // the member folds its own result from the lines (self)
	lineChain  = 1 << 60 // in the ring: a broadcast's root that took the chain (ring.go)
	lineSig    = lineChain - 1
	kindShift  = 56
)

var _ [lineChain>>kindShift - plan.NumKinds]struct{} // the kinds fit their bits

// Inline: in a small ReduceAll of one element per member that may read
// sources at once (not IN_ALLSYNC), each member copies its element into
// its line as it arrives, and the fold reads the lines, not the members'
// buffers. A member that calls the blocking form and may leave before the
// others are done (not OUT_ALLSYNC) then needs nobody to run the call for
// it: once every line has arrived it folds its own result (self), in the
// same order as run, and leaves; the others' lines are one cache line
// each, and nothing waits for the last member's end of the record. A
// broadcast or scatter root stages a block of at most InlineBytes in its
// val.
const InlineBytes = 48

// inline reports whether members calling k bring their elements in their
// lines (see inlineBytes).
func (r *recLines) inline(k *plan.Key) bool { return InlineKey(k, len(r.tn.Mem)) }

// InlineKey reports whether members of a team of m on the node calling k
// bring their elements in their lines.
func InlineKey(k *plan.Key, m int) bool {
	return k.Kind == plan.ReduceAll && k.SrcLayout == alg.Cyclic && k.Count == m && k.ElemSize <= InlineBytes &&
		k.Flags.In() != gsync.InAllSync
}

// lineWord is the word of a member calling k, without flags.
func lineWord(k *plan.Key) uint64 {
	return k.LocalSig()&(1<<kindShift-1) | uint64(k.Kind)<<kindShift
}

var (
	localRecs stdsync.Pool
	recsMade  atomic.Int64 // records allocated (tests: LocalRecsMade)
)

// newChain is the start of a local team's chain.
func newChain(tn *Team) *localRec {
	return &localRec{recLines: recLines{tn: tn, num: ^uint64(0)}, sentinel: true}
}

// nextRec is the record after r in the chain, made and linked if no
// image has yet.
func (r *localRec) nextRec() *localRec {
	if nr := r.next.Load(); nr != nil {
		return nr
	}
	nr := newLocalRec(r)
	if r.next.CompareAndSwap(nil, nr) {
		return nr
	}
	localRecs.Put(nr) // another image linked one first (never used: no generation to end)
	return r.next.Load()
}

// newLocalRec makes the record of the call after prev's.
func newLocalRec(prev *localRec) *localRec {
	tn, m := prev.tn, len(prev.tn.Mem)
	r, _ := localRecs.Get().(*localRec)
	if r == nil {
		recsMade.Add(1)
		r = &localRec{}
		r.release = r.recycle
		r.pend.Describe(r.waitingFor)
	}
	if r.tn != tn || len(r.lines) != m {
		// the lines' at words are numbers of this team's calls
		r.lines = make([]memberLine, m)
		r.vs = make([]plan.VArgs, m)
		r.pend.Attach(tn.eng, true) // it ends in run, never in the engine
	}
	r.tn, r.prev, r.num = tn, prev, prev.num+1
	r.count.Store(0)
	r.dec.Store(0) // a call number of the record's last team, perhaps another
	r.next.Store(nil)
	return r
}

// recycle makes the record serve another call. The members' lines keep
// their buffers until then, as prev keeps the previous record (a record
// in the pool is dropped at the second garbage collection at the latest):
// clearing them here would move those lines to this core on every call.
func (r *localRec) recycle() {
	r.prev = nil
	r.pend.Reuse() // handles of this use are dead
	localRecs.Put(r)
}

// Arrive records member a.Mine's AllThreads initiation on a team that
// lives on the node: the record of its next call, its line, and its
// count; the last to arrive runs the call.
func (it *Member) Arrive(a *Args) (engine.Handle, error) {
	tn := it.team
	if it.cur == nil {
		it.cur = tn.chain
	}
	n := it.Calls
	it.Calls++
	self := a.Route.Self
	// The Last of an aggregate completes only once every member is
	// complete, and the last image to arrive at a member runs it: so its
	// root does not stage nor its call go by the ring, where images leave
	// before the others came. (A ReduceAll by the ring waits for all.)
	switch {
	case a.Route.ByRing:
		if done, err := it.byRing(a, n); done {
			tn.tookPath(a.Mine, Ring)
			return engine.Handle{}, err
		}
	case a.Route.CastRing:
		if done, err := it.castByRing(a, n); done {
			tn.tookPath(a.Mine, Ring)
			return engine.Handle{}, err
		}
	}
	tn.fins[a.Mine].v.Store(n) // it reads no ring slot from here on (ring.go)
	r := it.cur.nextRec()
	if d, _ := r.decide(n, decChain); d == decRing {
		// A broadcast root went by the ring at this call (ring.go), and
		// this image's call is another.
		return engine.Handle{}, plan.ArgsDiffer("image %d called %v where another went by as a Broadcast's root",
			tn.Team.Image(tn.Mem[a.Mine]), a.Key.Kind)
	}
	it.cur = r
	ln := &r.lines[a.Mine]
	ln.dst, ln.src = a.Dst[a.Mine], a.Src[a.Mine]
	if a.V != nil {
		r.vs[a.Mine] = a.V[a.Mine] // published with the line (its at word, below)
	}
	word := lineWord(&a.Key)
	if it.ahead < maxStaged && a.Route.Stage > 0 && r.stageRoot(a, ln) {
		word |= lineDone | lineStaged
		it.ahead++
		tn.tookPath(a.Mine, Staged)
	} else {
		it.ahead = 0
	}
	agg := a.Key.Flags&gsync.Aggregate != 0 // an aggregate's member: its handle is not to be synced
	if agg {
		word |= lineDone
	}
	if r.inline(&a.Key) {
		copy(ln.val[:], ln.src[:a.Key.ElemSize])
		if self {
			word |= lineSelf
		}
	}
	ln.word = word
	ln.at.Store(r.num + 1)
	if int(r.count.Add(1)) == len(tn.Mem) {
		return r.run(it, a, word&lineSig)
	}
	r.nextRec() // made now, off the last member's path
	if word&lineDone != 0 {
		return engine.Handle{}, nil
	}
	// The generation is stable: the record lives until this member's
	// part is done (a self member's: until it arrives at the next record).
	h := tn.eng.PendingHandle(&r.pend, r.pend.Gen(), a.Mine)
	if word&lineSelf != 0 {
		return engine.Handle{}, r.self(it, a, h, word&lineSig)
	}
	return h, nil
}

// self folds a self member's result (see inlineBytes): it waits, as a wait
// on its handle h would (pacing, stall watchdog), for every member's line,
// then checks and folds as run does, writing its own destination only.
// The last member's run counts its part as done.
func (r *localRec) self(it *Member, a *Args, h engine.Handle, sig uint64) error {
	want, next := r.num+1, 0
	err := h.WaitReady(context.Background(), func() bool {
		for ; next < len(r.lines); next++ {
			if r.lines[next].at.Load() != want {
				return false
			}
		}
		return true
	})
	if err != nil {
		return err
	}
	if _, err := r.gather(it, a, sig); err != nil {
		return err
	}
	return r.fold(it, a, true)
}

// fold runs a's direct ReduceAll, whose lists gather filled: it checks the
// members' areas, takes the elements from the lines where the call is
// inline, and folds, into a's own destination only for a self member. A
// reduction function's panic fails it (the closure stays on the stack:
// Run keeps no reference to it).
func (r *recLines) fold(it *Member, a *Args, self bool) error {
	c := a.Call
	if err := foldOverlap(c, r.tn); err != nil {
		return err
	}
	if r.inline(&c.Key) {
		r.fromLines(c, a.Mine, self)
	}
	return engine.Run(func() error { return r.runDirect(c, it) })
}

// fromLines makes c, whose lists gather filled for member mine, fold the
// elements in the lines (inline): into mine's destination only (self), or
// into those of mine and of the members that do not fold their own (run).
func (r *recLines) fromLines(c *plan.Call, mine int, self bool) {
	es := c.Key.ElemSize
	for m := range r.lines {
		ln := &r.lines[m]
		c.Src[m] = ln.val[:es]
		if m != mine && (self || ln.word&lineSelf != 0) {
			c.Dst[m] = nil
		}
	}
}

// stageRoot stages the root's source of a small broadcast or scatter (see
// maxStageBytes), unless the root arrives last anyway, and reports whether
// it did: the root's own block is then in its destination, and the others
// copy theirs from the stage.
func (r *localRec) stageRoot(a *Args, ln *memberLine) bool {
	tn, k := r.tn, &a.Key
	size := a.Route.Stage
	if size == 0 || int(r.count.Load()) == len(tn.Mem)-1 {
		return false
	}
	n := k.N
	src, dst := ln.src[:size], ln.dst[:n]
	var stage []byte
	if size <= InlineBytes {
		stage = ln.val[:size] // a small block goes with the root's line
	} else {
		if cap(r.stage) < size {
			r.stage = make([]byte, size)
		}
		stage = r.stage[:size]
	}
	alg.CopyData(stage, src)
	own := src[:n]
	if k.Kind == plan.Scatter {
		own = src[k.Root*n : (k.Root+1)*n]
	}
	alg.CopyData(dst, own) // alias-safe; identical blocks stay as they are
	ln.src, ln.dst = stage, nil
	return true
}

// run runs the record's call on the last member to arrive (a's, whose line
// word is sig), with its own key and lists, filled from the members'
// lines; it needs no transfer,
// so it runs to its end here. The other members' handles then sync at
// once.
func (r *localRec) run(it *Member, a *Args, sig uint64) (engine.Handle, error) {
	tn, c := r.tn, a.Call
	staged, err := r.gather(it, a, sig)
	if err == nil {
		switch {
		case staged:
			// A staged broadcast or scatter (its schedule would do the
			// same copies, but a schedule per record's stage would defeat
			// the cache): from the root's line's src, the stage.
			r.blocksFrom(c, c.Src[c.Key.Root])
		case a.Route.Direct && c.Key.Kind == plan.ReduceAll:
			tn.tookPath(a.Mine, Direct)
			err = r.fold(it, a, false)
		default:
			if err = plan.CrossOverlap(c, tn.Team, tn.Mem); err != nil {
				break
			}
			if a.Route.Direct {
				tn.tookPath(a.Mine, Direct)
				err = engine.Run(func() error { return r.runDirect(c, it) })
				break
			}
			tn.tookPath(a.Mine, Records)
			c.Key.Bufs(c)
			op := tn.node.Op(*c)
			op.BindAs(0, 0)           // a local team sends nothing: no tag
			err = engine.Run(op.Step) // no transfer: nothing in flight if it fails
			op.Retire()
		}
	}
	m := len(tn.Mem)
	done := it.done
	if a.Key.Flags&gsync.Aggregate != 0 {
		done = done[:0]
		for k := range m {
			done = append(done, k)
		}
	}
	it.done = done
	r.pend.Finish(m+1, err, r.release, done...) // part m: the chain's
	if p := r.prev; !p.sentinel {
		// Every member has arrived here, so every member has moved past
		// the previous record, which ended before its last member came.
		p.pend.Drop(m)
	}
	return engine.Handle{}, err
}

// gather fills the lists of a's call with the other members' buffers from
// their lines, and a.it.done with the members that need no sync at the
// record's end (a's own, those that returned at their arrival or fold
// their own result); it reports whether the root staged its source, and
// ErrArgsDiffer where a line's signature is not sig.
func (r *recLines) gather(it *Member, a *Args, sig uint64) (staged bool, err error) {
	c, mine := a.Call, a.Mine
	done := append(it.done[:0], mine) // the image's own scratch: no shared line
	for m := range r.lines {
		if m == mine {
			continue
		}
		ln := &r.lines[m]
		c.Dst[m], c.Src[m] = ln.dst, ln.src
		if c.V != nil {
			c.V[m] = r.vs[m]
		}
		w := ln.word
		if w&lineSig != sig && err == nil {
			err = r.differ(a, m)
		}
		staged = staged || w&lineStaged != 0
		if w&(lineDone|lineSelf) != 0 {
			done = append(done, m)
		}
	}
	it.done = done
	return staged, err
}

// differ is the ErrArgsDiffer of a's call, whose arguments member m's
// line contradicts.
func (r *recLines) differ(a *Args, m int) error {
	tn := r.tn
	return plan.ArgsDiffer("images %d and %d, %v", tn.Team.Image(tn.Mem[m]), tn.Team.Image(tn.Mem[a.Mine]), a.Key.Kind)
}

// blocksFrom gives every member its block of a broadcast or scatter from
// src, the root's source (staged or its own): a staged root has no
// destination left, and a root's destination identical to its block is
// left as it is.
func (r *recLines) blocksFrom(c *plan.Call, src []byte) {
	k, n := &c.Key, c.Key.N
	for m, d := range c.Dst {
		if d == nil {
			continue
		}
		from := src[:n]
		if k.Kind == plan.Scatter {
			from = src[r.tn.Mem[m]*n : (r.tn.Mem[m]+1)*n]
		}
		if !alg.Identical(d[:n], from) {
			alg.CopyData(d[:n], from)
		}
	}
}

// waitingFor says which of the node's members have not called the
// record's collective yet (a pending handle's stalled wait).
func (r *recLines) waitingFor() string {
	tn := r.tn
	var missing []int
	what := "collective"
	for m := range r.lines {
		ln := &r.lines[m]
		if ln.at.Load() != r.num+1 {
			missing = append(missing, tn.Team.Image(tn.Mem[m]))
		} else { // its word was written before at
			what = plan.Kind(ln.word & lineSig >> kindShift).String()
		}
	}
	return fmt.Sprintf("%v AllThreads call #%d on %s (node %d): images %s of the node have not called it",
		what, r.num, tn.Name(), tn.N.Me, strings.Trim(fmt.Sprint(missing), "[]"))
}

// RecsMade is how many records were allocated so far (not taken from the
// pool), for tests that check the chain recycles them.
func RecsMade() int64 { return recsMade.Load() }

// tookPath tells the selector's hook, if any, that member mine's call took
// path p.
func (t *Team) tookPath(mine int, p Path) {
	if t.took != nil {
		t.took(mine, p)
	}
}
