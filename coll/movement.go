package coll

import (
	"slices"
	"unsafe"

	"github.com/gocoll/gocoll/images"
)

// Schedules of the five data-movement collectives, for one node. They run
// between the team's nodes, over node ranks (images.Team: nodes ordered by
// their lowest member's rank), and among the node's members through memory:
// images of one node never send each other messages. A message between
// nodes carries the blocks of every image it concerns, in packed order:
// node rank by node rank, each node's members in rank order. Blocks are
// nbytes long and indexed by team rank in the callers' buffers; where a
// message's blocks form one run of one buffer it moves straight from or
// into that buffer, else through an internal buffer and local copies.

// geom is what every schedule builder needs: the node's place among the
// team's node ranks, and its members.
type geom struct {
	P, me int          // node ranks of the team, and this node's
	n     int          // bytes per block
	sc    *scratch     // internal buffers, returned when the operation finishes
	t     *images.Team // the team
	mem   []int        // team ranks of this node's members, ascending
}

// buf is an internal buffer of n bytes (contents undefined).
func (g geom) buf(n int) []byte { return g.sc.get(n) }

// node is the node of node rank q.
func (g geom) node(q int) int { return g.t.NodeAt(q) }

func (g geom) rel(root int) int    { return (g.me - root + g.P) % g.P }
func (g geom) abs(root, v int) int { return (v + root) % g.P }
func (g geom) block(b []byte, i int) []byte {
	return b[i*g.n : (i+1)*g.n]
}

// nodeRankOf is the node rank hosting team rank r.
func (g geom) nodeRankOf(r int) int { return g.t.NodeRank(g.t.Table().NodeOf(g.t.Image(r))) }

// member is the index of team rank r among this node's members, or -1.
func (g geom) member(r int) int {
	if k, ok := slices.BinarySearch(g.mem, r); ok {
		return k
	}
	return -1
}

// count is the number of members on the relative node ranks [lo, hi)
// around node rank q0.
func (g geom) count(q0, lo, hi int) int {
	c := 0
	for v := lo; v < hi; v++ {
		c += len(g.t.Members(g.abs(q0, v)))
	}
	return c
}

// offsets are the packed block offsets of the node ranks: po[q] blocks
// come before node rank q's, po[P] is the team size.
func (g geom) offsets() []int {
	po := make([]int, g.P+1)
	for q := range g.P {
		po[q+1] = po[q] + len(g.t.Members(q))
	}
	return po
}

// piece is a run of node ranks [first, first+count) with no wrap.
type piece struct{ first, count int }

// pieces splits the cyclic run of count node ranks starting at lo (which
// may be negative or >= P) into at most two runs that do not wrap.
func (g geom) pieces(lo, count int) []piece {
	s := ((lo % g.P) + g.P) % g.P
	if s+count <= g.P {
		return []piece{{s, count}}
	}
	return []piece{{s, g.P - s}, {0, count - (g.P - s)}}
}

// brun is a run of blocks [first, first+count) of buffer b.
type brun struct {
	b            []byte
	first, count int
}

type bruns []brun

// add appends block i of b, extending the last run when it continues it.
func (rs bruns) add(b []byte, i int) bruns {
	if k := len(rs) - 1; k >= 0 && sameBuf(rs[k].b, b) && rs[k].first+rs[k].count == i {
		rs[k].count++
		return rs
	}
	return append(rs, brun{b, i, 1})
}

func sameBuf(a, b []byte) bool {
	return unsafe.SliceData(a) == unsafe.SliceData(b) && len(a) == len(b)
}

func (rs bruns) blocks() int {
	c := 0
	for _, r := range rs {
		c += r.count
	}
	return c
}

func (g geom) bytesOf(r brun) []byte { return r.b[r.first*g.n : (r.first+r.count)*g.n] }

// pack is the sending side of a message of the blocks rs: the client's
// bytes when they form one run, else an internal buffer and the
// (client-reading) copies that fill it before the send.
func (g geom) pack(rs bruns) (buf []byte, copies []copyOp, client bool) {
	return g.through(rs, false)
}

