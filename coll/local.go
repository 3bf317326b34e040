package coll

import (
	"context"
	"fmt"
	"strings"
	stdsync "sync"
	"sync/atomic"

	"github.com/gocoll/gocoll/coll/internal/alg"
	"github.com/gocoll/gocoll/coll/internal/plan"
	"github.com/gocoll/gocoll/internal/engine"
	gsync "github.com/gocoll/gocoll/sync"
)

// Arrivals on a team that lives on one node (teamNode.local), with
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
// last call on the team (imageTeam.cur) and takes the next through its
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
	maxStageBytes = 8 << 10
	maxStaged     = 64
)

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
	tn    *teamNode
	num   uint64       // the call's number among the team's AllThreads calls (a record's: among the chain's)
	lines []memberLine // by member, two lines each
}

// memberLine is what a member writes when it arrives, on two cache lines
// of its own (a record's lines are one allocation, 128 bytes each): first
// what the others poll and read in a small call (its arrival, its word and
// the element it brought: inline), then its buffers.
type memberLine struct {
	at   atomic.Uint64 // num+1 of the record's call once the member arrived
	word uint64        // the call's signature and the member's flags (lineWord)
	val  [inlineBytes]byte
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
// broadcast or scatter root stages a block of at most inlineBytes in its
// val.
const inlineBytes = 48

// inline reports whether members calling k bring their elements in their
// lines (see inlineBytes).
func (r *recLines) inline(k *plan.Key) bool { return inlineKey(k, len(r.tn.Mem)) }

// inlineKey reports whether members of a team of m on the node calling k
// bring their elements in their lines.
func inlineKey(k *plan.Key, m int) bool {
	return k.Kind == plan.ReduceAll && k.SrcLayout == alg.Cyclic && k.Count == m && k.ElemSize <= inlineBytes &&
		k.Flags.In() != gsync.InAllSync
}

// lineWord is the word of a member calling k, without flags.
func lineWord(k *plan.Key) uint64 {
	return k.LocalSig()&(1<<kindShift-1) | uint64(k.Kind)<<kindShift
}

var (
	localRecs     stdsync.Pool
	localRecsMade atomic.Int64 // records allocated (tests: LocalRecsMade)
)

// newChain is the start of a local team's chain.
func newChain(tn *teamNode) *localRec {
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
		localRecsMade.Add(1)
		r = &localRec{}
		r.release = r.recycle
		r.pend.Describe(r.waitingFor)
	}
	if r.tn != tn || len(r.lines) != m {
		// the lines' at words are numbers of this team's calls
		r.lines = make([]memberLine, m)
		r.pend.Attach(tn.n.eng, true) // it ends in run, never in the engine
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

// arriveLocal records member a.mine's AllThreads initiation on a local
// team: the record of its next call, its line, and its count; the last to
// arrive runs the call.
func (im *Image) arriveLocal(a *callArgs) (engine.Handle, error) {
	it, tn := a.it, a.tn
	if it.cur == nil {
		it.cur = tn.chain
	}
	n := it.calls
	it.calls++
	self := selfFolds(a)
	// The Last of an aggregate completes only once every member is
	// complete, and the last image to arrive at a member runs it: so its
	// root does not stage nor its call go by the ring, where images leave
	// before the others came. (A ReduceAll by the ring waits for all.)
	last := it.aggOpen
	switch nd := tn.n; {
	case self && nd.allows(pathRing):
		if done, err := it.byRing(a, n); done {
			nd.took(it, pathRing)
			return engine.Handle{}, err
		}
	case !last && castsByRing(a) && nd.allows(pathRing):
		if done, err := it.castByRing(a, n); done {
			nd.took(it, pathRing)
			return engine.Handle{}, err
		}
	}
	tn.fins[a.mine].v.Store(n) // it reads no ring slot from here on (ring.go)
	r := it.cur.nextRec()
	if d, _ := r.decide(n, decChain); d == decRing {
		// A broadcast root went by the ring at this call (ring.go), and
		// this image's call is another.
		return engine.Handle{}, argsDiffer("image %d called %v where another went by as a Broadcast's root",
			tn.Team.Image(tn.Mem[a.mine]), a.Key.Kind)
	}
	it.cur = r
	ln := &r.lines[a.mine]
	ln.dst, ln.src = a.Dst[a.mine], a.Src[a.mine]
	word := lineWord(&a.Key)
	if it.ahead < maxStaged && !last && tn.n.allows(pathStaged) && r.stageRoot(a, ln) {
		word |= lineDone | lineStaged
		it.ahead++
		tn.n.took(it, pathStaged)
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
		return r.run(a, word&lineSig)
	}
	r.nextRec() // made now, off the last member's path
	if word&lineDone != 0 {
		return engine.Handle{}, nil
	}
	// The generation is stable: the record lives until this member's
	// part is done (a self member's: until it arrives at the next record).
	h := tn.n.eng.PendingHandle(&r.pend, r.pend.Gen(), a.mine)
	if word&lineSelf != 0 {
		return engine.Handle{}, r.self(a, h, word&lineSig)
	}
	return h, nil
}

// self folds a self member's result (see inlineBytes): it waits, as a wait
// on its handle h would (pacing, stall watchdog), for every member's line,
// then checks and folds as run does, writing its own destination only.
// The last member's run counts its part as done.
func (r *localRec) self(a *callArgs, h engine.Handle, sig uint64) error {
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
	if _, err := r.gather(a, sig); err != nil {
		return err
	}
	return r.fold(a, true)
}

// fold runs a's direct ReduceAll, whose lists gather filled: it checks the
// members' areas, takes the elements from the lines where the call is
// inline, and folds, into a's own destination only for a self member. A
// reduction function's panic fails it (the closure stays on the stack:
// Run keeps no reference to it).
func (r *recLines) fold(a *callArgs, self bool) error {
	c := &a.Call
	if err := foldOverlap(c, r.tn); err != nil {
		return err
	}
	if r.inline(&c.Key) {
		r.fromLines(c, a.mine, self)
	}
	return engine.Run(func() error { return r.runDirect(c, a.it) })
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
func (r *localRec) stageRoot(a *callArgs, ln *memberLine) bool {
	tn, k := r.tn, &a.Key
	size := stages(a)
	if size == 0 || int(r.count.Load()) == len(tn.Mem)-1 {
		return false
	}
	n := k.N
	src, dst := ln.src[:size], ln.dst[:n]
	var stage []byte
	if size <= inlineBytes {
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
func (r *localRec) run(a *callArgs, sig uint64) (engine.Handle, error) {
	tn, c := r.tn, &a.Call
	staged, err := r.gather(a, sig)
	if err == nil {
		switch {
		case staged:
			// A staged broadcast or scatter (its schedule would do the
			// same copies, but a schedule per record's stage would defeat
			// the cache): from the root's line's src, the stage.
			r.blocksFrom(c, c.Src[c.Key.Root])
		case r.direct(c) && c.Key.Kind == plan.ReduceAll:
			tn.n.took(a.it, pathDirect)
			err = r.fold(a, false)
		default:
			if err = crossOverlap(c, tn); err != nil {
				break
			}
			if r.direct(c) {
				tn.n.took(a.it, pathDirect)
				err = engine.Run(func() error { return r.runDirect(c, a.it) })
				break
			}
			tn.n.took(a.it, pathRecords)
			c.Key.Bufs(c)
			op := tn.n.op(tn, c)
			op.BindAs(0, 0)           // a local team sends nothing: no tag
			err = engine.Run(op.Step) // no transfer: nothing in flight if it fails
			op.Retire()
		}
	}
	m := len(tn.Mem)
	done := a.it.done
	if a.Key.Flags&gsync.Aggregate != 0 {
		done = allMembers(done, m)
	}
	a.it.done = done
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
func (r *recLines) gather(a *callArgs, sig uint64) (staged bool, err error) {
	c, mine := &a.Call, a.mine
	done := append(a.it.done[:0], mine) // the image's own scratch: no shared line
	for m := range r.lines {
		if m == mine {
			continue
		}
		ln := &r.lines[m]
		c.Dst[m], c.Src[m] = ln.dst, ln.src
		w := ln.word
		if w&lineSig != sig && err == nil {
			err = r.differ(a, m)
		}
		staged = staged || w&lineStaged != 0
		if w&(lineDone|lineSelf) != 0 {
			done = append(done, m)
		}
	}
	a.it.done = done
	return staged, err
}

// differ is the ErrArgsDiffer of a's call, whose arguments member m's
// line contradicts.
func (r *recLines) differ(a *callArgs, m int) error {
	tn := r.tn
	return argsDiffer("images %d and %d, %v", tn.Team.Image(tn.Mem[m]), tn.Team.Image(tn.Mem[a.mine]), a.Key.Kind)
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
		what, r.num, tn.Name(), tn.n.Me, strings.Trim(fmt.Sprint(missing), "[]"))
}
