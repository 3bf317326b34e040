package alg

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

// Geom is what every schedule builder needs: the node's place among the
// team's node ranks, and its members.
type Geom struct {
	P, Me   int          // node ranks of the team, and this node's
	Block   int          // bytes per block
	Scratch *Scratch     // internal buffers, returned when the operation finishes
	Team    *images.Team // the team
	Mem     []int        // team ranks of this node's members, ascending
}

// Buf is an internal buffer of n bytes (contents undefined).
func (g Geom) Buf(n int) []byte { return g.Scratch.get(n) }

// node is the node of node rank q.
func (g Geom) node(q int) int { return g.Team.NodeAt(q) }

func (g Geom) rel(root int) int    { return (g.Me - root + g.P) % g.P }
func (g Geom) abs(root, v int) int { return (v + root) % g.P }
func (g Geom) block(b []byte, i int) []byte {
	return b[i*g.Block : (i+1)*g.Block]
}

// nodeRankOf is the node rank hosting team rank r.
func (g Geom) nodeRankOf(r int) int { return g.Team.NodeRank(g.Team.Table().NodeOf(g.Team.Image(r))) }

// Member is the index of team rank r among this node's members, or -1.
func (g Geom) Member(r int) int {
	if k, ok := slices.BinarySearch(g.Mem, r); ok {
		return k
	}
	return -1
}

// count is the number of members on the relative node ranks [lo, hi)
// around node rank q0.
func (g Geom) count(q0, lo, hi int) int {
	c := 0
	for v := lo; v < hi; v++ {
		c += len(g.Team.Members(g.abs(q0, v)))
	}
	return c
}

// offsets are the packed block offsets of the node ranks: po[q] blocks
// come before node rank q's, po[P] is the team size.
func (g Geom) offsets() []int {
	po := make([]int, g.P+1)
	for q := range g.P {
		po[q+1] = po[q] + len(g.Team.Members(q))
	}
	return po
}

// piece is a run of node ranks [first, first+count) with no wrap.
type piece struct{ first, count int }