// unpack is the receiving side: the client's bytes when the blocks form
// one run, else an internal buffer and the copies that empty it afterwards.
func (g geom) unpack(rs bruns) (buf []byte, copies []copyOp, client bool) {
	return g.through(rs, true)
}

// through is pack (toClient false) and unpack (toClient true).
func (g geom) through(rs bruns, toClient bool) (buf []byte, copies []copyOp, client bool) {
	if len(rs) == 1 {
		return g.bytesOf(rs[0]), nil, true
	}
	buf = g.buf(rs.blocks() * g.n)
	return buf, g.moves(rs, buf, toClient), false
}

// moves are the copies between the blocks rs and the consecutive bytes of
// buf: from buf into them when toClient, else from them into buf. They run
// when their round starts, never while building.
func (g geom) moves(rs bruns, buf []byte, toClient bool) []copyOp {
	var copies []copyOp
	k := 0
	for _, r := range rs {
		b, in := g.bytesOf(r), buf[k:k+r.count*g.n]
		if toClient {
			copies = append(copies, cp(b, in, true))
		} else {
			copies = append(copies, cp(in, b, false))
		}
		k += len(b)
	}
	return copies
}

// rangeBlocks are the blocks of b (indexed by team rank) of the members of
// the relative node ranks [lo, hi) around q0, in packed order.
func (g geom) rangeBlocks(q0, lo, hi int, b []byte) bruns {
	var rs bruns
	for v := lo; v < hi; v++ {
		for _, r := range g.t.Members(g.abs(q0, v)) {
			rs = rs.add(b, r)
		}
	}
	return rs
}

// memberBlocks is the first block of each member's buffer, in member order.
func (g geom) memberBlocks(bufs [][]byte) bruns {
	var rs bruns
	for _, b := range bufs {
		rs = append(rs, brun{b, 0, 1})
	}
	return rs
}

// broadcastSched: the root node sends the root image's source down a tree
// of nodes; every other node receives into its first member's destination
// and forwards from it, largest subtree first; each node copies the block
// to the rest of its members.
func broadcastSched(g geom, t Tree, c *call) []round {
	root := c.key.root
	var src []byte
	if k := g.member(root); k >= 0 {
		src = c.src[k][:g.n]
	}
	return bcastRounds(g, t, g.nodeRankOf(root), src, c.dst)
}

// bcastRounds broadcasts g.n bytes from src on node rank q0 to the first
// g.n bytes of every buffer of dsts on every node.
func bcastRounds(g geom, t Tree, q0 int, src []byte, dsts [][]byte) []round {
	pos := t.locate(g.P, g.rel(q0))
	var r0, r1 round
	from := src
	if pos.parent >= 0 {
		from = dsts[0][:g.n]
		r0.recvs = append(r0.recvs, xfer{g.node(g.abs(q0, pos.parent)), 0, from, true})
		dsts = dsts[1:]
	}
	for _, d := range dsts {
		if d != nil { // nil: a root that served itself (staging, call.go)
			r1.copies = append(r1.copies, cpOwn(d[:g.n], from))
		}
	}
	for i := len(pos.children) - 1; i >= 0; i-- {
		c := pos.children[i]
		r1.sends = append(r1.sends, xfer{g.node(g.abs(q0, c.lo)), 0, from, true})
	}
	if pos.parent < 0 {
		return []round{r1}
	}
	return []round{r0, r1}
}

