package coll

import (
	"sync/atomic"
	"unsafe"

	"github.com/gocoll/gocoll/coll/internal/alg"
	"github.com/gocoll/gocoll/coll/internal/plan"
	"github.com/gocoll/gocoll/images"
	gsync "github.com/gocoll/gocoll/sync"
)

// Schedules are cached per node, as the design asks (per team and size):
// building one allocates a dozen small objects and costs more than moving
// 8 bytes, while iterative codes call the same collective on the same
// buffers again and again. A schedule depends only on the call's arguments
// and the node's fixed state, so equal keys give equal schedules, and a
// cached one is run again once the operation that last ran it has been
// retired. Internal buffers go with the schedule; every schedule writes them
// before reading them, so stale contents do no harm.
//
// A cached schedule keeps its buffers (internal ones, and the client's,
// which the GC cannot free while it is cached) until it is replaced, so
// the schedules a node caches (its teams' aggregates too: aggregate.go)
// hold at most planBudget bytes between them: an iterative code's large
// collectives are cached too (building one allocates as much as a small
// one's, on every call), a program that calls a collective once on a huge
// buffer does not have it kept.

// A cached schedule is also reached from the plan of the image that ran
// it (imagePlan, below), by its way and id, without a lookup.

// sameBufs reports whether o was built for c's buffers.
func (o *schedOp) sameBufs(c *plan.Call) bool {
	if len(c.Dst) == 1 {
		return o.bufs == nil
	}
	if len(o.bufs) != 2*len(c.Dst) {
		return false
	}
	for k := range c.Dst {
		if o.bufs[k] != plan.IDOf(c.Dst[k]) || o.bufs[len(c.Dst)+k] != plan.IDOf(c.Src[k]) {
			return false
		}
	}
	return true
}

const (
	planWays   = 4        // cached schedules per kind of collective
	planBudget = 64 << 20 // bytes the cached schedules of a node hold
)

// planCache holds a node's cached schedules. Lookups happen outside the
// engine's lock, retirements inside it, so entries are atomic.
type planCache struct {
	ways   [plan.NumKinds][planWays]atomic.Pointer[schedOp]
	victim [plan.NumKinds]atomic.Uint32
	held   atomic.Int64  // bytes the cached schedules hold
	ids    atomic.Uint64 // the last id given to a cached schedule
}

// take returns the cached schedule for call cl, reset, if no operation runs it now.
func (c *planCache) take(cl *plan.Call) *schedOp {
	k := &cl.Key
	for w := range c.ways[k.Kind] {
		o := c.ways[k.Kind][w].Load()
		if o != nil && o.key.Equal(k) && o.sameBufs(cl) && o.idle.CompareAndSwap(true, false) {
			o.reset()
			return o
		}
	}
	return nil
}

// keep caches o, a schedule about to start, in place of an idle or absent
// entry, within the budget; o stays busy until retired.
func (c *planCache) keep(o *schedOp) {
	size := o.heldBytes()
	if size > planBudget {
		return
	}
	ws := &c.ways[o.key.Kind]
	v := int(c.victim[o.key.Kind].Add(1))
	for i := range planWays {
		w := &ws[(v+i)%planWays]
		old := w.Load()
		if old != nil && !old.idle.CompareAndSwap(true, false) {
			continue // in use
		}
		d := int64(size)
		if old != nil {
			d -= int64(old.held)
		}
		if c.held.Add(d) <= planBudget {
			o.cached, o.held = true, size
			o.way, o.id = (v+i)%planWays, c.ids.Add(1)
			if w.CompareAndSwap(old, o) {
				if old != nil { // claimed above, so nothing runs it
					old.sc.Release()
				}
				return
			}
			o.cached, o.id = false, 0
		}
		c.held.Add(-d)
		if old != nil {
			old.idle.Store(true)
		}
	}
}

