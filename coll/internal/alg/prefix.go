package alg

// Prefix reductions, after the spec's four steps, between nodes: (1) each
// node folds its members' runs of each row (consecutive in the array, since
// the team is node-major); (2) a scan over node ranks carries those
// partials (round k: node rank p sends to p+2^k), giving for every row the
// fold of the runs of lower nodes; (3) when the array spans more than one
// row, the last node (which then holds every row's total) prefixes the row
// totals and broadcasts them; (4) each member finishes its runs with one
// callback per run, carrying the fold of its row along to the next member.
// Results are computed in the source layout and then moved to the
// destination layout when the two differ (reblocking). A team that is not
// node-major takes GatheredSched's path instead.

// PrefixSched builds the schedule; exclusive leaves the first element's
// result undefined (unwritten) and gives element j the fold of 0..j-1.
func PrefixSched(g Geom, t Tree, rd Reducer, sd, dd Dist, dst, src [][]byte, exclusive bool) []Round {
	rows, me, es := sd.rows(), g.Me, rd.ElemSize
	// The scan's format: dense (no presence bytes) when every node holds an
	// element in every row, so that a single element is used where it lies.
	sh := shape{Rows: rows, es: es, Dense: rows == 1 && everyNodeHolds(g, sd, 1)}
	runs := memberRuns(g, sd)
	own, fill, _ := rd.ownPartials(g, sh, sd, src, nil)
	cur := Round{Copies: fill}
	var rs []Round

	// Step 2: inc covers node ranks 0..me, exc 0..me-1, per row. exc
	// starts absent; the first vector received becomes it as it is.
	inc, exc := own, shape{Rows: rows, es: es}.empty(g)
	excSet := false
	ownClient := fill == nil // own is the caller's source as it lies (see ReduceSched)
	for k := 0; 1<<k < g.P; k++ {
		d := 1 << k
		if me+d < g.P {
			cur.Sends = append(cur.Sends, Xfer{g.node(me + d), 2 + k, inc.buf, ownClient && &inc.buf[0] == &own.buf[0]})
		}
		if me-d < 0 {
			continue
		}
		in := sh.new(g)
		cur.Recvs = append(cur.Recvs, Xfer{g.node(me - d), 2 + k, in.buf, false})
		rs = append(rs, cur)
		cur = Round{}
		// inc is needed again only if a later round sends it, or for the
		// row totals on the last node.
		if me+2*d < g.P || (rows > 1 && me == g.P-1) {
			i0, i1 := inc, sh.new(g)
			cur.Copies = append(cur.Copies, compute(false, false, func() { rd.combineInto(i1, in, i0) }))
			inc = i1
		}
		if excSet {
			e0, e1 := exc, sh.new(g)
			cur.Copies = append(cur.Copies, compute(false, false, func() { rd.combineInto(e1, in, e0) }))
			exc = e1
		} else {
			exc, excSet = in, true
		}
	}

	// Step 3: before[r] is the fold of every row before r.
	before := shape{Rows: rows, es: es}.empty(g) // written only when there is more than one row
	if rows > 1 {
		if me == g.P-1 {
			totals := inc
			cur.Copies = append(cur.Copies, compute(false, false, func() { rowPrefix(rd, before, totals) }))
		}
		rs = append(rs, cur)
		gb := g
		gb.Block = len(before.buf) // the broadcast's block is the whole vector
		bc := bcastRounds(gb, t, g.P-1, before.buf, [][]byte{before.buf})
		for i := range bc { // sub 1: apart from the scan's
			for k := range bc[i].Sends {
				bc[i].Sends[k].Sub, bc[i].Sends[k].Client = 1, false
			}
			for k := range bc[i].Recvs {
				bc[i].Recvs[k].Sub, bc[i].Recvs[k].Client = 1, false
			}
			bc[i].Copies = nil
		}
		rs = append(rs, bc...)
		cur = Round{}
	}

	// Step 4: the results of each run, in the source layout.
	out, direct := prefixOut(g, sd, dd, dst, es)
	excl, fin := exc, newFinisher(g, rd, rows)
	cur.Copies = append(cur.Copies, compute(true, direct, func() {
		fin.finish(runs, before, excl, out, src, exclusive)
	}))
	rs = append(rs, cur)
	if direct {
		return rs
	}
	return append(rs, reblockRounds(g, sd, dd, out, dst, es, exclusive)...)
}

