package alg

// Schedules of the v-variants: a block per team rank of its own length
// (counts, and displacements into the buffer that holds a block per rank,
// in units of u bytes). Messages between nodes carry a node's members'
// blocks in member order, as the equal-block schedules do (movement.go);
// a node whose blocks are all empty sends nothing where every image knows
// the counts (GatherV, ScatterV, GatherAllV), and one empty message where
// only the two ends know theirs (ExchangeV), so that the two ends never
// wait on different numbers of messages.
//
// GatherV and ScatterV are flat (the root's node exchanges one message
// with every other node), as the native MPIs do for theirs: with blocks of
// different lengths a tree's inner nodes would forward data out of
// proportion to their subtrees.

import (
	"cmp"
	"maps"
	"slices"

	"github.com/gocoll/gocoll/images"
)

// noBytes is an empty message's buffer: empty, but not nil, which a
// conduit may take for a missing buffer.
var noBytes = make([]byte, 0, 1)

// VExt is one member's extents in a v-call: block r is Counts[r] units at
// Displs[r] of the buffer that holds a block per rank.
type VExt struct {
	Counts, Displs []int
}

// block is block r of b, of extents e in units of u bytes.
func (e VExt) block(b []byte, r, u int) []byte {
	return b[e.Displs[r]*u : (e.Displs[r]+e.Counts[r])*u]
}

// piecesThrough is pack (toClient false) and unpack (toClient true) for
// pieces of any lengths, empty ones left out: the one piece itself when
// there is one, else an internal buffer and the copies between it and the
// pieces. buf is empty when every piece is.
func (g Geom) piecesThrough(ps [][]byte, toClient bool) (buf []byte, copies []CopyOp, client bool) {
	n, last := 0, -1
	for i, p := range ps {
		if len(p) > 0 {
			n += len(p)
			last = i
		}
	}
	switch {
	case n == 0:
		return nil, nil, false
	case n == len(ps[last]):
		return ps[last], nil, true
	}
	buf = g.Buf(n)
	k := 0
	for _, p := range ps {
		if len(p) == 0 {
			continue
		}
		if toClient {
			copies = append(copies, Copy(p, buf[k:k+len(p)], true))
		} else {
			copies = append(copies, Copy(buf[k:k+len(p)], p, false))
		}
		k += len(p)
	}
	return buf, copies, false
}

// Pieces to one node travel as one message, packed (piecesThrough), up
// to piecesPacked bytes; from there each piece is a message of its own,
// sent from and received into the client's memory, which costs a
// message's latency per piece where packing would copy every byte twice.
// Both ends decide alike: they hold the same pieces, of the same lengths
// where the call is correct (a length that differs fails the message's
// header check, or, where the two decided differently, the stall check).
const (
	piecesPacked = 16 << 10
	maxMessages  = 128 // pieces as messages to one node at most: sub-tags below SubEntry
)

// piecesOrMessages is the transfers to (toClient false) or from node
// peer of pieces ps, in order, and the copies that pack or unpack them:
// one message, empty if need be, or one per piece (Sub its index).
func (g Geom) piecesOrMessages(peer int, ps [][]byte, toClient bool) ([]Xfer, []CopyOp) {
	n := 0
	for _, p := range ps {
		n += len(p)
	}
	if n < piecesPacked || len(ps) < 2 || len(ps) > maxMessages {
		buf, copies, client := g.piecesThrough(ps, toClient)
		if buf == nil {
			buf = noBytes
		}
		return []Xfer{{peer, 0, buf, client}}, copies
	}
	xs := make([]Xfer, len(ps))
	for i, p := range ps {
		xs[i] = Xfer{peer, i, p, len(p) > 0}
		if len(p) == 0 {
			xs[i].Buf = noBytes
		}
	}
	return xs, nil
}

// ownBlock is a member's own block of a v-call: the first
// count units of its buffer b.
func ownBlock(b []byte, count, u int) []byte { return b[:count*u] }

// ownBlocks are this node's members' own blocks, of their buffers bufs.
func (g Geom) ownBlocks(bufs [][]byte, counts []int, u int) [][]byte {
	ps := make([][]byte, len(g.Mem))
	for k, r := range g.Mem {
		ps[k] = ownBlock(bufs[k], counts[r], u)
	}
	return ps
}

