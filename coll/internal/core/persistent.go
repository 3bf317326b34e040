package core

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/gocoll/gocoll/coll/internal/exec"
	"github.com/gocoll/gocoll/coll/internal/plan"
	"github.com/gocoll/gocoll/internal/engine"
)

// Persistent plans (MPI-4's persistent collectives, MPI_Allreduce_init and
// its kin). A plan is made by running a function that makes one
// collective call: while it runs, the image records the call (checked as
// any call is) instead of starting it (Image.run). So every collective,
// in every form (blocking or NB, single or m addressing, typed or not),
// has its plan with no second entry point per collective. Each start runs
// the recorded call: no argument checks, no allocation, and on the paths
// that run a schedule of the node the plan's own one, held by the plan
// (not the node's cache, which may drop it), without a lookup. What can
// change between two starts is still checked: the image (closed, or
// reentered from a reduction function), the team (destroyed), and a start
// whose handle was not synced. (The segment flags' check, which depends on
// the buffers alone, is the recorded call's.)

// Errors of plans, as package coll exports them.
var (
	ErrPlan      = errors.New("gocoll: a plan's function must make exactly one collective call")
	ErrPlanBusy  = errors.New("gocoll: the plan's last start was not synced")
	ErrPlanFreed = errors.New("gocoll: the plan was freed")
)

// Plan is coll.Plan: a call checked once, started many times.
type Plan struct {
	im    *Image
	a     callArgs      // the recorded call, with buffer lists of its own
	op    *exec.Sched   // its schedule, held; nil until a start needs one
	h     engine.Handle // the last start's handle
	made  bool          // a call was recorded
	freed bool
}

// NewPlan records the one collective call that call makes as a plan.
func (im *Image) NewPlan(call func() error) (*Plan, error) {
	if err := im.check(); err != nil {
		return nil, err
	}
	if im.rec != nil {
		return nil, fmt.Errorf("%w: a plan made while making a plan", ErrPlan)
	}
	p := &Plan{im: im}
	im.rec = p
	defer func() { im.rec = nil }()
	if err := call(); err != nil {
		return nil, err
	}
	if !p.made {
		return nil, fmt.Errorf("%w: the function made none", ErrPlan)
	}
	return p, nil
}

// record makes a's call, which passed the checks, the plan being made.
func (im *Image) record(a *callArgs) error {
	p := im.rec
	if p.made {
		return fmt.Errorf("%w: the function made a second one", ErrPlan)
	}
	p.a = *a
	p.a.Dst, p.a.Src, p.a.V = slices.Clone(a.Dst), slices.Clone(a.Src), plan.CloneV(a.V)
	p.a.repeat, p.a.last = false, nil
	p.made = true
	return nil
}

// Start starts the plan's call. A plan of a blocking form returns once
// that form would, with the invalid handle.
func (p *Plan) Start() (engine.Handle, error) {
	if p == nil || p.im == nil {
		return engine.Handle{}, ErrNotInitialized
	}
	im := p.im
	switch {
	case p.freed:
		return engine.Handle{}, ErrPlanFreed
	case im.rec != nil:
		return engine.Handle{}, fmt.Errorf("%w: a plan started while making a plan", ErrPlan)
	case p.h.Valid() && p.h.Unsynced():
		return engine.Handle{}, ErrPlanBusy
	}
	if err := im.check(); err != nil {
		return engine.Handle{}, err
	}
	if _, err := im.team(p.a.Key.Team); err != nil {
		return engine.Handle{}, err
	}
	// The call runs on a copy, its lists in the image's (as args sets
	// them): the node-local path fills a member's lists with the others'
	// buffers, and run clears them.
	a := p.a
	m := len(a.Dst)
	a.Dst, a.Src = im.lists[0][:m], im.lists[1][:m]
	copy(a.Dst, p.a.Dst)
	copy(a.Src, p.a.Src)
	if p.a.V != nil {
		a.V = im.vlist[:m]
		copy(a.V, p.a.V)
	}
	a.held = p
	h, err := im.run(&a)
	if !a.nb {
		return engine.Handle{}, Wait(h, err)
	}
	p.h = h
	return h, err
}

// Run starts the plan's call and waits for its sync.
func (p *Plan) Run() error {
	h, err := p.Start()
	if err != nil || !h.Valid() {
		return err
	}
	err = h.Wait(context.Background())
	p.h = engine.Handle{} // synced: Start need not ask
	return err
}

// heldOp is the schedule of a start of plan p: its own, if idle, built
// at its first start. One still in flight from the last start (whose
// handle synced before its last sends completed: OUT_NOSYNC) leaves this
// start to a schedule of the node's.
func (n *node) heldOp(a *callArgs, p *Plan) *exec.Sched {
	switch op := p.op; {
	case op == nil:
		op = n.newOp(a.tn, &a.Call)
		op.Hold()
		p.op = op
		return op
	case op.Idle.CompareAndSwap(true, false):
		op.Reset()
		return op
	}
	return n.op(a.tn, &a.Call)
}

// Free ends the plan: later starts fail with ErrPlanFreed. Its last start
// must have synced.
func (p *Plan) Free() error {
	switch {
	case p == nil || p.im == nil:
		return ErrNotInitialized
	case p.freed:
		return ErrPlanFreed
	case p.h.Valid() && p.h.Unsynced():
		return ErrPlanBusy
	}
	p.freed = true
	if op := p.op; op != nil && op.Idle.CompareAndSwap(true, false) {
		op.Release()
	}
	p.op, p.a, p.h = nil, callArgs{}, engine.Handle{}
	return nil
}
