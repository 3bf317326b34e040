package core

import (
	"context"
	"fmt"
	"slices"

	"github.com/gocoll/gocoll/coll/internal/alg"
	"github.com/gocoll/gocoll/coll/internal/exec"
	"github.com/gocoll/gocoll/coll/internal/local"
	"github.com/gocoll/gocoll/coll/internal/plan"
	"github.com/gocoll/gocoll/images"
	"github.com/gocoll/gocoll/internal/engine"
	gsync "github.com/gocoll/gocoll/sync"
)

// How an initiation becomes one operation of the node.
//
// Without AllThreads one goroutine of the node calls for all of the node's
// members of the team: with the single-address forms only where every node
// has one image, with the m forms (one address per image) anywhere. With
// AllThreads every member image calls for itself; the node's operation
// starts once the last of them arrived (so IN_MYSYNC and IN_NOSYNC hold
// per image), and each image gets its own handle, which succeeds once the
// node's part is complete to the extent of the output sync mode (a staged
// root excepted: see internal/local). Either way the node's part is one
// schedule (internal/exec) that moves data between nodes and among the node's
// members through memory.

// callArgs validates an initiation; the first problem found is kept.
type callArgs struct {
	// the Call as the node runs it: key (the schedule's cache key, filled
	// as arguments are checked) and each member's buffers (dst, src); with
	// AllThreads only the caller's entry is set
	plan.Call
	single  bool // Single addressing
	threads bool // AllThreads: the caller is one member among the node's
	multi   bool // an m form
	nb      bool // a non-blocking form: the caller gets a handle
	it      *imageTeam
	tn      *teamNode
	P       int // team size
	mine    int // the caller's member index (with AllThreads)
	es      int // element size of the computational ones
	err     error
	repeat  bool      // the team's last call again: buffers not checked (lastcall.go)
	last    *lastCall // the image's record of this call, if it passed the checks (lastcall.go)
	held    *Plan     // the persistent plan this call is a start of (persistent.go)
	// the segment flags' check (segcheck.go)
	segChecked bool
	segErr     error
}

// args starts the validation of an initiation of kind k by im on team t
// into a, a zero callArgs.
func (im *Image) args(a *callArgs, k plan.Kind, t *images.Team, root, n int, f gsync.Flags, nb, multi bool) {
	a.single, a.multi, a.nb = f&gsync.Single != 0, multi, nb
	a.threads = f&gsync.AllThreads != 0
	// a is fresh: fields set one by one, not a whole key copied over it
	a.Key.Kind, a.Key.Team, a.Key.Flags, a.Key.Root, a.Key.N = k, t, f, root, n
	if a.err = im.check(); a.err != nil {
		return
	}
	if a.it, a.err = im.team(t); a.err != nil {
		return
	}
	a.tn = a.it.tn
	a.P = t.Size()
	if a.err = checkFlags(f, nb); a.err != nil {
		return
	}
	switch {
	case multi && !a.single && a.threads:
		a.err = fmt.Errorf("%w: an m form with Local and AllThreads (each caller has one address: use the single-address form)", ErrAddressing)
	case !multi && !a.threads && im.n.multi:
		a.err = fmt.Errorf("%w: a single-address form without AllThreads where a node has several images (use the m form, or AllThreads)", ErrAddressing)
	case k < plan.Reduce && n <= 0:
		a.err = fmt.Errorf("%w: got %d", ErrNBytes, n)
	case root < 0 || root >= a.P:
		a.err = fmt.Errorf("%w: root %d, team size %d", ErrRoot, root, a.P)
	}
	if a.err != nil {
		return
	}
	// The image's own lists, reused call after call: a schedule copies
	// them (and run clears them where they hold several buffers).
	m := len(a.tn.Mem)
	if cap(im.lists[0]) < m {
		im.lists[0], im.lists[1] = make([][]byte, m), make([][]byte, m)
	}
	a.Dst, a.Src = im.lists[0][:m], im.lists[1][:m]
	a.mine = 0
	if a.threads {
		a.mine = a.it.member
	}
}