// scatterSched: each edge of a tree of nodes carries the blocks of the
// child's whole subtree; inner nodes receive their subtree's blocks into an
// internal buffer.
func scatterSched(g geom, t Tree, c *call) []round {
	root := c.key.root
	q0 := g.nodeRankOf(root)
	pos := t.locate(g.P, g.rel(q0))
	var r0, r1 round
	if pos.parent < 0 {
		src := c.src[g.member(root)]
		for k, r := range g.mem {
			if c.dst[k] != nil { // nil: a root that served itself (staging, call.go)
				r0.copies = append(r0.copies, cpOwn(c.dst[k][:g.n], g.block(src, r)))
			}
		}
		for i := len(pos.children) - 1; i >= 0; i-- {
			ch := pos.children[i]
			buf, copies, client := g.pack(g.rangeBlocks(q0, ch.lo, ch.hi, src))
			r0.copies = append(r0.copies, copies...)
			r0.sends = append(r0.sends, xfer{g.node(g.abs(q0, ch.lo)), 0, buf, client})
		}
		return []round{r0}
	}
	parent := g.node(g.abs(q0, pos.parent))
	if pos.sub.size() == 1 {
		buf, copies, client := g.unpack(g.memberBlocks(c.dst))
		r0.recvs = append(r0.recvs, xfer{parent, 0, buf, client})
		if copies == nil {
			return []round{r0}
		}
		r1.copies = copies
		return []round{r0, r1}
	}
	tmp := g.buf(g.count(q0, pos.sub.lo, pos.sub.hi) * g.n)
	r0.recvs = append(r0.recvs, xfer{parent, 0, tmp, false})
	for k := range g.mem { // this node's members come first in its subtree
		r1.copies = append(r1.copies, cp(c.dst[k][:g.n], g.block(tmp, k), true))
	}
	for i := len(pos.children) - 1; i >= 0; i-- {
		ch := pos.children[i]
		off, cnt := g.count(q0, pos.sub.lo, ch.lo), g.count(q0, ch.lo, ch.hi)
		r1.sends = append(r1.sends, xfer{g.node(g.abs(q0, ch.lo)), 0, tmp[off*g.n : (off+cnt)*g.n], false})
	}
	return []round{r0, r1}
}

// gatherSched: the scatter tree reversed; inner nodes collect their
// subtree's blocks in an internal buffer before sending it up.
func gatherSched(g geom, t Tree, c *call) []round {
	root := c.key.root
	q0 := g.nodeRankOf(root)
	pos := t.locate(g.P, g.rel(q0))
	var r0, r1 round
	if pos.parent < 0 {
		dst := c.dst[g.member(root)]
		for k, r := range g.mem {
			r0.copies = append(r0.copies, cp(g.block(dst, r), c.src[k][:g.n], true))
		}
		for _, ch := range pos.children {
			buf, copies, client := g.unpack(g.rangeBlocks(q0, ch.lo, ch.hi, dst))
			r0.recvs = append(r0.recvs, xfer{g.node(g.abs(q0, ch.lo)), 0, buf, client})
			r1.copies = append(r1.copies, copies...)
		}
		return []round{r0, r1}
	}
	parent := g.node(g.abs(q0, pos.parent))
	if pos.sub.size() == 1 {
		buf, copies, client := g.pack(g.memberBlocks(c.src))
		r0.copies = copies
		r0.sends = append(r0.sends, xfer{parent, 0, buf, client})
		return []round{r0}
	}
	tmp := g.buf(g.count(q0, pos.sub.lo, pos.sub.hi) * g.n)
	for k := range g.mem {
		r0.copies = append(r0.copies, cp(g.block(tmp, k), c.src[k][:g.n], false))
	}
	for _, ch := range pos.children {
		off, cnt := g.count(q0, pos.sub.lo, ch.lo), g.count(q0, ch.lo, ch.hi)
		r0.recvs = append(r0.recvs, xfer{g.node(g.abs(q0, ch.lo)), 0, tmp[off*g.n : (off+cnt)*g.n], false})
	}
	r1.sends = append(r1.sends, xfer{parent, 0, tmp, false})
	return []round{r0, r1}
}

// exchangeSched: node p sends to node rank (p+i) mod P for i = 1..P-1 the
// blocks its members hold for that node's members, so that in each step
// every node receives exactly once; blocks between members of one node are
// copied.
func exchangeSched(g geom, c *call) []round {
	var r, post round
	for s := 1; s < g.P; s++ {
		to := (g.me + s) % g.P
		var out bruns
		for k := range g.mem {
			for _, j := range g.t.Members(to) {
				out = out.add(c.src[k], j)
			}
		}
		buf, copies, client := g.pack(out)
		r.copies = append(r.copies, copies...)
		r.sends = append(r.sends, xfer{g.node(to), 0, buf, client})
	}
	for s := 1; s < g.P; s++ {
		from := (g.me - s + g.P) % g.P
		var in bruns
		for _, i := range g.t.Members(from) {
			for j := range g.mem {
				in = in.add(c.dst[j], i)
			}
		}
		buf, copies, client := g.unpack(in)
		r.recvs = append(r.recvs, xfer{g.node(from), 0, buf, client})
		post.copies = append(post.copies, copies...)
	}
	for k, i := range g.mem {
		for j, jr := range g.mem {
			r.copies = append(r.copies, cpOwn(g.block(c.dst[j], i), g.block(c.src[k], jr)))
		}
	}
	if post.copies == nil {
		return []round{r}
	}
	return []round{r, post}
}

