package coll

import (
	"sync/atomic"

	gsync "github.com/gocoll/gocoll/sync"
)

// Self-served reductions. On a team that lives on one node, a small Reduce
// or ReduceAll called with AllThreads needs no message, and whoever folds
// the members' sources would be the critical path of every call: with the
// last member to arrive folding for all (runHere), the schedule's state
// and the record cross from processor to processor at every call, and the
// others wait for it. Instead each member copies (stages) its source into
// the record as it arrives, and every member that needs the result folds
// the staged sources itself, on its own processor, with its own cached
// fold, as soon as the last member has arrived. A member folding for
// itself needs only the others' staged sources, which no later call
// touches until it is done, and its source is free once staged:
//
//   - ReduceAll: a blocking member waits for the last arrival and folds
//     into its own destination; a member with a handle (NB) arriving
//     before the last gets its result from the last member, which folds
//     once for itself and copies.
//   - Reduce: a member other than the root is done once its source is
//     staged (as a broadcast's staged root, call.go); the root folds
//     itself, or, if it has a handle, the last member folds for it.
//
// Every fold is the one the one-node schedule does (reducer.local and
// total over the members' runs in rank order), so results are bitwise
// those of the general path. The input modes IN_MYSYNC and IN_NOSYNC and
// output modes OUT_MYSYNC and OUT_NOSYNC allow it (a member's data areas
// are complete once its source is staged and its destination written);
// the ALLSYNC modes take the general path.

// selfServeMax bounds the array of a self-served reduction, in bytes:
// staging copies every source once, which only small arrays pay back.
const selfServeMax = 8 << 10

// selfServed reports whether an AllThreads call with key k on tn is served
// by its members themselves.
func selfServed(tn *teamNode, k *planKey) bool {
	f := k.f
	return tn.local && (k.kind == kReduce || k.kind == kReduceAll) &&
		f.In() != gsync.InAllSync && f.Out() != gsync.OutAllSync &&
		k.count*k.es <= selfServeMax
}

// selfState is a record's part for a self-served reduction.
type selfState struct {
	staged [][]byte // by member: its source's local part
	nb     []bool   // by member: it holds a handle
	// ready is set once the last member arrived: the staged sources are
	// complete and the record's error is final.
	ready atomic.Bool
	// refs counts who still uses the record: the members folding for
	// themselves, and the pending handles (one reference for all).
	refs atomic.Int32
}

func (s *selfState) size(members int) {
	if cap(s.staged) < members {
		s.staged, s.nb = make([][]byte, members), make([]bool, members)
	}
	s.staged, s.nb = s.staged[:members], s.nb[:members]
}

// wantsResult reports whether member m gets the result of the record's call.
func (r *arrival) wantsResult(m int) bool {
	k := &r.c.key
	return k.kind == kReduceAll || r.tn.mem[m] == k.root
}

// stageSelf stages a's source in the record (with the team's amu held) and
// tells what the member does next: it is done (its part is complete), or
// serves (folds its own result once all arrived); otherwise it waits as
// any member does (a pending handle, or, last, it runs runSelf).
func (r *arrival) stageSelf(a *callArgs, last bool) (done, serve bool) {
	m, k := a.mine, &a.key
	n := dist{Layout: k.sl, P: a.P, count: k.count}.localLen(a.tn.mem[m]) * k.es
	st := &r.selfSt
	if cap(st.staged[m]) < n {
		st.staged[m] = make([]byte, n)
	}
	st.staged[m] = st.staged[m][:n]
	copy(st.staged[m], a.src[m][:n])
	st.nb[m] = a.nb
	if last {
		return false, false
	}
	switch {
	case !r.wantsResult(m):
		done = true
	case !a.nb:
		serve = true
	}
	if done || serve {
		r.early = append(r.early, m) // holds no pending handle
	}
	return done, serve
}

// serve is a member folding its own result: it waits for the last arrival
// and folds the staged sources into its destination.
func (r *arrival) serve(a *callArgs) error {
	st := &r.selfSt
	if err := a.tn.n.eng.AwaitFlag(&st.ready, r.waitingFor); err != nil {
		return err // the record is not recycled: the others may still use it
	}
	var err error
	if e := r.err.Load(); e != nil {
		err = *e
	} else {
		err = gsync.Run(func() error { a.it.fold(a).run(st.staged, a.dst[a.mine]); return nil })
	}
	r.unref()
	return err
}