func checkFlags(f gsync.Flags, nb bool) error {
	if err := f.Validate(); err != nil {
		return err
	}
	if f&gsync.Aggregate != 0 && !nb {
		return gsync.ErrAggregateBlocking
	}
	return nil
}

// members lists whose buffers this call checks: the caller's with
// AllThreads, every member's otherwise.
func (a *callArgs) members() (lo, hi int) {
	if a.err != nil {
		return 0, 0
	}
	if a.threads {
		return a.mine, a.mine + 1
	}
	return 0, len(a.Dst)
}

// take sets argument to (a.dst or a.src) of the members from the call's
// form: one is the single-address value, list the m form's list (isList).
// A list holds one address per image: NImages with Single (entries of
// other nodes' images name memory Go cannot reach and are not used), the
// node's images with Local.
func (a *callArgs) take(to [][]byte, name string, one []byte, list [][]byte, isList bool, n *node) {
	if a.err != nil {
		return
	}
	lo, hi := a.members()
	if !isList {
		for k := lo; k < hi; k++ {
			to[k] = one
		}
		return
	}
	base, want := 0, n.table.Images()
	if !a.single {
		base, want = n.first, n.count
	}
	if len(list) != want {
		a.err = fmt.Errorf("%w: %s has %d entries, needs %d", ErrListLength, name, len(list), want)
		return
	}
	for k := lo; k < hi; k++ {
		to[k] = list[a.tn.Team.Image(a.tn.Mem[k])-base]
	}
}

// need checks a buffer of at least n bytes that applies to the caller (or
// must be given anyway under Single addressing).
func (a *callArgs) need(name string, k int, b []byte, n int, applies bool) {
	if a.err != nil || !(applies || a.single) {
		return
	}
	switch {
	case b == nil:
		a.err = fmt.Errorf("%w: %s%s", ErrNilBuffer, name, a.whose(k))
	case len(b) < n:
		a.err = fmt.Errorf("%w: %s%s has %d bytes, needs %d", ErrShortBuffer, name, a.whose(k), len(b), n)
	}
}

// whose names member k in errors of the m forms.
func (a *callArgs) whose(k int) string {
	if !a.multi {
		return ""
	}
	return fmt.Sprintf(" of image %d", a.tn.Team.Image(a.tn.Mem[k]))
}

// disjoint reports plan.ErrOverlap when x and y share memory, unless
// identicalOK and they are the same block.
func (a *callArgs) disjoint(x, y []byte, check, identicalOK bool) {
	if a.err != nil || !check || !alg.Overlap(x, y) {
		return
	}
	if identicalOK && alg.Identical(x, y) {
		return
	}
	a.err = plan.ErrOverlap
}

// run initiates the call once its arguments are valid: at once for a
// representative, or once the node's last member arrived with AllThreads.
func (im *Image) run(a *callArgs) (h engine.Handle, err error) {
	switch {
	case a.err != nil:
		err = a.err
	case a.segmentErr() != nil:
		err = a.segmentErr()
	case im.n.anyGone.Load() && a.tn != nil && im.n.goneFrom(a.tn) != nil:
		err = im.n.goneFrom(a.tn)
	case im.rec != nil:
		err = im.record(a)
	default:
		switch p := im.n.route(a); p {
		case pathRecords:
			h, err = a.it.Arrive(&local.Args{Call: &a.Call, Mine: a.mine, NB: a.nb, Route: im.n.localRoute(a)})
		case pathArrival:
			h, err = a.tn.arrivals.Arrive(&a.it.Member, &local.Args{Call: &a.Call, Mine: a.mine, NB: a.nb})
		default:
			c := &a.Call
			if len(c.Dst) > 1 {
				err = plan.CrossOverlap(c, a.tn.Team, a.tn.Mem)
			}
			if err == nil {
				c.Key.Bufs(c)
				h, err = im.n.start(a, p)
			}
		}
	}
	if err == nil && a.Key.Kind != plan.Barrier && im.rec == nil {
		a.it.aggOpen = a.Key.Flags&gsync.Aggregate != 0
	}
	if len(a.Dst) > 1 && !a.tn.Local {
		// What the image's lists point to is not its to keep alive. (On a
		// team that lives on the node, the records keep the buffers until
		// they serve again anyway: internal/local.)
		clear(a.Dst)
		clear(a.Src)
	}
	clear(a.V)                    // the caller's lists of counts: schedules and records keep copies
	return h, engine.Rethrow(err) // a reduction function's panic, on this goroutine
}