// prefixOut is where results in the source layout go: the destinations
// themselves when the layouts agree (direct), else internal buffers.
func prefixOut(g Geom, sd, dd Dist, dst [][]byte, es int) (out [][]byte, direct bool) {
	if sd.Layout == dd.Layout {
		return dst, true
	}
	out = make([][]byte, len(g.Mem))
	for k, r := range g.Mem {
		out[k] = g.Buf(sd.LocalLen(r) * es)
	}
	return out, false
}

// rowPrefix sets before[r] to the fold of totals[0..r-1].
func rowPrefix(rd Reducer, before, totals partials) {
	acc := shape{Rows: 1, es: rd.ElemSize}.empty(Geom{})
	tmp := make([]byte, rd.ElemSize)
	for r := 0; r < totals.rows; r++ {
		before.mark(r, acc.has(0))
		if acc.has(0) {
			copy(before.elem(r), acc.elem(0))
		}
		if !totals.has(r) {
			continue
		}
		if acc.has(0) {
			rd.Call(tmp, acc.elem(0), totals.elem(r), rd.ElemSize)
			copy(acc.elem(0), tmp)
		} else {
			copy(acc.elem(0), totals.elem(r))
			acc.mark(0, true)
		}
	}
}

// finisher holds the buffers of step 4, made when the schedule is built
// (internal buffers: pooled when large).
type finisher struct {
	rd      Reducer
	pre     []byte   // one element: before op (exc or chain)
	tmp     []byte   // two elements, with several members
	chain   partials // per row, with several members: exc, then the lower members' runs
	inChain []bool   // rows whose value before the next run is in chain, not exc
}

func newFinisher(g Geom, rd Reducer, rows int) *finisher {
	f := &finisher{rd: rd, pre: g.Buf(rd.ElemSize)}
	if len(g.Mem) > 1 {
		f.tmp, f.chain, f.inChain = g.Buf(2*rd.ElemSize), shape{Rows: rows, es: rd.ElemSize}.new(g), make([]bool, rows)
	}
	return f
}

// finish writes each member's prefix results at its local indices of
// out[k]. The value before a run is the fold of the earlier rows (before),
// of the lower nodes' runs in its row (exc) and of the lower members' runs
// in its row, in that order; the last two are carried from member to
// member in chain, so that one member (one image per node) needs no copy.
func (f *finisher) finish(runs [][]elemRun, before, exc partials, out, src [][]byte, exclusive bool) {
	rd, es := f.rd, f.rd.ElemSize
	clear(f.inChain)
	for k, rs := range runs {
		for _, run := range rs {
			r := run.row
			var cur []byte // the fold of the lower nodes' and members' runs in row r
			switch {
			case f.inChain != nil && f.inChain[r]:
				cur = f.chain.elem(r)
			case exc.has(r):
				cur = exc.elem(r)
			}
			var left []byte
			switch hb := before.has(r); {
			case hb && cur != nil:
				rd.Call(f.pre, before.elem(r), cur, es)
				left = f.pre
			case hb:
				left = before.elem(r)
			default:
				left = cur
			}
			in := src[k][run.Local*es : (run.Local+run.N)*es]
			res := out[k][run.Local*es : (run.Local+run.N)*es]
			if !exclusive {
				rd.Call(res, left, in, es)
			} else {
				if left != nil { // else: the array's first element, undefined
					copy(res[:es], left)
				}
				if run.N > 1 {
					rd.Call(res[es:], left, in[:len(in)-es], es)
				}
			}
			if k == len(runs)-1 {
				continue
			}
			// Carry this run along to the next members of its row.
			rd.fold(f.tmp[:es], in)
			if cur != nil {
				rd.Call(f.tmp[es:], cur, f.tmp[:es], es)
				copy(f.chain.elem(r), f.tmp[es:])
			} else {
				copy(f.chain.elem(r), f.tmp[:es])
			}
			f.inChain[r] = true
		}
	}
}