// blocksOf are the blocks of ranks in b, laid out by e.
func (e VExt) blocksOf(b []byte, ranks []int, u int) [][]byte {
	ps := make([][]byte, len(ranks))
	for i, r := range ranks {
		ps[i] = e.block(b, r, u)
	}
	return ps
}

// GatherVSched: every node sends its members' blocks to the root's node
// in one message; the root's node places them by the root's extents.
func GatherVSched(g Geom, root, u int, counts []int, dsts, srcs [][]byte, exts []VExt) []Round {
	q0 := g.nodeRankOf(root)
	if g.Me != q0 {
		var r0 Round
		buf, copies, client := g.piecesThrough(g.ownBlocks(srcs, counts, u), false)
		r0.Copies = copies
		if buf != nil {
			r0.Sends = append(r0.Sends, Xfer{g.node(q0), 0, buf, client})
		}
		return []Round{r0}
	}
	m0 := g.Member(root)
	dst, e := dsts[m0], exts[m0]
	var r0, r1 Round
	for k, r := range g.Mem {
		if counts[r] > 0 {
			r0.Copies = append(r0.Copies, Copy(e.block(dst, r, u), ownBlock(srcs[k], counts[r], u), true))
		}
	}
	for q := range g.P {
		if q == q0 {
			continue
		}
		buf, copies, client := g.piecesThrough(e.blocksOf(dst, g.Team.Members(q), u), true)
		if buf != nil {
			r0.Recvs = append(r0.Recvs, Xfer{g.node(q), 0, buf, client})
			r1.Copies = append(r1.Copies, copies...)
		}
	}
	if r1.Copies == nil {
		return []Round{r0}
	}
	return []Round{r0, r1}
}

// ScatterVSched: GatherV reversed.
func ScatterVSched(g Geom, root, u int, counts []int, dsts, srcs [][]byte, exts []VExt) []Round {
	q0 := g.nodeRankOf(root)
	if g.Me != q0 {
		var r0, r1 Round
		buf, copies, client := g.piecesThrough(g.ownBlocks(dsts, counts, u), true)
		if buf != nil {
			r0.Recvs = append(r0.Recvs, Xfer{g.node(q0), 0, buf, client})
		}
		if copies == nil {
			return []Round{r0}
		}
		r1.Copies = copies
		return []Round{r0, r1}
	}
	m0 := g.Member(root)
	src, e := srcs[m0], exts[m0]
	var r0 Round
	for k, r := range g.Mem {
		if counts[r] > 0 {
			r0.Copies = append(r0.Copies, cpOwn(ownBlock(dsts[k], counts[r], u), e.block(src, r, u)))
		}
	}
	for q := range g.P {
		if q == q0 {
			continue
		}
		buf, copies, client := g.piecesThrough(e.blocksOf(src, g.Team.Members(q), u), false)
		if buf != nil {
			r0.Copies = append(r0.Copies, copies...)
			r0.Sends = append(r0.Sends, Xfer{g.node(q), 0, buf, client})
		}
	}
	return []Round{r0}
}

// GatherAllVSched: the members' blocks go to every node as gather_all's
// do (by algo), into a buffer of every block in packed order (node rank by
// node rank, each node's members in rank order), from which each member's
// blocks go to their places by its extents. Where the first member's
// extents put the blocks in packed order, one after another, that buffer
// is its destination.
func GatherAllVSched(g Geom, algo GatherAllAlgo, u int, counts []int, dsts, srcs [][]byte, exts []VExt) []Round {
	bo := make([]int, g.P+1) // bytes before each node rank's blocks
	at := make([]int, len(counts))
	for q := range g.P {
		bo[q+1] = bo[q]
		for _, r := range g.Team.Members(q) {
			at[r] = bo[q+1]
			bo[q+1] += counts[r] * u
		}
	}
	packed := true
	for r, c := range counts {
		packed = packed && (c == 0 || exts[0].Displs[r]*u == at[r])
	}
	var pk []byte
	if packed {
		pk = dsts[0][:bo[g.P]]
	} else {
		pk = g.Buf(bo[g.P])
	}
	rs := gatherAllBytes(g, algo, pk, packed, bo, g.ownBlocks(srcs, counts, u))
	var dist Round
	for k := range g.Mem {
		if k == 0 && packed {
			continue
		}
		for r, c := range counts {
			if c > 0 {
				dist.Copies = append(dist.Copies, Copy(exts[k].block(dsts[k], r, u), pk[at[r]:at[r]+c*u], true))
			}
		}
	}
	if dist.Copies != nil {
		rs = append(rs, dist)
	}
	return rs
}