// runSelf is the last member's part: it lets the waiting members fold,
// folds for itself and for the members with handles, and finishes the
// record.
func (r *arrival) runSelf(a *callArgs) (gsync.Handle, error) {
	tn, st, last := r.tn, &r.selfSt, a.mine
	if r.err.Load() == nil {
		if err := tn.checkAreas(&r.c); err != nil {
			r.fail(err)
		}
	}
	readers := int32(0)
	for m := range tn.mem {
		if m != last && r.wantsResult(m) && !st.nb[m] {
			readers++
		}
	}
	st.refs.Store(1 + readers)
	st.ready.Store(true)
	var err error
	if e := r.err.Load(); e != nil {
		err = *e
	} else {
		err = gsync.Run(func() error {
			fold := a.it.fold(a)
			var res []byte // the result, folded once for the members with handles
			for m := range tn.mem {
				if (m == last || st.nb[m]) && r.wantsResult(m) {
					d := r.c.dst[m][:a.es]
					if res == nil {
						fold.run(st.staged, d)
						res = d
					} else {
						copy(d, res)
					}
				}
			}
			return nil
		})
	}
	tn.n.eng.Arriving(-1)
	r.pend.Finish(len(tn.mem), err, r.releaseSelf, r.doneMembers(last)...)
	return gsync.Handle{}, err
}

// unref drops a use of a self-served record; the last one recycles it.
func (r *arrival) unref() {
	if r.selfSt.refs.Add(-1) == 0 {
		r.recycle()
	}
}

// checkAreas runs crossOverlap on c unless c has the buffers it last
// passed on this team (an iterative code passes the same ones each call).
func (tn *teamNode) checkAreas(c *call) error {
	if sameLists(c.dst, tn.checked[0]) && sameLists(c.src, tn.checked[1]) {
		return nil
	}
	if err := crossOverlap(c, tn); err != nil {
		return err
	}
	tn.checked[0] = append(tn.checked[0][:0], c.dst...)
	tn.checked[1] = append(tn.checked[1][:0], c.src...)
	return nil
}

// sameLists reports whether two lists hold the same buffers (same memory,
// same lengths).
func sameLists(x, y [][]byte) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if idOf(x[i]) != idOf(y[i]) {
			return false
		}
	}
	return true
}

// localFold is an image's cached fold of a self-served reduction: the
// one-node schedule's computation, over any buffers that hold the
// members' local parts.
type localFold struct {
	key  planKey // the call, buffers aside
	rd   reducer
	sh   shape
	runs [][]elemRun // by member
	segs [][][]byte  // reused by run
	tmp  []byte      // three elements
	v    partials    // the node's partials, unless folded into the destination
}

// fold is the image's fold for call a, built when the call differs from
// its last self-served one.
func (it *imageTeam) fold(a *callArgs) *localFold {
	if lf := it.lastFold; lf != nil && lf.key == a.key {
		return lf
	}
	tn, k := a.tn, a.key
	e := tn.n.fns[k.fn]
	g := tn.n.geom(tn, 0)
	g.sc = nil // buffers of its own, kept with the fold
	d := dist{Layout: k.sl, P: a.P, count: k.count}
	lf := &localFold{key: k, rd: reducer{fn: e.Fn, flags: e.Flags, arg: k.arg, es: k.es, scalar: e.Scalar}}
	lf.sh = lf.rd.shapeFor(g, d)
	lf.runs = memberRuns(g, d)
	lf.segs = make([][][]byte, lf.sh.rows)
	lf.tmp = make([]byte, 3*k.es)
	if !lf.folded() {
		lf.v = lf.sh.new(g)
	}
	it.lastFold = lf
	return lf
}

// folded reports whether the fold goes straight into the destination, as
// ownPartials does with one dense row.
func (lf *localFold) folded() bool { return lf.sh.dense && lf.sh.rows == 1 }

// run folds the members' local parts srcs into dst.
func (lf *localFold) run(srcs [][]byte, dst []byte) {
	es := lf.rd.es
	segs := segmentsInto(lf.segs, lf.runs, srcs, es)
	if lf.folded() {
		lf.rd.local(lf.sh.over(dst[:es]), segs, lf.tmp)
		return
	}
	lf.rd.local(lf.v, segs, lf.tmp)
	lf.rd.total(dst[:es], lf.v)
}
