package coll

import (
	"sync/atomic"
	"unsafe"

	"github.com/gocoll/gocoll/images"
	gsync "github.com/gocoll/gocoll/sync"
)

// Schedules are cached per image, as the design asks (per team and size):
// building one allocates a dozen small objects and costs more than moving
// 8 bytes, while iterative codes call the same collective on the same
// buffers again and again. A schedule depends only on the call's arguments
// and the image's fixed state, so equal keys give equal schedules, and a
// cached one is run again once the operation that last ran it has been
// retired. Internal buffers go with the schedule; every schedule writes them
// before reading them, so stale contents do no harm.
//
// Only small schedules are kept (internal and client buffers of at most
// cacheMaxBytes): for large ones the building is noise, and a cached
// schedule keeps its buffers until it is replaced.

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

// planKey is every argument a schedule depends on.
type planKey struct {
	kind     kind
	team     *images.Team
	f        gsync.Flags
	root, n  int
	dst, src bufID
	// the computational collectives
	es, count, fn, arg int
	sl, dl             Layout
}

// bufID identifies a client buffer. A cached schedule holds the buffer, so
// its address cannot be reused for another while the entry exists.
type bufID struct {
	p *byte
	n int
}

func idOf(b []byte) bufID { return bufID{unsafe.SliceData(b), len(b)} }

const (
	planWays      = 4        // cached schedules per kind of collective
	cacheMaxBytes = 64 << 10 // largest client buffer of a cached schedule
)

// planCache holds an image's cached schedules. Lookups happen outside the
// engine's lock, retirements inside it, so entries are atomic.
type planCache struct {
	ways   [numKinds][planWays]atomic.Pointer[schedOp]
	victim [numKinds]atomic.Uint32
}

// take returns the cached schedule for k, reset, if no operation runs it now.
func (c *planCache) take(k *planKey) *schedOp {
	for w := range c.ways[k.kind] {
		o := c.ways[k.kind][w].Load()
		if o != nil && o.key == *k && o.idle.CompareAndSwap(true, false) {
			o.reset()
			return o
		}
	}
	return nil
}

// keep caches o, a schedule about to start, in place of an idle or absent
// entry; o stays busy until retired.
func (c *planCache) keep(o *schedOp) {
	if o.sc.bytes() > cacheMaxBytes || o.key.dst.n > cacheMaxBytes || o.key.src.n > cacheMaxBytes {
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
		o.cached = true
		if w.CompareAndSwap(old, o) {
			if old != nil { // claimed above, so nothing runs it
				old.sc.release()
			}
			return
		}
		o.cached = false
		if old != nil {
			old.idle.Store(true)
		}
	}
}