// ExchangeVSched: ExchangeSched's pattern (node p sends to node rank
// (p+i) mod P in step i) with each member's send extents (sends) and
// receive extents (recvs); every pair of nodes exchanges one message each
// way, empty if need be, or a message per piece (piecesOrMessages).
func ExchangeVSched(g Geom, u int, dsts, srcs [][]byte, sends, recvs []VExt) []Round {
	var r, post Round
	for s := 1; s < g.P; s++ {
		to := (g.Me + s) % g.P
		var ps [][]byte
		for k := range g.Mem {
			for _, j := range g.Team.Members(to) {
				ps = append(ps, sends[k].block(srcs[k], j, u))
			}
		}
		xs, copies := g.piecesOrMessages(g.node(to), ps, false)
		r.Copies = append(r.Copies, copies...)
		r.Sends = append(r.Sends, xs...)
	}
	for s := 1; s < g.P; s++ {
		from := (g.Me - s + g.P) % g.P
		var ps [][]byte
		for _, i := range g.Team.Members(from) {
			for j := range g.Mem {
				ps = append(ps, recvs[j].block(dsts[j], i, u))
			}
		}
		xs, copies := g.piecesOrMessages(g.node(from), ps, true)
		r.Recvs = append(r.Recvs, xs...)
		post.Copies = append(post.Copies, copies...)
	}
	for k, i := range g.Mem {
		for j, jr := range g.Mem {
			if d := recvs[j].block(dsts[j], i, u); len(d) > 0 {
				r.Copies = append(r.Copies, cpOwn(d, sends[k].block(srcs[k], jr, u)))
			}
		}
	}
	if post.Copies == nil {
		return []Round{r}
	}
	return []Round{r, post}
}

// NeighborSched: each member sends block i of its source (by sends) to
// its neighbour i on grid, which receives it as its block i^1 (by recvs),
// from the opposite direction. A node exchanges one message each way with
// every node that hosts a neighbour of one of its members (the relation is
// symmetric, so both ends know the message is due), empty if need be. A
// message's blocks go in the order of the receiving team rank and its
// direction, which each end computes from its own members' neighbours.
func NeighborSched(g Geom, grid *images.Grid, u int, dsts, srcs [][]byte, sends, recvs []VExt) []Round {
	type piece struct {
		rank, dir int // the receiving team rank and its direction
		b         []byte
	}
	out, in := map[int][]piece{}, map[int][]piece{} // by node rank
	var r, post Round
	for k, me := range g.Mem {
		for i := range grid.NumNeighbors() {
			n := grid.Neighbor(me, i)
			if n == images.NoNeighbor {
				continue
			}
			s := sends[k].block(srcs[k], i, u)
			if m := g.Member(n); m >= 0 {
				if d := recvs[m].block(dsts[m], i^1, u); len(d) > 0 {
					r.Copies = append(r.Copies, cpOwn(d, s))
				}
				continue
			}
			q := g.nodeRankOf(n)
			out[q] = append(out[q], piece{n, i ^ 1, s})
			in[q] = append(in[q], piece{me, i, recvs[k].block(dsts[k], i, u)})
		}
	}
	inOrder := func(ps []piece) [][]byte {
		slices.SortFunc(ps, func(a, b piece) int { return cmp.Or(a.rank-b.rank, a.dir-b.dir) })
		bs := make([][]byte, len(ps))
		for i, p := range ps {
			bs[i] = p.b
		}
		return bs
	}
	for _, q := range slices.Sorted(maps.Keys(out)) {
		xs, copies := g.piecesOrMessages(g.node(q), inOrder(out[q]), false)
		r.Copies = append(r.Copies, copies...)
		r.Sends = append(r.Sends, xs...)
		xs, copies = g.piecesOrMessages(g.node(q), inOrder(in[q]), true)
		r.Recvs = append(r.Recvs, xs...)
		post.Copies = append(post.Copies, copies...)
	}
	if post.Copies == nil {
		return []Round{r}
	}
	return []Round{r, post}
}
