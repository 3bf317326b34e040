package colltest

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/images"
	gsync "github.com/gocoll/gocoll/sync"
)

// Case is one conformance check of the data-movement collectives. Every
// node of a job runs the same cases in the same order; Run returns this
// node's verdict.
type Case struct {
	Name string
	Run  func(im *coll.Image, mem Memory) error
}

// SuiteConfig sizes the suite.
type SuiteConfig struct {
	// Outstanding is how many broadcasts the outstanding-operations case
	// keeps in flight (the spec's floor is 65535).
	Outstanding int
	// Sizes are the block sizes of the nine-modes case.
	Sizes []int
	// InFlight is how many collectives the non-blocking case starts at once.
	InFlight int
}

// MemoryNeed is the Memory per node that Suite's ALL/ALL case uses for P nodes.
func MemoryNeed(P int) int { return 2 * P * allSize }

const allSize = 300 // block size of the ALL/ALL case

// Suite is the conformance suite of the five data-movement collectives:
// MY/MY chained calls, ALL/ALL with a peer writing inputs and reading
// outputs remotely, NO/NO batches between barriers, many non-blocking
// operations synced in a per-node order, all nine sync modes over sizes,
// and many outstanding broadcasts. Every value depends on the iteration,
// node and block, so a stale or misplaced block is seen.
func Suite(cfg SuiteConfig) []Case {
	if cfg.Outstanding == 0 {
		cfg.Outstanding = 65535
	}
	if cfg.Sizes == nil {
		cfg.Sizes = []int{1, 100, 4096, 65536}
	}
	if cfg.InFlight == 0 {
		cfg.InFlight = 300
	}
	return []Case{
		{"MY/MY chained", caseMyMy},
		{"ALL/ALL remote", caseAllAll},
		{"NO/NO batch", caseNoNo},
		{"NB in flight", func(im *coll.Image, _ Memory) error { return caseNB(im, cfg.InFlight) }},
		{"nine sync modes", func(im *coll.Image, _ Memory) error { return caseNineModes(im, cfg.Sizes) }},
		{"outstanding broadcasts", func(im *coll.Image, _ Memory) error { return caseOutstanding(im, cfg.Outstanding) }},
	}
}

// val is the byte at index i of block b of node's data in iteration it.
func val(it, node, b, i int) byte {
	x := uint32(it)*2654435761 ^ uint32(node)*40503 ^ uint32(b)*0x9e37 ^ uint32(i)*31
	return byte(x ^ x>>8 ^ x>>16 ^ x>>24)
}

// kind describes one collective for the generic checks.
type kind struct {
	name   string
	rooted bool
	// blocks of src and dst on a node (0: the argument does not apply)
	src, dst func(P int, isRoot bool) int
	// srcVal is the input on node me; dstVal the expected output
	srcVal func(it, me, b, i int) byte
	dstVal func(it, me, root, b, i int) byte
	nb     func(im *coll.Image, t *images.Team, dst []byte, root int, src []byte, n int, f gsync.Flags) (gsync.Handle, error)
	// nbm is the m form: lists, and the root's single argument
	nbm func(im *coll.Image, t *images.Team, dsts [][]byte, dst []byte, root int, srcs [][]byte, src []byte, n int, f gsync.Flags) (gsync.Handle, error)
}

func one(int, bool) int     { return 1 }
func all(P int, _ bool) int { return P }
func atRoot(n int) func(int, bool) int {
	return func(P int, r bool) int {
		if r {
			return n * P
		}
		return 0
	}
}

