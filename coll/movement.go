package coll

// Schedules of the five data-movement collectives, for one node. team
// ranks map to nodes through g.node; blocks are nbytes long and indexed by
// team rank.

// geom is what every schedule builder needs.
type geom struct {
	P, me int
	n     int           // bytes per block
	node  func(int) int // team rank -> node
	sc    *scratch      // internal buffers, returned when the operation finishes
}

// buf is an internal buffer of n bytes (contents undefined).
func (g geom) buf(n int) []byte { return g.sc.get(n) }

func (g geom) rel(root int) int    { return (g.me - root + g.P) % g.P }
func (g geom) abs(root, v int) int { return (v + root) % g.P }
func (g geom) block(b []byte, i int) []byte {
	return b[i*g.n : (i+1)*g.n]
}

// piece is a run of whole blocks [first, first+count) with no wrap.
type piece struct{ first, count int }

// pieces splits the cyclic run of count blocks starting at block lo (which
// may be negative or >= P) into at most two runs that do not wrap.
func (g geom) pieces(lo, count int) []piece {
	s := ((lo % g.P) + g.P) % g.P
	if s+count <= g.P {
		return []piece{{s, count}}
	}
	return []piece{{s, g.P - s}, {0, count - (g.P - s)}}
}

func (g geom) run(b []byte, p piece) []byte { return b[p.first*g.n : (p.first+p.count)*g.n] }

// broadcastSched: the root sends src down the tree; every other node
// receives into dst and forwards from it, largest subtree first.
func broadcastSched(g geom, t Tree, root int, dst, src []byte) []round {
	pos := t.locate(g.P, g.rel(root))
	var r0, r1 round
	from := dst
	if pos.parent < 0 {
		from = src
		if dst != nil {
			r0.copies = append(r0.copies, cpOwn(dst[:g.n], src[:g.n]))
		}
	} else {
		r0.recvs = append(r0.recvs, xfer{g.node(g.abs(root, pos.parent)), 0, dst[:g.n], true})
	}
	for i := len(pos.children) - 1; i >= 0; i-- {
		c := pos.children[i]
		r1.sends = append(r1.sends, xfer{g.node(g.abs(root, c.lo)), 0, from[:g.n], true})
	}
	if pos.parent < 0 {
		r0.sends, r1.sends = r1.sends, nil
		return []round{r0}
	}
	return []round{r0, r1}
}

// scatterSched: each edge carries the blocks of the child's whole subtree;
// inner nodes receive their subtree's blocks into an internal buffer.
func scatterSched(g geom, t Tree, root int, dst, src []byte) []round {
	pos := t.locate(g.P, g.rel(root))
	var r0, r1 round
	if pos.parent < 0 {
		r0.copies = append(r0.copies, cpOwn(dst[:g.n], g.block(src, root)))
		for i := len(pos.children) - 1; i >= 0; i-- {
			c := pos.children[i]
			buf, copies := g.gatherRuns(src, g.abs(root, c.lo), c.size())
			r0.copies = append(r0.copies, copies...)
			r0.sends = append(r0.sends, xfer{g.node(g.abs(root, c.lo)), 0, buf, len(copies) == 0})
		}
		return []round{r0}
	}
	parent := g.node(g.abs(root, pos.parent))
	if pos.sub.size() == 1 {
		r0.recvs = append(r0.recvs, xfer{parent, 0, dst[:g.n], true})
		return []round{r0}
	}
	tmp := g.buf(pos.sub.size() * g.n)
	r0.recvs = append(r0.recvs, xfer{parent, 0, tmp, false})
	r1.copies = append(r1.copies, cp(dst[:g.n], tmp[:g.n], true))
	for i := len(pos.children) - 1; i >= 0; i-- {
		c := pos.children[i]
		off := c.lo - pos.sub.lo
		r1.sends = append(r1.sends, xfer{g.node(g.abs(root, c.lo)), 0, tmp[off*g.n : (off+c.size())*g.n], false})
	}
	return []round{r0, r1}
}

// gatherRuns returns the count blocks of b starting at absolute block lo as
// one buffer: a slice of b when they do not wrap, else an internal buffer
// and the client-reading copies that fill it.
func (g geom) gatherRuns(b []byte, lo, count int) ([]byte, []copyOp) {
	ps := g.pieces(lo, count)
	if len(ps) == 1 {
		return g.run(b, ps[0]), nil
	}
	tmp := g.buf(count * g.n)
	k := ps[0].count * g.n // the copies run when the round starts, never while building
	return tmp, []copyOp{cp(tmp[:k], g.run(b, ps[0]), false), cp(tmp[k:], g.run(b, ps[1]), false)}
}