// start initiates the schedule of a's call, cached or built, on path p
// (pathAggregate: it joins or ends an aggregate, internal/exec/aggregate.go; pathAlone:
// it runs to its end on the caller's goroutine if the engine lets it,
// engine.Engine.RunAlone; else in the engine).
func (n *node) start(a *callArgs, p path) (engine.Handle, error) {
	tn, c := a.tn, &a.Call
	agg := p == pathAggregate
	if !agg && !n.checking(tn) {
		return n.launch(n.planOp(a), p, a.it)
	}
	base := tn.NextTagBase()
	if err := n.agreeOn(tn, c, base); err != nil {
		return engine.Handle{}, err
	}
	if !agg {
		op := n.planOp(a)
		op.Preset, op.TagBase = true, base
		return n.launch(op, p, a.it)
	}
	ag, err := tn.JoinAggregate(c, base)
	if ag == nil || err != nil {
		return engine.Handle{}, err
	}
	return n.eng.Start(ag)
}

// planOp is the schedule of a's call: its persistent plan's
// (persistent.go); or the one its last call record (lastcall.go) refers
// to, if still cached and idle; else the node's (op), which the record
// then keeps.
func (n *node) planOp(a *callArgs) *exec.Sched {
	if a.held != nil {
		return n.heldOp(a, a.held)
	}
	pl := a.last
	if pl != nil {
		if op := n.Plans.Again(a.Key.Kind, pl.ref); op != nil {
			return op
		}
	}
	op := n.op(a.tn, &a.Call)
	if pl != nil {
		pl.ref = op.Ref
	}
	return op
}

// launch runs op alone on pathAlone if the engine lets it, else starts it
// in the engine.
func (n *node) launch(op *exec.Sched, p path, it *imageTeam) (engine.Handle, error) {
	if p == pathAlone {
		if ran, err := n.eng.RunAlone(context.Background(), op); ran {
			n.took(it, pathAlone)
			return engine.Handle{}, err
		}
	}
	n.took(it, pathEngine)
	return n.eng.Start(op)
}

// op is the schedule of c: a cached one that is idle, else a new one.
func (n *node) op(tn *teamNode, c *plan.Call) *exec.Sched {
	op := n.Plans.Take(c)
	if op == nil {
		op = n.newOp(tn, c)
		n.Plans.Keep(op)
	}
	return op
}

// newOp builds the schedule of c.
func (n *node) newOp(tn *teamNode, c *plan.Call) *exec.Sched {
	// The schedule keeps the lists of buffers: its own copies, since the
	// caller's may live on its stack.
	cc := plan.Call{Key: c.Key, Dst: slices.Clone(c.Dst), Src: slices.Clone(c.Src), V: c.V}
	g := tn.Geom(c.Key.N)
	return exec.NewSched(&tn.TeamNode, &cc, alg.WithSync(g, c.Key.Flags, n.Build(g, &cc)), g.Scratch, n.segMode(&cc.Key))
}

// Start makes the node's operation for an arrival record's call c, once
// its last member arrived (local.Node): the checked agreement, the
// overlap checks between the node's members, then an aggregate's or the
// call's own schedule.
func (tn *teamNode) Start(c *plan.Call, tagBase int) (op *exec.Sched, ag *exec.AggOp, member bool, err error) {
	if err := tn.n.agreeOn(tn, c, tagBase); err != nil {
		return nil, nil, false, err
	}
	if err := plan.CrossOverlap(c, tn.Team, tn.Mem); err != nil {
		return nil, nil, false, err
	}
	c.Key.Bufs(c)
	if tn.aggregating(c) {
		ag, err := tn.JoinAggregate(c, tagBase)
		return nil, ag, ag == nil, err
	}
	op = tn.n.op(tn, c)
	op.BindAs(0, tagBase)
	return op, nil, false, nil
}