// pieces splits the cyclic run of count node ranks starting at lo (which
// may be negative or >= P) into at most two runs that do not wrap.
func (g Geom) pieces(lo, count int) []piece {
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

func (g Geom) bytesOf(r brun) []byte { return r.b[r.first*g.Block : (r.first+r.count)*g.Block] }

// pack is the sending side of a message of the blocks rs: the client's
// bytes when they form one run, else an internal buffer and the
// (client-reading) copies that fill it before the send.
func (g Geom) pack(rs bruns) (buf []byte, copies []CopyOp, client bool) {
	return g.through(rs, false)
}

// unpack is the receiving side: the client's bytes when the blocks form
// one run, else an internal buffer and the copies that empty it afterwards.
func (g Geom) unpack(rs bruns) (buf []byte, copies []CopyOp, client bool) {
	return g.through(rs, true)
}

// through is pack (toClient false) and unpack (toClient true).
func (g Geom) through(rs bruns, toClient bool) (buf []byte, copies []CopyOp, client bool) {
	if len(rs) == 1 {
		return g.bytesOf(rs[0]), nil, true
	}
	buf = g.Buf(rs.blocks() * g.Block)
	return buf, g.moves(rs, buf, toClient), false
}

// moves are the copies between the blocks rs and the consecutive bytes of
// buf: from buf into them when toClient, else from them into buf. They run
// when their round starts, never while building.
func (g Geom) moves(rs bruns, buf []byte, toClient bool) []CopyOp {
	var copies []CopyOp
	k := 0
	for _, r := range rs {
		b, in := g.bytesOf(r), buf[k:k+r.count*g.Block]
		if toClient {
			copies = append(copies, Copy(b, in, true))
		} else {
			copies = append(copies, Copy(in, b, false))
		}
		k += len(b)
	}
	return copies
}

// rangeBlocks are the blocks of b (indexed by team rank) of the members of
// the relative node ranks [lo, hi) around q0, in packed order.
func (g Geom) rangeBlocks(q0, lo, hi int, b []byte) bruns {
	var rs bruns
	for v := lo; v < hi; v++ {
		for _, r := range g.Team.Members(g.abs(q0, v)) {
			rs = rs.add(b, r)
		}
	}
	return rs
}

// memberBlocks is the first block of each member's buffer, in member order.
func (g Geom) memberBlocks(bufs [][]byte) bruns {
	var rs bruns
	for _, b := range bufs {
		rs = append(rs, brun{b, 0, 1})
	}
	return rs
}

// BroadcastSched: the root node sends the root image's source down a tree
// of nodes; every other node receives into its first member's destination
// and forwards from it, largest subtree first; each node copies the block
// to the rest of its members.
func BroadcastSched(g Geom, t Tree, root int, dsts, srcs [][]byte) []Round {
	var src []byte
	if k := g.Member(root); k >= 0 {
		src = srcs[k][:g.Block]
	}
	return bcastRounds(g, t, g.nodeRankOf(root), src, dsts)
}

// bcastRounds broadcasts g.n bytes from src on node rank q0 to the first
// g.n bytes of every buffer of dsts on every node.
func bcastRounds(g Geom, t Tree, q0 int, src []byte, dsts [][]byte) []Round {
	pos := t.locate(g.P, g.rel(q0))
	var r0, r1 Round
	from := src
	if pos.parent >= 0 {
		from = dsts[0][:g.Block]
		r0.Recvs = append(r0.Recvs, Xfer{g.node(g.abs(q0, pos.parent)), 0, from, true})
		dsts = dsts[1:]
	}
	for _, d := range dsts {
		if d != nil { // nil: a root that served itself (staging, call.go)
			r1.Copies = append(r1.Copies, cpOwn(d[:g.Block], from))
		}
	}
	for i := len(pos.children) - 1; i >= 0; i-- {
		c := pos.children[i]
		r1.Sends = append(r1.Sends, Xfer{g.node(g.abs(q0, c.lo)), 0, from, true})
	}
	if pos.parent < 0 {
		return []Round{r1}
	}
	return []Round{r0, r1}
}

// ScatterSched: each edge of a tree of nodes carries the blocks of the
// child's whole subtree; inner nodes receive their subtree's blocks into an
// internal buffer.
func ScatterSched(g Geom, t Tree, root int, dsts, srcs [][]byte) []Round {
	q0 := g.nodeRankOf(root)
	pos := t.locate(g.P, g.rel(q0))
	var r0, r1 Round
	if pos.parent < 0 {
		src := srcs[g.Member(root)]
		for k, r := range g.Mem {
			if dsts[k] != nil { // nil: a root that served itself (staging, call.go)
				r0.Copies = append(r0.Copies, cpOwn(dsts[k][:g.Block], g.block(src, r)))
			}
		}
		for i := len(pos.children) - 1; i >= 0; i-- {
			ch := pos.children[i]
			buf, copies, client := g.pack(g.rangeBlocks(q0, ch.lo, ch.hi, src))
			r0.Copies = append(r0.Copies, copies...)
			r0.Sends = append(r0.Sends, Xfer{g.node(g.abs(q0, ch.lo)), 0, buf, client})
		}
		return []Round{r0}
	}
	parent := g.node(g.abs(q0, pos.parent))
	if pos.sub.size() == 1 {
		buf, copies, client := g.unpack(g.memberBlocks(dsts))
		r0.Recvs = append(r0.Recvs, Xfer{parent, 0, buf, client})
		if copies == nil {
			return []Round{r0}
		}
		r1.Copies = copies
		return []Round{r0, r1}
	}
	tmp := g.Buf(g.count(q0, pos.sub.lo, pos.sub.hi) * g.Block)
	r0.Recvs = append(r0.Recvs, Xfer{parent, 0, tmp, false})
	for k := range g.Mem { // this node's members come first in its subtree
		r1.Copies = append(r1.Copies, Copy(dsts[k][:g.Block], g.block(tmp, k), true))
	}
	for i := len(pos.children) - 1; i >= 0; i-- {
		ch := pos.children[i]
		off, cnt := g.count(q0, pos.sub.lo, ch.lo), g.count(q0, ch.lo, ch.hi)
		r1.Sends = append(r1.Sends, Xfer{g.node(g.abs(q0, ch.lo)), 0, tmp[off*g.Block : (off+cnt)*g.Block], false})
	}
	return []Round{r0, r1}
}

// GatherSched: the scatter tree reversed; inner nodes collect their
// subtree's blocks in an internal buffer before sending it up.
func GatherSched(g Geom, t Tree, root int, dsts, srcs [][]byte) []Round {
	q0 := g.nodeRankOf(root)
	pos := t.locate(g.P, g.rel(q0))
	var r0, r1 Round
	if pos.parent < 0 {
		dst := dsts[g.Member(root)]
		for k, r := range g.Mem {
			r0.Copies = append(r0.Copies, Copy(g.block(dst, r), srcs[k][:g.Block], true))
		}
		for _, ch := range pos.children {
			buf, copies, client := g.unpack(g.rangeBlocks(q0, ch.lo, ch.hi, dst))
			r0.Recvs = append(r0.Recvs, Xfer{g.node(g.abs(q0, ch.lo)), 0, buf, client})
			r1.Copies = append(r1.Copies, copies...)
		}
		return []Round{r0, r1}
	}
	parent := g.node(g.abs(q0, pos.parent))
	if pos.sub.size() == 1 {
		buf, copies, client := g.pack(g.memberBlocks(srcs))
		r0.Copies = copies
		r0.Sends = append(r0.Sends, Xfer{parent, 0, buf, client})
		return []Round{r0}
	}
	tmp := g.Buf(g.count(q0, pos.sub.lo, pos.sub.hi) * g.Block)
	for k := range g.Mem {
		r0.Copies = append(r0.Copies, Copy(g.block(tmp, k), srcs[k][:g.Block], false))
	}
	for _, ch := range pos.children {
		off, cnt := g.count(q0, pos.sub.lo, ch.lo), g.count(q0, ch.lo, ch.hi)
		r0.Recvs = append(r0.Recvs, Xfer{g.node(g.abs(q0, ch.lo)), 0, tmp[off*g.Block : (off+cnt)*g.Block], false})
	}
	r1.Sends = append(r1.Sends, Xfer{parent, 0, tmp, false})
	return []Round{r0, r1}
}

// ExchangeSched: node p sends to node rank (p+i) mod P for i = 1..P-1 the
// blocks its members hold for that node's members, so that in each step
// every node receives exactly once; blocks between members of one node are
// copied.
func ExchangeSched(g Geom, dsts, srcs [][]byte) []Round {
	var r, post Round
	for s := 1; s < g.P; s++ {
		to := (g.Me + s) % g.P
		var out bruns
		for k := range g.Mem {
			for _, j := range g.Team.Members(to) {
				out = out.add(srcs[k], j)
			}
		}
		buf, copies, client := g.pack(out)
		r.Copies = append(r.Copies, copies...)
		r.Sends = append(r.Sends, Xfer{g.node(to), 0, buf, client})
	}
	for s := 1; s < g.P; s++ {
		from := (g.Me - s + g.P) % g.P
		var in bruns
		for _, i := range g.Team.Members(from) {
			for j := range g.Mem {
				in = in.add(dsts[j], i)
			}
		}
		buf, copies, client := g.unpack(in)
		r.Recvs = append(r.Recvs, Xfer{g.node(from), 0, buf, client})
		post.Copies = append(post.Copies, copies...)
	}
	for k, i := range g.Mem {
		for j, jr := range g.Mem {
			r.Copies = append(r.Copies, cpOwn(g.block(dsts[j], i), g.block(srcs[k], jr)))
		}
	}
	if post.Copies == nil {
		return []Round{r}
	}
	return []Round{r, post}
}

// GatherAllSched: the node's members' blocks go to every node, by the
// exchange-like pattern or by dissemination, into a packed buffer holding
// every block in node-rank order; in a node-major team that is rank order
// and the packed buffer is the first member's destination. The other
// members' destinations are filled from it by copies.
func GatherAllSched(g Geom, algo GatherAllAlgo, dsts, srcs [][]byte) []Round {
	P := g.Team.Size()
	nm := g.Team.NodeMajor()
	po := g.offsets()
	pk := g.Buf(P * g.Block)
	if nm {
		pk = dsts[0][:P*g.Block]
	}
	rs := GatherAllRounds(g, algo, pk, nm, po, srcs)
	var dist Round
	for k := range g.Mem {
		if nm {
			if k > 0 {
				dist.Copies = append(dist.Copies, Copy(dsts[k][:P*g.Block], pk, true))
			}
			continue
		}
		// every block, in packed order, into its place in this member's dst
		dist.Copies = append(dist.Copies, g.moves(g.rangeBlocks(0, 0, g.P, dsts[k]), pk, true)...)
	}
	if dist.Copies != nil {
		rs = append(rs, dist)
	}
	return rs
}

// GatherAllRounds fills pk (client memory when client) with every node's
// blocks in packed order (po from offsets); srcs are this node's members'
// blocks.
func GatherAllRounds(g Geom, algo GatherAllAlgo, pk []byte, client bool, po []int, srcs [][]byte) []Round {
	bo := make([]int, len(po))
	for q, o := range po {
		bo[q] = o * g.Block
	}
	own := make([][]byte, len(srcs))
	for k, s := range srcs {
		own[k] = s[:g.Block]
	}
	return gatherAllBytes(g, algo, pk, client, bo, own)
}

// gatherAllBytes is GatherAllRounds with byte offsets bo (node rank q's
// bytes are pk[bo[q]:bo[q+1]]) and this node's members' sources as they
// are, of any lengths (GatherAllV's).
func gatherAllBytes(g Geom, algo GatherAllAlgo, pk []byte, client bool, bo []int, srcs [][]byte) []Round {
	own := pk[bo[g.Me]:bo[g.Me+1]]
	var fill []CopyOp
	off := 0
	for _, s := range srcs {
		if len(s) > 0 {
			fill = append(fill, CopyOp{Dst: own[off : off+len(s)], Src: s, Client: true, ToClient: client})
		}
		off += len(s)
	}
	span := func(p piece) []byte { return pk[bo[p.first]:bo[p.first+p.count]] }
	if algo == GatherAllExchange {
		var r Round
		r.Copies = fill
		send, sendClient := own, client
		if len(srcs) == 1 && len(fill) == 1 { // send the source itself; its copy overlaps the sends
			send, sendClient = srcs[0], true
			r.Copies[0].Late = true
		}
		for i := 1; i < g.P; i++ {
			from := (g.Me - i + g.P) % g.P
			r.Recvs = append(r.Recvs, Xfer{g.node(from), 0, span(piece{from, 1}), client})
		}
		for i := 1; i < g.P; i++ {
			r.Sends = append(r.Sends, Xfer{g.node((g.Me + i) % g.P), 0, send, sendClient})
		}
		return []Round{r}
	}
	// Dissemination: in round i node rank p sends to (p+2^i) mod P the
	// min(2^i, P-2^i) nodes' blocks ending at its own, so after ceil(lg P)
	// rounds every node holds every block and none was sent twice to a node.
	var rs []Round
	for i := 0; 1<<i < g.P; i++ {
		d := 1 << i
		cnt := min(d, g.P-d)
		var r Round
		if i == 0 {
			r.Copies = fill
		}
		from := (g.Me - d + g.P) % g.P
		for k, p := range g.pieces(from-cnt+1, cnt) {
			r.Recvs = append(r.Recvs, Xfer{g.node(from), 2*i + k, span(p), client})
		}
		for k, p := range g.pieces(g.Me-cnt+1, cnt) {
			r.Sends = append(r.Sends, Xfer{g.node((g.Me + d) % g.P), 2*i + k, span(p), client})
		}
		rs = append(rs, r)
	}
	if len(rs) == 0 { // one node
		rs = append(rs, Round{Copies: fill})
	}
	return rs
}