var kinds = []kind{
	{"broadcast", true, func(_ int, r bool) int { return b2i(r) }, one,
		func(it, me, _, i int) byte { return val(it, me, 0, i) },
		func(it, _, root, _, i int) byte { return val(it, root, 0, i) },
		func(im *coll.Image, t *images.Team, dst []byte, root int, src []byte, n int, f gsync.Flags) (gsync.Handle, error) {
			return im.BroadcastNB(t, dst, root, src, n, f)
		},
		func(im *coll.Image, t *images.Team, dsts [][]byte, _ []byte, root int, _ [][]byte, src []byte, n int, f gsync.Flags) (gsync.Handle, error) {
			return im.BroadcastMNB(t, dsts, root, src, n, f)
		}},
	{"scatter", true, atRoot(1), one,
		func(it, me, b, i int) byte { return val(it, me, b, i) },
		func(it, me, root, _, i int) byte { return val(it, root, me, i) },
		func(im *coll.Image, t *images.Team, dst []byte, root int, src []byte, n int, f gsync.Flags) (gsync.Handle, error) {
			return im.ScatterNB(t, dst, root, src, n, f)
		},
		func(im *coll.Image, t *images.Team, dsts [][]byte, _ []byte, root int, _ [][]byte, src []byte, n int, f gsync.Flags) (gsync.Handle, error) {
			return im.ScatterMNB(t, dsts, root, src, n, f)
		}},
	{"gather", true, one, atRoot(1),
		func(it, me, _, i int) byte { return val(it, me, 0, i) },
		func(it, _, _, b, i int) byte { return val(it, b, 0, i) },
		func(im *coll.Image, t *images.Team, dst []byte, root int, src []byte, n int, f gsync.Flags) (gsync.Handle, error) {
			return im.GatherNB(t, root, dst, src, n, f)
		},
		func(im *coll.Image, t *images.Team, _ [][]byte, dst []byte, root int, srcs [][]byte, _ []byte, n int, f gsync.Flags) (gsync.Handle, error) {
			return im.GatherMNB(t, root, dst, srcs, n, f)
		}},
	{"gather_all", false, one, all,
		func(it, me, _, i int) byte { return val(it, me, 0, i) },
		func(it, _, _, b, i int) byte { return val(it, b, 0, i) },
		func(im *coll.Image, t *images.Team, dst []byte, _ int, src []byte, n int, f gsync.Flags) (gsync.Handle, error) {
			return im.GatherAllNB(t, dst, src, n, f)
		},
		func(im *coll.Image, t *images.Team, dsts [][]byte, _ []byte, _ int, srcs [][]byte, _ []byte, n int, f gsync.Flags) (gsync.Handle, error) {
			return im.GatherAllMNB(t, dsts, srcs, n, f)
		}},
	{"exchange", false, all, all,
		func(it, me, b, i int) byte { return val(it, me, b, i) },
		func(it, me, _, b, i int) byte { return val(it, b, me, i) },
		func(im *coll.Image, t *images.Team, dst []byte, _ int, src []byte, n int, f gsync.Flags) (gsync.Handle, error) {
			return im.ExchangeNB(t, dst, src, n, f)
		},
		func(im *coll.Image, t *images.Team, dsts [][]byte, _ []byte, _ int, srcs [][]byte, _ []byte, n int, f gsync.Flags) (gsync.Handle, error) {
			return im.ExchangeMNB(t, dsts, srcs, n, f)
		}},
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// call is one planned collective with its buffers.
type call struct {
	k        *kind
	it, root int
	n        int
	f        gsync.Flags
	src, dst []byte
}

// roots are the roots the suite tries: first, middle and last.
func roots(k *kind, P int) []int {
	if !k.rooted {
		return []int{0}
	}
	rs := []int{0}
	if P > 2 {
		rs = append(rs, P/2)
	}
	if P > 1 {
		rs = append(rs, P-1)
	}
	return rs
}

// newCall allocates the buffers a call needs (nil where an argument does
// not apply under Local addressing; Single always passes every argument).
func newCall(im *coll.Image, k *kind, it, root, n int, f gsync.Flags) *call {
	return newCallFor(im.ImageNum(), im.Images(), k, it, root, n, f)
}

// newCallFor is newCall as node me would make it.
func newCallFor(me, P int, k *kind, it, root, n int, f gsync.Flags) *call {
	c := &call{k: k, it: it, root: root, n: n, f: f}
	alloc := func(blocks, full int) []byte {
		if blocks == 0 && f&gsync.Single == 0 {
			return nil
		}
		return make([]byte, max(blocks, full)*n)
	}
	full := func(b func(int, bool) int) int { return max(b(P, true), b(P, false)) }
	c.src = alloc(k.src(P, root == me), full(k.src))
	c.dst = alloc(k.dst(P, root == me), full(k.dst))
	return c
}

// fill writes the inputs.
func (c *call) fill(me, P int) {
	for b := 0; b < len(c.src)/c.n; b++ {
		for i := 0; i < c.n; i++ {
			c.src[b*c.n+i] = c.k.srcVal(c.it, me, b, i)
		}
	}
	for i := range c.dst {
		c.dst[i] = 0xEE // stale marker: an unwritten block shows
	}
}

// check verifies the outputs this node should have.
func (c *call) check(me, P int) error {
	blocks := c.k.dst(P, c.root == me)
	for b := 0; b < blocks; b++ {
		for i := 0; i < c.n; i++ {
			if got, want := c.dst[b*c.n+i], c.k.dstVal(c.it, me, c.root, b, i); got != want {
				return fmt.Errorf("%s it=%d root=%d n=%d %v: dst block %d byte %d = %#x, want %#x",
					c.k.name, c.it, c.root, c.n, c.f, b, i, got, want)
			}
		}
	}
	return nil
}

func (c *call) start(im *coll.Image) (gsync.Handle, error) {
	return c.k.nb(im, im.TeamAll(), c.dst, c.root, c.src, c.n, c.f)
}

func wait(h gsync.Handle, err error) error {
	if err != nil {
		return err
	}
	return h.Wait(context.Background())
}

var addressing = []gsync.Flags{gsync.Single, gsync.Local}

// variant is one collective with one root and one addressing mode.
type variant struct {
	k    *kind
	root int
	a    gsync.Flags
}

// variants are every collective at every root the suite tries (see roots),
// in both addressing modes, in a fixed order.
func variants(P int) []variant {
	var vs []variant
	for ki := range kinds {
		for _, root := range roots(&kinds[ki], P) {
			for _, a := range addressing {
				vs = append(vs, variant{&kinds[ki], root, a})
			}
		}
	}
	return vs
}

// caseMyMy: inputs written locally just before each call, outputs read
// locally just after, no barrier anywhere.
func caseMyMy(im *coll.Image, _ Memory) error {
	P, me := im.Images(), im.ImageNum()
	it := 0
	for _, n := range []int{1, 7, 1000} {
		for _, v := range variants(P) {
			k, root, a := v.k, v.root, v.a
			it++
			c := newCall(im, k, it, root, n, gsync.InMySync|gsync.OutMySync|a)
			c.fill(me, P)
			if err := wait(c.start(im)); err != nil {
				return err
			}
			if err := c.check(me, P); err != nil {
				return err
			}
		}
	}
	return im.Barrier(im.TeamAll())
}

// caseAllAll: each node writes its right neighbour's inputs remotely just
// before the call and reads its outputs remotely just after. Only
// IN_ALLSYNC and OUT_ALLSYNC make that correct.
func caseAllAll(im *coll.Image, mem Memory) error {
	P, me := im.Images(), im.ImageNum()
	peer := (me + 1) % P
	n := allSize
	local := mem.Local()
	it := 1000
	for _, v := range variants(P) {
		k, root, a := v.k, v.root, v.a
		it++
		c := newCall(im, k, it, root, n, gsync.InAllSync|gsync.OutAllSync|a)
		// The data areas live in Memory: src at 0, dst at P*n.
		c.src = placed(local[:P*n], c.src)
		c.dst = placed(local[P*n:2*P*n], c.dst)
		// Write the peer's inputs as the peer's fill would.
		pc := newCallFor(peer, P, k, it, root, n, c.f)
		pc.fill(peer, P)
		if err := mem.Put(peer, 0, pc.src); err != nil {
			return err
		}
		if err := wait(c.start(im)); err != nil {
			return err
		}
		got := make([]byte, len(pc.dst))
		if err := mem.Get(peer, P*n, got); err != nil {
			return err
		}
		pc.dst = got
		if err := pc.check(peer, P); err != nil {
			return fmt.Errorf("read remotely from node %d: %w", peer, err)
		}
	}
	return im.Barrier(im.TeamAll())
}

// placed is b's length of region (nil stays nil).
func placed(region, b []byte) []byte {
	if b == nil {
		return nil
	}
	return region[:len(b)]
}

// caseNoNo: inputs written, barrier, a batch of NO/NO collectives (blocking
// and non-blocking), barrier, outputs checked.
func caseNoNo(im *coll.Image, _ Memory) error {
	P, me := im.Images(), im.ImageNum()
	var calls []*call
	it := 2000
	for _, v := range variants(P) {
		k, root, a := v.k, v.root, v.a
		it++
		c := newCall(im, k, it, root, 33, gsync.InNoSync|gsync.OutNoSync|a)
		c.fill(me, P)
		calls = append(calls, c)
	}
	if err := im.Barrier(im.TeamAll()); err != nil {
		return err
	}
	var hs []gsync.Handle
	for i, c := range calls {
		if i%2 == 0 {
			if err := wait(c.start(im)); err != nil {
				return err
			}
			continue
		}
		h, err := c.start(im)
		if err != nil {
			return err
		}
		hs = append(hs, h)
	}
	if err := gsync.WaitAll(context.Background(), hs); err != nil {
		return err
	}
	if err := im.Barrier(im.TeamAll()); err != nil {
		return err
	}
	for _, c := range calls {
		if err := c.check(me, P); err != nil {
			return err
		}
	}
	return nil
}

// caseNB: many collectives in flight with distinct buffers, synced in an
// order that differs per node, each checked right after its own sync.
func caseNB(im *coll.Image, count int) error {
	P, me := im.Images(), im.ImageNum()
	calls := make([]*call, count)
	hs := make([]gsync.Handle, count)
	for i := range calls {
		k := &kinds[i%len(kinds)]
		rs := roots(k, P)
		c := newCall(im, k, 3000+i, rs[i%len(rs)], 1+i%50, gsync.InMySync|gsync.OutMySync|addressing[i%2])
		c.fill(me, P)
		h, err := c.start(im)
		if err != nil {
			return err
		}
		calls[i], hs[i] = c, h
	}
	order := rand.New(rand.NewPCG(uint64(me), 7)).Perm(count)
	for _, i := range order {
		if err := hs[i].Wait(context.Background()); err != nil {
			return err
		}
		if err := calls[i].check(me, P); err != nil {
			return err
		}
		if _, err := hs[i].Try(); err == nil && hs[i].Valid() {
			return fmt.Errorf("a synced handle must be dead")
		}
	}
	return im.Barrier(im.TeamAll())
}

// caseNineModes runs every collective in every sync mode at each size,
// with the protocol every mode allows: inputs written, barrier, call,
// barrier, outputs checked (OUT_MYSYNC and OUT_ALLSYNC also right after).
func caseNineModes(im *coll.Image, sizes []int) error {
	P, me := im.Images(), im.ImageNum()
	it := 10000
	for _, in := range []gsync.Flags{gsync.InNoSync, gsync.InMySync, gsync.InAllSync} {
		for _, out := range []gsync.Flags{gsync.OutNoSync, gsync.OutMySync, gsync.OutAllSync} {
			for _, n := range sizes {
				for ki := range kinds {
					k := &kinds[ki]
					rs := roots(k, P)
					it++
					c := newCall(im, k, it, rs[it%len(rs)], n, in|out|addressing[it%2])
					c.fill(me, P)
					if err := im.Barrier(im.TeamAll()); err != nil {
						return err
					}
					if err := wait(c.start(im)); err != nil {
						return err
					}
					if out != gsync.OutNoSync {
						if err := c.check(me, P); err != nil {
							return err
						}
					}
					if err := im.Barrier(im.TeamAll()); err != nil {
						return err
					}
					if err := c.check(me, P); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// caseOutstanding keeps count broadcasts outstanding, then syncs them all.
func caseOutstanding(im *coll.Image, count int) error {
	P, me := im.Images(), im.ImageNum()
	src := make([]byte, count)
	dst := make([]byte, count)
	for i := range src {
		src[i] = val(i, i%P, 0, 0)
	}
	hs := make([]gsync.Handle, count)
	for i := range hs {
		h, err := im.BroadcastNB(im.TeamAll(), dst[i:i+1], i%P, src[i:i+1], 1, gsync.InMySync|gsync.OutMySync|gsync.Local)
		if err != nil {
			return fmt.Errorf("broadcast %d: %w", i, err)
		}
		hs[i] = h
	}
	if err := gsync.WaitAll(context.Background(), hs); err != nil {
		return err
	}
	for i := range dst {
		if dst[i] != src[i] {
			return fmt.Errorf("outstanding broadcast %d (root %d) on node %d: got %#x want %#x", i, i%P, me, dst[i], src[i])
		}
	}
	return im.Barrier(im.TeamAll())
}
