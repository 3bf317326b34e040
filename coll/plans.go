package coll

import (
	"sync/atomic"

	"github.com/gocoll/gocoll/coll/internal/plan"
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
	held   atomic.Int64 // bytes the cached schedules hold
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
			if w.CompareAndSwap(old, o) {
				if old != nil { // claimed above, so nothing runs it
					old.sc.Release()
				}
				return
			}
			o.cached = false
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