// gatherAllSched: the node's members' blocks go to every node, by the
// exchange-like pattern or by dissemination, into a packed buffer holding
// every block in node-rank order; in a node-major team that is rank order
// and the packed buffer is the first member's destination. The other
// members' destinations are filled from it by copies.
func gatherAllSched(g geom, algo GatherAllAlgo, c *call) []round {
	P := g.t.Size()
	nm := g.t.NodeMajor()
	po := g.offsets()
	pk := g.buf(P * g.n)
	if nm {
		pk = c.dst[0][:P*g.n]
	}
	rs := gatherAllRounds(g, algo, pk, nm, po, c.src)
	var dist round
	for k := range g.mem {
		if nm {
			if k > 0 {
				dist.copies = append(dist.copies, cp(c.dst[k][:P*g.n], pk, true))
			}
			continue
		}
		// every block, in packed order, into its place in this member's dst
		dist.copies = append(dist.copies, g.moves(g.rangeBlocks(0, 0, g.P, c.dst[k]), pk, true)...)
	}
	if dist.copies != nil {
		rs = append(rs, dist)
	}
	return rs
}

// gatherAllRounds fills pk (client memory when client) with every node's
// blocks in packed order (po from offsets); srcs are this node's members'
// blocks.
func gatherAllRounds(g geom, algo GatherAllAlgo, pk []byte, client bool, po []int, srcs [][]byte) []round {
	own := pk[po[g.me]*g.n : po[g.me+1]*g.n]
	var fill []copyOp
	for k, s := range srcs {
		fill = append(fill, copyOp{dst: g.block(own, k), src: s[:g.n], client: true, toClient: client})
	}
	span := func(p piece) []byte { return pk[po[p.first]*g.n : po[p.first+p.count]*g.n] }
	if algo == GatherAllExchange {
		var r round
		r.copies = fill
		send, sendClient := own, client
		if len(srcs) == 1 { // send the source itself; its copy overlaps the sends
			send, sendClient = srcs[0][:g.n], true
			r.copies[0].late = true
		}
		for i := 1; i < g.P; i++ {
			from := (g.me - i + g.P) % g.P
			r.recvs = append(r.recvs, xfer{g.node(from), 0, span(piece{from, 1}), client})
		}
		for i := 1; i < g.P; i++ {
			r.sends = append(r.sends, xfer{g.node((g.me + i) % g.P), 0, send, sendClient})
		}
		return []round{r}
	}
	// Dissemination: in round i node rank p sends to (p+2^i) mod P the
	// min(2^i, P-2^i) nodes' blocks ending at its own, so after ceil(lg P)
	// rounds every node holds every block and none was sent twice to a node.
	var rs []round
	for i := 0; 1<<i < g.P; i++ {
		d := 1 << i
		cnt := min(d, g.P-d)
		var r round
		if i == 0 {
			r.copies = fill
		}
		from := (g.me - d + g.P) % g.P
		for k, p := range g.pieces(from-cnt+1, cnt) {
			r.recvs = append(r.recvs, xfer{g.node(from), 2*i + k, span(p), client})
		}
		for k, p := range g.pieces(g.me-cnt+1, cnt) {
			r.sends = append(r.sends, xfer{g.node((g.me + d) % g.P), 2*i + k, span(p), client})
		}
		rs = append(rs, r)
	}
	if len(rs) == 0 { // one node
		rs = append(rs, round{copies: fill})
	}
	return rs
}