// gatherSched: the scatter tree reversed; inner nodes collect their
// subtree's blocks in an internal buffer before sending it up.
func gatherSched(g geom, t Tree, root int, dst, src []byte) []round {
	pos := t.locate(g.P, g.rel(root))
	var r0, r1 round
	if pos.parent < 0 {
		r0.copies = append(r0.copies, cp(g.block(dst, root), src[:g.n], true))
		for _, c := range pos.children {
			ps := g.pieces(g.abs(root, c.lo), c.size())
			if len(ps) == 1 {
				r0.recvs = append(r0.recvs, xfer{g.node(g.abs(root, c.lo)), 0, g.run(dst, ps[0]), true})
				continue
			}
			tmp := g.buf(c.size() * g.n)
			k := ps[0].count * g.n
			r0.recvs = append(r0.recvs, xfer{g.node(g.abs(root, c.lo)), 0, tmp, false})
			r1.copies = append(r1.copies, cp(g.run(dst, ps[0]), tmp[:k], true),
				cp(g.run(dst, ps[1]), tmp[k:], true))
		}
		return []round{r0, r1}
	}
	parent := g.node(g.abs(root, pos.parent))
	if pos.sub.size() == 1 {
		r0.sends = append(r0.sends, xfer{parent, 0, src[:g.n], true})
		return []round{r0}
	}
	tmp := g.buf(pos.sub.size() * g.n)
	r0.copies = append(r0.copies, cp(tmp[:g.n], src[:g.n], false))
	for _, c := range pos.children {
		off := c.lo - pos.sub.lo
		r0.recvs = append(r0.recvs, xfer{g.node(g.abs(root, c.lo)), 0, tmp[off*g.n : (off+c.size())*g.n], false})
	}
	r1.sends = append(r1.sends, xfer{parent, 0, tmp, false})
	return []round{r0, r1}
}

// exchangeSched: node p sends its i-th block to rank (p+i) mod P for
// i = 1..P-1, so that in each step every node receives exactly once.
func exchangeSched(g geom, dst, src []byte) []round {
	var r round
	r.copies = append(r.copies, cpOwn(g.block(dst, g.me), g.block(src, g.me)))
	for i := 1; i < g.P; i++ {
		from := (g.me - i + g.P) % g.P
		r.recvs = append(r.recvs, xfer{g.node(from), 0, g.block(dst, from), true})
	}
	for i := 1; i < g.P; i++ {
		to := (g.me + i) % g.P
		r.sends = append(r.sends, xfer{g.node(to), 0, g.block(src, to), true})
	}
	return []round{r}
}

// gatherAllExchangeSched: like exchange, with the same block to everyone.
func gatherAllExchangeSched(g geom, dst, src []byte) []round {
	var r round
	r.copies = append(r.copies, cpOwn(g.block(dst, g.me), src[:g.n]))
	for i := 1; i < g.P; i++ {
		from := (g.me - i + g.P) % g.P
		r.recvs = append(r.recvs, xfer{g.node(from), 0, g.block(dst, from), true})
	}
	for i := 1; i < g.P; i++ {
		r.sends = append(r.sends, xfer{g.node((g.me + i) % g.P), 0, src[:g.n], true})
	}
	return []round{r}
}

// gatherAllDisseminationSched: in round i node p sends to (p+2^i) mod P
// the min(2^i, P-2^i) blocks ending at its own, so after ceil(lg P) rounds
// every node holds all P blocks and no block is sent twice to a node.
func gatherAllDisseminationSched(g geom, dst, src []byte) []round {
	var rs []round
	for i := 0; 1<<i < g.P; i++ {
		d := 1 << i
		c := min(d, g.P-d)
		var r round
		if i == 0 {
			r.copies = append(r.copies, cp(g.block(dst, g.me), src[:g.n], true))
		}
		from := (g.me - d + g.P) % g.P
		for k, p := range g.pieces(from-c+1, c) {
			r.recvs = append(r.recvs, xfer{g.node(from), 2*i + k, g.run(dst, p), true})
		}
		for k, p := range g.pieces(g.me-c+1, c) {
			r.sends = append(r.sends, xfer{g.node((g.me + d) % g.P), 2*i + k, g.run(dst, p), true})
		}
		rs = append(rs, r)
	}
	if len(rs) == 0 { // P == 1
		rs = append(rs, round{copies: []copyOp{cp(g.block(dst, g.me), src[:g.n], true)}})
	}
	return rs
}