// heldBytes is what o keeps from the GC and the pools while cached: its
// internal buffers and its client buffers.
func (o *schedOp) heldBytes() int {
	n := o.sc.Bytes()
	if o.bufs == nil {
		return n + o.key.Dst.N + o.key.Src.N
	}
	for _, id := range o.bufs {
		n += id.N
	}
	return n
}

// again takes the schedule of a's plan back, reset, if a has one that is
// still cached and idle (see imagePlan).
func (c *planCache) again(a *callArgs) *schedOp {
	pl := a.plan
	if pl == nil || pl.id == 0 {
		return nil
	}
	o := c.ways[a.Key.Kind][pl.way].Load()
	if o == nil || o.id != pl.id || !o.idle.CompareAndSwap(true, false) {
		return nil
	}
	o.reset()
	return o
}

// An image's plan of a call. A scientific code calls the same
// computational collective on the same buffers again and again (a time
// step's MPI_Allreduce, a Fortran CO_SUM in a loop). Checking the call
// (flags, form, function, layouts, and each member's buffers against
// them) is a visible part of a small collective (BenchmarkReduceAllOneNode),
// and what it decides depends on nothing but the call's arguments and the
// addresses and lengths of its buffers: a team's members, the node's
// images and the function table never change. So an image keeps, per
// team, the plan of its last single-address computational call that
// passed the checks: its validated arguments, ready to run, and the
// cached schedule it ran (where the image makes the node's call). A call
// with the same arguments on the same buffers takes the plan as it is
// (Image.again): no checks, and its schedule without a lookup, if it is
// still cached and idle. What can change between two calls is still
// checked on every call: the image (closed, or reentered from a reduction
// function), the team (destroyed), and at run time the segment flags.
//
// The m forms are always checked: their lists may change in place.

// imagePlan is a call that passed the checks: its validated arguments
// (without the image's buffer lists, which the next call refills), and
// its buffers' addresses and lengths, as numbers, so that the image does
// not keep the caller's memory alive; and its schedule as the way and id
// it has in the node's cache (not a pointer, which would keep the
// schedule and its buffers alive once the cache let it go). An address
// may come back for other memory; the checks' verdict on the same
// addresses and lengths is the same. The zero imagePlan matches no call:
// its kind is no computational one.
type imagePlan struct {
	args     callArgs
	dst, src uintptr
	dn, sn   int
	way      int
	id       uint64 // 0: no schedule
}

// again fills a, a zero callArgs, with the arguments of its team's plan
// and reports true when the call (compArgs' arguments, a single-address
// form) repeats it; a.repeat then tells the caller to skip its buffer
// checks.
func (im *Image) again(a *callArgs, k plan.Kind, t *images.Team, root int, sl, dl alg.Layout, es, count, fn, arg int, f gsync.Flags, nb bool, dst, src []byte) bool {
	if im.check() != nil {
		return false // the checks report it
	}
	it, err := im.team(t)
	if err != nil {
		return false
	}
	p := &it.plan
	q := &p.args.Key
	if q.Kind != k || q.Flags != f || q.Root != root || q.ElemSize != es || q.Count != count || q.Fn != fn || q.Arg != arg ||
		q.SrcLayout != sl || q.DstLayout != dl || p.args.nb != nb ||
		p.dst != address(dst) || p.dn != len(dst) || p.src != address(src) || p.sn != len(src) {
		return false
	}
	m := len(p.args.tn.mem)
	*a = p.args
	a.Dst, a.Src = im.lists[0][:m], im.lists[1][:m] // as args sets them
	a.repeat, a.plan = true, p
	im.n.planned(it)
	return true
}

// passed makes a's call its team's plan, if it passed the checks, with
// its single-address buffers dst and src.
func (a *callArgs) passed(dst, src []byte) {
	if a.err != nil || a.multi {
		return
	}
	p := &a.it.plan
	p.args = *a
	p.args.Dst, p.args.Src = nil, nil
	p.dst, p.dn, p.src, p.sn = address(dst), len(dst), address(src), len(src)
	p.id = 0
	a.plan = p
}

// address is where b starts, 0 for nil.
func address(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }
