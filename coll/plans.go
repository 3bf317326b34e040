package coll

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/gocoll/gocoll/coll/internal/alg"
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

// kind names a collective in a planKey.
type kind uint8

const (
	kBarrier kind = iota
	kBroadcast
	kScatter
	kGather
	kGatherAll
	kExchange
	kReduce
	kReduceAll
	kPrefix
	kExclusivePrefix
	numKinds
)

// kindNames are the kinds as the API names them (errors, ErrMismatch and
// ErrStalled messages).
var kindNames = [numKinds]string{"Barrier", "Broadcast", "Scatter", "Gather", "GatherAll", "Exchange",
	"Reduce", "ReduceAll", "PrefixReduce", "ExclusivePrefixReduce"}

func (k kind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// planKey is every argument a schedule depends on. Where the node has
// several members, dst and src are member 0's buffers and bh a hash of
// every member's; the schedule keeps the full list to compare (bufs).
type planKey struct {
	kind     kind
	team     *images.Team
	f        gsync.Flags
	root, n  int
	dst, src bufID
	bh       uint64
	// the computational collectives
	es, count, fn, arg int
	sl, dl             alg.Layout
}

// equal reports whether k and o are the same key: what == says, field by
// field, since the compiler's == of a struct this size calls memequal
// (doubling.go and the plan cache compare keys on every call).
// TestPlanKeyEqual checks that it sees every field.
func (k *planKey) equal(o *planKey) bool {
	return k.kind == o.kind && k.team == o.team && k.f == o.f && k.root == o.root && k.n == o.n &&
		k.dst == o.dst && k.src == o.src && k.bh == o.bh &&
		k.es == o.es && k.count == o.count && k.fn == o.fn && k.arg == o.arg && k.sl == o.sl && k.dl == o.dl
}

// bufID identifies a client buffer. A cached schedule holds the buffer, so
// its address cannot be reused for another while the entry exists.
type bufID struct {
	p *byte
	n int
}

func idOf(b []byte) bufID { return bufID{unsafe.SliceData(b), len(b)} }

// bufs fills the key's buffer identities from c's members.
func (k *planKey) bufs(c *call) {
	k.dst, k.src, k.bh = idOf(c.dst[0]), idOf(c.src[0]), 0
	if len(c.dst) == 1 {
		return
	}
	h := uint64(len(c.dst))
	for _, l := range [2][][]byte{c.dst, c.src} {
		for _, b := range l {
			h = (h ^ uint64(uintptr(unsafe.Pointer(unsafe.SliceData(b))))) * 0x100000001b3
			h = (h ^ uint64(len(b))) * 0x100000001b3
		}
	}
	k.bh = h
}

// bufIDs lists every member's destination, then every member's source.
func bufIDs(c *call) []bufID {
	ids := make([]bufID, 0, 2*len(c.dst))
	for _, b := range c.dst {
		ids = append(ids, idOf(b))
	}
	for _, b := range c.src {
		ids = append(ids, idOf(b))
	}
	return ids
}

// sameBufs reports whether o was built for c's buffers.
func (o *schedOp) sameBufs(c *call) bool {
	if len(c.dst) == 1 {
		return o.bufs == nil
	}
	if len(o.bufs) != 2*len(c.dst) {
		return false
	}
	for k := range c.dst {
		if o.bufs[k] != idOf(c.dst[k]) || o.bufs[len(c.dst)+k] != idOf(c.src[k]) {
			return false
		}
	}
	return true
}

// sameCall reports whether two keys name the same collective with the same
// arguments, buffers aside: what a node's images must agree on.
func (k *planKey) sameCall(u *planKey) bool {
	a, b := *k, *u
	a.dst, a.src, a.bh = bufID{}, bufID{}, 0
	b.dst, b.src, b.bh = bufID{}, bufID{}, 0
	return a == b
}

const (
	planWays   = 4        // cached schedules per kind of collective
	planBudget = 64 << 20 // bytes the cached schedules of a node hold
)

// planCache holds a node's cached schedules. Lookups happen outside the
// engine's lock, retirements inside it, so entries are atomic.
type planCache struct {
	ways   [numKinds][planWays]atomic.Pointer[schedOp]
	victim [numKinds]atomic.Uint32
	held   atomic.Int64 // bytes the cached schedules hold
}

// take returns the cached schedule for call cl, reset, if no operation runs it now.
func (c *planCache) take(cl *call) *schedOp {
	k := &cl.key
	for w := range c.ways[k.kind] {
		o := c.ways[k.kind][w].Load()
		if o != nil && o.key.equal(k) && o.sameBufs(cl) && o.idle.CompareAndSwap(true, false) {
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
	ws := &c.ways[o.key.kind]
	v := int(c.victim[o.key.kind].Add(1))
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
		return n + o.key.dst.n + o.key.src.n
	}
	for _, id := range o.bufs {
		n += id.n
	}
	return n
}