// reblockRounds moves results from the source layout (in, each member's
// local array) to the destination layout (dst): one packed message per
// pair of nodes, elements in array order; copies between members of a node.
func reblockRounds(g Geom, sd, dd Dist, in, dst [][]byte, es int, exclusive bool) []Round {
	type seg struct{ from, to, n, km, kd int } // local indices in the two layouts; source and destination members
	sends := make([][]seg, g.P)
	recvs := make([][]seg, g.P)
	var local []seg
	j := 0
	if exclusive { // element 0 has no defined value to move
		j = 1
	}
	for j < sd.Count {
		e := min(sd.segEnd(j), dd.segEnd(j))
		ps, ls := sd.place(j)
		pd, ld := dd.place(j)
		qs, qd := g.nodeRankOf(ps), g.nodeRankOf(pd)
		s := seg{ls, ld, e - j, g.Member(ps), g.Member(pd)}
		switch {
		case qs == g.Me && qd == g.Me:
			local = append(local, s)
		case qs == g.Me:
			sends[qd] = append(sends[qd], s)
		case qd == g.Me:
			recvs[qs] = append(recvs[qs], s)
		}
		j = e
	}
	var r0, r1 Round
	size := func(ss []seg) int {
		n := 0
		for _, s := range ss {
			n += s.n * es
		}
		return n
	}
	r0.Copies = append(r0.Copies, compute(true, true, func() {
		for _, s := range local {
			CopyData(dst[s.kd][s.to*es:(s.to+s.n)*es], in[s.km][s.from*es:(s.from+s.n)*es])
		}
	}))
	for i := 1; i < g.P; i++ {
		q := (g.Me + i) % g.P
		if ss := sends[q]; len(ss) > 0 {
			buf := g.Buf(size(ss))
			r0.Copies = append(r0.Copies, compute(false, false, func() {
				k := 0
				for _, s := range ss {
					k += CopyData(buf[k:], in[s.km][s.from*es:(s.from+s.n)*es])
				}
			}))
			r0.Sends = append(r0.Sends, Xfer{g.node(q), subReblock, buf, false})
		}
		q = (g.Me - i + g.P) % g.P
		if ss := recvs[q]; len(ss) > 0 {
			buf := g.Buf(size(ss))
			r0.Recvs = append(r0.Recvs, Xfer{g.node(q), subReblock, buf, false})
			r1.Copies = append(r1.Copies, compute(true, true, func() {
				k := 0
				for _, s := range ss {
					k += CopyData(dst[s.kd][s.to*es:(s.to+s.n)*es], buf[k:])
				}
			}))
		}
	}
	return []Round{r0, r1}
}

// Gathered says what GatheredSched computes. GatheredSched serves the
// non-commutative reductions and the prefix reductions of a team that is
// not node-major, where a node's members are not consecutive in the array
// and cannot be folded together before leaving it: every image's row
// partials (its fold of each row, with presence) go to every node by a
// gather_all between nodes, and then each node computes its results with
// all of them at hand, in array order. It costs P partial vectors per node
// instead of log P messages of one.
//
// With Reduce set it reduces to team rank DstImg (dst[0] its destination
// when on this node); with All to every member (dst per member); else it
// is a prefix reduction into the destination layout DD.
type Gathered struct {
	Reduce, All, Exclusive bool
	DstImg                 int
	DD                     Dist
}

