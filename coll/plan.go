package coll

import (
	"github.com/gocoll/gocoll/coll/internal/core"
	gsync "github.com/gocoll/gocoll/sync"
)

// Plan is one collective call set up once and started many times, as
// MPI-4's persistent collectives (MPI_Allreduce_init, MPI_Start): an
// iterative code's dot product or halo exchange, made on the same buffers
// at every step. A start does no argument checks, allocates nothing and
// runs a schedule the plan keeps.
//
// A plan is made collectively, as its call would be: every image of the
// team makes the plan of the same call (each with its own buffers), and
// starts it in the same order as its other collectives on the team; a
// start is that collective. Between a start and its sync the buffers are
// the collective's, as for any NB call; a v-call's counts and
// displacements are copied into the plan when it is made. What is checked
// cheaply is:
//   - a start while the last start's handle has not synced: ErrPlanBusy;
//   - a start or Free after Free: ErrPlanFreed;
//   - a start after the team was destroyed (ErrTeamDestroyed) or the image
//     closed (ErrClosed).
//
// Freeing is collective too: each image frees its plan once its last start
// synced, and no image starts it after any image freed it (an image that
// did would wait for the others, which no longer take part).
type Plan struct{ p *core.Plan }

// ErrPlan reports a plan's function that made no collective call, or
// more than one, or made or destroyed a team, or closed the image.
var ErrPlan = core.ErrPlan

// ErrPlanBusy reports a start of a plan (or its Free) while its last start
// has not synced: one start is in flight per plan.
var ErrPlanBusy = core.ErrPlanBusy

// ErrPlanFreed reports a start or Free of a plan already freed.
var ErrPlanFreed = core.ErrPlanFreed

// NewPlan makes a plan of the one collective call that call makes on im:
// any collective, in any form (blocking or NB, single or m addressing,
// typed or not), with any flags. The call's arguments are checked as the
// call would check them, and its error is NewPlan's; but the call is
// recorded, not run: nothing moves until Start. A plan of a blocking form
// starts as that form runs (Start returns once it would); a plan of an NB
// form returns a handle to sync.
func (im *Image) NewPlan(call func() error) (*Plan, error) {
	p, err := im.core().NewPlan(call)
	if err != nil {
		return nil, err
	}
	return &Plan{p}, nil
}

// Start starts the plan's call and returns its handle (the invalid
// handle for a plan of a blocking form, which returns once done).
func (p *Plan) Start() (gsync.Handle, error) {
	return public(p.core().Start())
}

// Run starts the plan's call and waits for its sync: one step of an
// iterative code.
func (p *Plan) Run() error {
	return p.core().Run()
}

// Free ends the plan (see Plan); its schedule's buffers go back to their
// pools.
func (p *Plan) Free() error {
	return p.core().Free()
}

// core is the plan's state; a nil Plan has a nil one, whose methods
// report ErrNotInitialized.
func (p *Plan) core() *core.Plan {
	if p == nil {
		return nil
	}
	return p.p
}
