package exec

import (
	"slices"
	stdsync "sync"
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
// buffer does not have it kept. A schedule that would pass the budget
// takes the room of idle ones, least recently run first (evict): the
// large collectives of a phase that is over do not keep the next phase's
// from the cache.

// A cached schedule is also reached from the plan of the image that ran
// it (core's lastCall), by a CacheRef, without a lookup.

// sameBufs reports whether o was built for c's buffers (and a v-call's
// extents: their hash is in the key, the lists are compared here).
func (o *Sched) sameBufs(c *plan.Call) bool {
	if c.V != nil && !plan.SameV(o.v, c.V) {
		return false
	}
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

// Cache holds a node's cached schedules. Lookups happen outside the
// engine's lock, retirements inside it, so entries are atomic.
type Cache struct {
	ways   [plan.NumKinds][planWays]atomic.Pointer[Sched]
	victim [plan.NumKinds]atomic.Uint32
	held   atomic.Int64  // bytes the cached schedules hold
	ids    atomic.Uint64 // the last id given to a cached schedule or aggregate: the cache's clock
	aggMu  stdsync.Mutex // guards aggs (a team's Aggregate.mu may be held when it is taken; under it, one is only tried)
	aggs   []*Aggregate  // the teams' aggregate caches that hold entries
}

// list adds ag to the aggregate caches evict looks at, or takes it off.
func (c *Cache) list(ag *Aggregate, on bool) {
	c.aggMu.Lock()
	defer c.aggMu.Unlock()
	if on {
		c.aggs = append(c.aggs, ag)
		return
	}
	if i := slices.Index(c.aggs, ag); i >= 0 {
		c.aggs = slices.Delete(c.aggs, i, i+1)
	}
}

// Take returns the cached schedule for call cl, reset, if no operation runs it now.
func (c *Cache) Take(cl *plan.Call) *Sched {
	k := &cl.Key
	for w := range c.ways[k.Kind] {
		o := c.ways[k.Kind][w].Load()
		if o != nil && o.key.Equal(k) && o.sameBufs(cl) && o.Idle.CompareAndSwap(true, false) {
			c.touch(&o.used)
			o.Reset()
			return o
		}
	}
	return nil
}

// touch marks a cached schedule or aggregate (its used) as run now, by
// the cache's clock: a store only where the clock moved since it last ran.
func (c *Cache) touch(used *atomic.Uint64) {
	if t := c.ids.Load(); used.Load() != t {
		used.Store(t)
	}
}

// evict makes room for need more bytes within the budget, as far as it
// can, by dropping idle cached schedules and aggregates, the least
// recently run first. What runs is never dropped, nor an aggregate whose
// team's lock is taken (the caller may hold it: that team's cache
// replaces its own entries).
func (c *Cache) evict(need int64) {
	for tries := 0; c.held.Load()+need > planBudget && tries < 8; {
		var way *atomic.Pointer[Sched]
		var old *Sched
		for k := range c.ways {
			for w := range c.ways[k] {
				o := c.ways[k][w].Load()
				if o != nil && o.Idle.Load() && (old == nil || o.used.Load() < old.used.Load()) {
					way, old = &c.ways[k][w], o
				}
			}
		}
		var agOld *AggOp
		var agOf *Aggregate
		c.aggMu.Lock() // the teams' locks are only tried under it, never waited for
		for _, ag := range c.aggs {
			if a := ag.oldestIdle(); a != nil && (agOld == nil || a.used.Load() < agOld.used.Load()) {
				agOld, agOf = a, ag
			}
		}
		c.aggMu.Unlock()
		switch {
		case agOld != nil && (old == nil || agOld.used.Load() < old.used.Load()):
			if !agOf.evictIdle(c, agOld) {
				tries++
			}
		case old == nil:
			return
		case !old.Idle.CompareAndSwap(true, false):
			tries++ // it runs again: look again
		case !way.CompareAndSwap(old, nil):
			old.Idle.Store(true)
			tries++
		default:
			c.held.Add(-int64(old.held))
			old.sc.Release() // claimed above, so nothing runs it
		}
	}
}

// Keep caches o, a schedule about to start, in place of an idle or absent
// entry, within the budget; o stays busy until retired.
func (c *Cache) Keep(o *Sched) {
	size := o.heldBytes()
	if size > planBudget {
		return
	}
	c.evict(int64(size))
	ws := &c.ways[o.key.Kind]
	v := int(c.victim[o.key.Kind].Add(1))
	for i := range planWays {
		w := &ws[(v+i)%planWays]
		old := w.Load()
		if old != nil && !old.Idle.CompareAndSwap(true, false) {
			continue // in use
		}
		d := int64(size)
		if old != nil {
			d -= int64(old.held)
		}
		if c.held.Add(d) <= planBudget {
			o.Cached, o.held = true, size
			o.Ref = CacheRef{way: (v + i) % planWays, id: c.ids.Add(1)}
			o.used.Store(o.Ref.id)
			if w.CompareAndSwap(old, o) {
				o.keepFresh()
				if old != nil { // claimed above, so nothing runs it
					old.sc.Release()
				}
				return
			}
			o.Cached, o.Ref = false, CacheRef{}
		}
		c.held.Add(-d)
		if old != nil {
			old.Idle.Store(true)
		}
	}
}

// heldBytes is what o keeps from the GC and the pools while cached: its
// internal buffers and its client buffers.
func (o *Sched) heldBytes() int {
	n := o.sc.Bytes()
	if o.bufs == nil {
		return n + o.key.Dst.N + o.key.Src.N
	}
	for _, id := range o.bufs {
		n += id.N
	}
	return n
}

// CacheRef is where a cache holds a schedule: its way and its id, unique
// on the node, so that a schedule that replaced it is never taken for it.
// The zero CacheRef refers to none.
type CacheRef struct {
	way int
	id  uint64
}

// Again takes the schedule of kind k that ref refers to back, reset, if
// it is still cached there and idle.
func (c *Cache) Again(k plan.Kind, ref CacheRef) *Sched {
	if ref.id == 0 {
		return nil
	}
	o := c.ways[k][ref.way].Load()
	if o == nil || o.Ref != ref || !o.Idle.CompareAndSwap(true, false) {
		return nil
	}
	c.touch(&o.used)
	o.Reset()
	return o
}