// GatheredSched is the schedule of a reduction or prefix reduction by
// gathered partials (Gathered).
func GatheredSched(g Geom, algo GatherAllAlgo, t Tree, rd Reducer, sd Dist, dst, src [][]byte, how Gathered) []Round {
	rows, es := sd.rows(), rd.ElemSize
	sh := shape{Rows: rows, es: es}
	vb := rows*es + rows // a partial vector, presence bytes included
	po := g.offsets()
	gg := g
	gg.Block = vb
	pk := g.Buf(g.Team.Size() * vb)
	runs := memberRuns(g, sd)
	owns := make([][]byte, len(g.Mem))
	tmp := g.Buf(3 * es)
	var locals []CopyOp
	for k := range g.Mem {
		owns[k] = gg.block(pk, po[g.Me]+k) // computed in place: the gather's own copy is then none
		v := partials{buf: owns[k], rows: rows, es: es}
		segs := segments(rows, runs[k:k+1], src[k:k+1], es)
		locals = append(locals, compute(true, false, func() { rd.local(v, segs, tmp) }))
	}
	rs := GatherAllRounds(gg, algo, pk, false, po, owns)
	rs[0].Copies = append(locals, rs[0].Copies...)
	at := make([]int, g.Team.Size()) // team rank -> its vector's block in pk (packed order)
	for q := range g.P {
		for i, r := range g.Team.Members(q) {
			at[r] = po[q] + i
		}
	}
	part := func(r int) partials { return partials{buf: gg.block(pk, at[r]), rows: rows, es: es} }
	acc := newAccum(rd)
	var last Round
	switch {
	case how.Reduce || how.All:
		var into [][]byte
		if how.All {
			into = dst
		} else if k := g.Member(how.DstImg); k >= 0 {
			into = dst[k : k+1]
		}
		if into == nil {
			return rs
		}
		last.Copies = append(last.Copies, compute(true, true, func() {
			acc.reset()
			for r := 0; r < rows; r++ {
				for p := 0; p < g.Team.Size(); p++ {
					if v := part(p); v.has(r) {
						acc.push(v.elem(r))
					}
				}
			}
			for _, d := range into {
				copy(d[:es], acc.value())
			}
		}))
		return append(rs, last)
	}
	// A prefix: each member gets the fold of the rows before each of its
	// runs' and of the lower ranks' runs in the run's row.
	out, direct := prefixOut(g, sd, how.DD, dst, es)
	before, exc := sh.empty(g), sh.empty(g)
	fin := newFinisher(g, rd, rows)
	last.Copies = append(last.Copies, compute(true, direct, func() {
		acc.reset()
		for r := 0; r < rows; r++ { // before[r]: every image's rows < r
			before.mark(r, acc.has)
			if acc.has {
				copy(before.elem(r), acc.value())
			}
			for p := 0; p < g.Team.Size(); p++ {
				if v := part(p); v.has(r) {
					acc.push(v.elem(r))
				}
			}
		}
		for k, me := range g.Mem {
			for r := 0; r < rows; r++ {
				acc.reset()
				for p := 0; p < me; p++ {
					if v := part(p); v.has(r) {
						acc.push(v.elem(r))
					}
				}
				exc.mark(r, acc.has)
				if acc.has {
					copy(exc.elem(r), acc.value())
				}
			}
			fin.finish(runs[k:k+1], before, exc, out[k:k+1], src[k:k+1], how.Exclusive)
		}
	}))
	rs = append(rs, last)
	if direct {
		return rs
	}
	return append(rs, reblockRounds(g, sd, how.DD, out, dst, es, how.Exclusive)...)
}

// accum folds a sequence of elements left to right.
type accum struct {
	rd   Reducer
	v, t []byte
	has  bool
}

func newAccum(rd Reducer) *accum {
	return &accum{rd: rd, v: make([]byte, rd.ElemSize), t: make([]byte, rd.ElemSize)}
}

func (a *accum) reset() { a.has = false }

func (a *accum) push(x []byte) {
	if !a.has {
		copy(a.v, x)
		a.has = true
		return
	}
	a.rd.Call(a.t, a.v, x, a.rd.ElemSize)
	a.v, a.t = a.t, a.v
}

func (a *accum) value() []byte { return a.v }
