package alg

import (
	"github.com/gocoll/gocoll/internal/engine"
	"github.com/gocoll/gocoll/reducefn"
)

// Reducer calls one registered function in the spec's shape.
type Reducer struct {
	Fn       reducefn.Func
	Flags    reducefn.Flags
	Arg      int
	ElemSize int  // element size
	Scalar   int  // the entry's Scalar: > 0 when elements may be split
	Own      bool // a ready-made entry (reducefn.Entry.Own): no user code
}

// Commutative reports whether the function may combine in any order.
func (rd Reducer) Commutative() bool { return rd.Flags&reducefn.NonComm == 0 }

// Call runs the registered function on elements of es bytes, as user code
// (engine.CallUser): a call into gocoll from it fails the collective with
// ErrReentrant, and its panic reaches the application (internal/engine, user.go).
// A ready-made entry of package reducefn is not user code and runs bare.
func (rd Reducer) Call(results, left, right []byte, es int) {
	if rd.Own { // gocoll's own operator: not user code
		rd.Fn(results, left, right, es, rd.Flags, rd.Arg)
		return
	}
	engine.CallUser(func() { rd.Fn(results, left, right, es, rd.Flags, rd.Arg) })
}

// fold sets res to the left-to-right fold of the one or more elements in xs.
func (rd Reducer) fold(res, xs []byte) {
	k := len(xs) - rd.ElemSize
	if k == 0 {
		if !Identical(res, xs) { // a result folded in place is there already
			copy(res, xs)
		}
		return
	}
	rd.Call(res, xs[:k], xs[k:], rd.ElemSize)
}

// partials holds one optional element per row: rows*es bytes of elements,
// then one presence byte per row. It is also the wire format between nodes.
// When every image holds an element in every row (dense), every partial is
// present and the presence bytes are left out, so that a single element
// can be used where it lies.
type partials struct {
	buf      []byte
	rows, es int
	dense    bool
}

// shape is the format of a reduction's partials, the same on every node.
type shape struct {
	Rows, es int
	Dense    bool
}

func (sh shape) new(g Geom) partials {
	n := sh.Rows * sh.es
	if !sh.Dense {
		n += sh.Rows
	}
	return partials{buf: g.Buf(n), rows: sh.Rows, es: sh.es, dense: sh.Dense}
}

// empty is a partial with no row present.
func (sh shape) empty(g Geom) partials {
	v := sh.new(g)
	clear(v.buf)
	return v
}

// over is a dense single-row partial held in b.
func (sh shape) over(b []byte) partials { return partials{buf: b, rows: 1, es: sh.es, dense: true} }

func (v partials) elem(r int) []byte { return v.buf[r*v.es : (r+1)*v.es] }
func (v partials) has(r int) bool    { return v.dense || v.buf[v.rows*v.es+r] != 0 }
func (v partials) mark(r int, on bool) {
	if v.dense {
		return
	}
	if on {
		v.buf[v.rows*v.es+r] = 1
	} else {
		v.buf[v.rows*v.es+r] = 0
	}
}

// combineInto sets out[r] = a[r] op b[r] for each row, a lying to the left;
// a missing operand leaves the other. out may alias neither a nor b.
func (rd Reducer) combineInto(out, a, b partials) {
	if out.dense { // every row present everywhere (the shape is the reduction's)
		for r := 0; r < out.rows; r++ {
			rd.Call(out.elem(r), a.elem(r), b.elem(r), rd.ElemSize)
		}
		return
	}
	for r := 0; r < out.rows; r++ {
		switch ha, hb := a.has(r), b.has(r); {
		case ha && hb:
			rd.Call(out.elem(r), a.elem(r), b.elem(r), rd.ElemSize)
		case ha:
			copy(out.elem(r), a.elem(r))
		case hb:
			copy(out.elem(r), b.elem(r))
		}
		out.mark(r, a.has(r) || b.has(r))
	}
}

// local sets v to a node's contribution from its members' segments:
// segs[r] are row r's element ranges, in member (so array) order, each a
// member's run or, with rows == 1, a member's whole local range (a
// commutative operator, or a single row). Members are folded in rank
// order; where their runs share a row they are consecutive in the array
// (non-commutative operators need a node-major team, see build). tmp holds
// three elements.
func (rd Reducer) local(v partials, segs [][][]byte, tmp []byte) {
	for r := 0; r < v.rows; r++ {
		if len(segs[r]) == 0 {
			v.mark(r, false)
			continue
		}
		rd.foldSegs(v.elem(r), segs[r], tmp)
		v.mark(r, true)
	}
}

// foldSegs sets out to the left-to-right fold of every element of segs
// (one or more ranges of elements) with as few passes over the data as the
// callback's shape allows: a one-element range is an operand as it lies,
// a longer one is folded once, and each combination writes a new buffer,
// the last one out. tmp holds three elements.
func (rd Reducer) foldSegs(out []byte, segs [][]byte, tmp []byte) {
	es := rd.ElemSize
	if len(segs) == 1 {
		rd.fold(out, segs[0])
		return
	}
	value := func(seg, scratch []byte) []byte {
		if len(seg) == es {
			return seg
		}
		rd.fold(scratch, seg)
		return scratch
	}
	first, right, alt := tmp[:es], tmp[es:2*es], tmp[2*es:3*es]
	acc := value(segs[0], first)
	n := len(segs)
	for i := 1; i < n; i++ {
		target := alt // alternate so that the last combination writes out
		if (n-1-i)%2 == 0 {
			target = out
		}
		rd.Call(target, acc, value(segs[i], right), es)
		acc = target
	}
}

// segments are this node's element ranges per row (see local): rows
// entries, from its members' runs and local arrays.
func segments(rows int, runs [][]elemRun, src [][]byte, es int) [][][]byte {
	return segmentsInto(make([][][]byte, rows), runs, src, es)
}

// segmentsInto is segments reusing segs (one entry per row) and its lists.
func segmentsInto(segs [][][]byte, runs [][]elemRun, src [][]byte, es int) [][][]byte {
	rows := len(segs)
	for r := range segs {
		segs[r] = segs[r][:0]
	}
	for k, rs := range runs {
		if len(rs) == 0 {
			continue
		}
		if rows == 1 { // a member's elements are one contiguous local range
			first, last := rs[0], rs[len(rs)-1]
			segs[0] = append(segs[0], src[k][first.Local*es:(last.Local+last.N)*es])
			continue
		}
		for _, run := range rs {
			segs[run.row] = append(segs[run.row], src[k][run.Local*es:(run.Local+run.N)*es])
		}
	}
	return segs
}

// total sets res to the fold of v's present rows in row order; it reports
// false when no row is present.
func (rd Reducer) total(res []byte, v partials) bool {
	if v.dense {
		rd.fold(res, v.buf[:v.rows*v.es])
		return true
	}
	var present []byte
	n := 0
	for r := 0; r < v.rows; r++ {
		if v.has(r) {
			n++
		}
	}
	switch n {
	case 0:
		return false
	case v.rows:
		present = v.buf[:v.rows*v.es]
	default:
		present = make([]byte, 0, n*v.es)
		for r := 0; r < v.rows; r++ {
			if v.has(r) {
				present = append(present, v.elem(r)...)
			}
		}
	}
	rd.fold(res, present)
	return true
}

// ShapeFor is the format of the partials: a commutative operator folds all
// of a node's elements into one partial; a non-commutative one keeps a
// partial per row, since a node's rows are not consecutive in the array.
func (rd Reducer) ShapeFor(g Geom, d Dist) shape {
	sh := shape{Rows: 1, es: rd.ElemSize}
	if !rd.Commutative() {
		sh.Rows = d.rows()
	}
	sh.Dense = everyNodeHolds(g, d, sh.Rows)
	return sh
}

// memberRuns are the runs of each of this node's members.
func memberRuns(g Geom, d Dist) [][]elemRun {
	rs := make([][]elemRun, len(g.Mem))
	for k, r := range g.Mem {
		rs[k] = d.Runs(r)
	}
	return rs
}

// everyNodeHolds reports whether every node holds an element in each of
// the rows (any element, with rows == 1).
func everyNodeHolds(g Geom, d Dist, rows int) bool {
	for q := range g.P {
		present := make([]bool, rows)
		n := 0
		for _, r := range g.Team.Members(q) {
			for _, run := range d.Runs(r) {
				row := run.row
				if rows == 1 {
					row = 0
				}
				if !present[row] {
					present[row] = true
					n++
				}
			}
		}
		if n < rows {
			return false
		}
	}
	return true
}

// ownPartials is this node's contribution: its single element where it
// lies when it has just one (dense), else a buffer that compute fills: into
// (then used reports it) when given, with one row and every node holding an
// element, else an internal one.
func (rd Reducer) ownPartials(g Geom, sh shape, d Dist, src [][]byte, into []byte) (own partials, fill []CopyOp, used bool) {
	runs := memberRuns(g, d)
	if sh.Dense && sh.Rows == 1 && len(runs) == 1 && len(runs[0]) == 1 && runs[0][0].N == 1 {
		run := runs[0][0]
		return sh.over(src[0][run.Local*rd.ElemSize : (run.Local+1)*rd.ElemSize]), nil, false
	}
	used = into != nil && sh.Dense && sh.Rows == 1
	own = sh.new(g)
	if used {
		own = sh.over(into[:rd.ElemSize])
	}
	segs, tmp := segments(sh.Rows, runs, src, rd.ElemSize), g.Buf(3*rd.ElemSize)
	return own, []CopyOp{compute(true, used, func() { rd.local(own, segs, tmp) })}, used
}

// ReduceSched reduces to team rank dstImg, whose destination dst is on
// this node when dst is not nil: contributions travel up a tree of nodes
// whose subtrees are consecutive node ranks, each node combining its own
// partials with its children's in rank order. Commutative operators use
// the tree rooted at dstImg's node; non-commutative ones the tree rooted at
// node rank 0 (in a node-major team node rank order is image order), and
// node rank 0 forwards the result.
func ReduceSched(g Geom, t Tree, rd Reducer, d Dist, dstImg int, dst []byte, src [][]byte) []Round {
	sh := rd.ShapeFor(g, d)
	qDst := g.nodeRankOf(dstImg)
	root := qDst
	if !rd.Commutative() {
		root = 0
	}
	pos := t.locate(g.P, g.rel(root))
	var into []byte // one node: the result is the node's own fold
	if g.P == 1 {
		into = dst
	}
	own, fill, inDst := rd.ownPartials(g, sh, d, src, into)
	r0 := Round{Copies: fill}
	if inDst {
		return []Round{r0}
	}
	// own may be the caller's source as it lies: reading it then touches
	// the caller's data areas, which OUT_MYSYNC waits for.
	ownClient := fill == nil
	// On dstImg's node with a dense single row the last step writes dst
	// itself; a ready-made function (which may write its result over its
	// right operand) gets the last child's partial in dst too and folds in
	// place, reading two vectors instead of three.
	direct := g.Me == qDst && pos.parent < 0 && sh.Dense && sh.Rows == 1 && len(pos.children) > 0
	kids := make([]partials, len(pos.children))
	for i, c := range pos.children {
		kids[i] = sh.new(g)
		into := direct && rd.Own && i == len(kids)-1
		if into {
			kids[i] = sh.over(dst[:rd.ElemSize])
		}
		r0.Recvs = append(r0.Recvs, Xfer{g.node(g.abs(root, c.lo)), 0, kids[i].buf, into})
	}
	// acc is own combined with each child in turn, each step in a new buffer.
	acc := own
	var r1 Round
	for i := range kids {
		last := direct && i == len(kids)-1
		in, kid, out := acc, kids[i], sh.new(g)
		if last {
			out = sh.over(dst[:rd.ElemSize])
		}
		r1.Copies = append(r1.Copies, compute(last || (i == 0 && ownClient), last, func() { rd.combineInto(out, in, kid) }))
		acc = out
	}
	if direct {
		return []Round{r0, r1}
	}
	if pos.parent >= 0 {
		r1.Sends = append(r1.Sends, Xfer{g.node(g.abs(root, pos.parent)), 0, acc.buf, len(kids) == 0 && ownClient})
		rs := []Round{r0, r1}
		if g.Me == qDst { // non-commutative, not node rank 0: the result comes from node rank 0
			rs = append(rs, Round{Recvs: []Xfer{{g.node(0), 1, dst[:rd.ElemSize], true}}})
		}
		return rs
	}
	// The tree's root holds every partial.
	if g.Me == qDst {
		r1.Copies = append(r1.Copies, compute(true, true, func() { rd.total(dst[:rd.ElemSize], acc) }))
		return []Round{r0, r1}
	}
	res := make([]byte, rd.ElemSize)
	r1.Copies = append(r1.Copies, compute(len(kids) == 0 && ownClient, false, func() { rd.total(res, acc) }))
	r1.Sends = append(r1.Sends, Xfer{g.node(qDst), 1, res, false})
	return []Round{r0, r1}
}

// foldInOrder is the computation that folds pieces (two or more, by node
// rank, each len(out) bytes) in rank order into out (client memory when
// client). Intermediate folds alternate between two buffers of the
// schedule (none with two nodes, one with three), not allocated at each run.
func (g Geom) foldInOrder(rd Reducer, pieces [][]byte, out []byte, client bool) CopyOp {
	n, last := len(out), len(pieces)-1
	var bufs [2][]byte
	for q := 1; q < last && q < 3; q++ {
		bufs[q%2] = g.Buf(n)
	}
	return compute(true, client, func() {
		acc := pieces[0]
		for q := 1; q <= last; q++ {
			o := out
			if q < last {
				o = bufs[q%2]
			}
			rd.Call(o, acc, pieces[q], n)
			acc = o
		}
	})
}

// ReduceScatterSched: every image gets its part (counts[rank] lanes of
// lane bytes) of the fold of the images' vectors, one element of
// rd.ElemSize bytes per image (Cyclic), in a node-major team. Each node
// folds its members' vectors (ownPartials), sends every other node the
// lanes of that node's members, and folds the pieces it receives in node
// rank order: so every image's part is computed once, by its node, in
// rank order, and moves once. The node's fold lands in its only member's
// destination, or in an internal buffer from which each member's part is
// copied.
func ReduceScatterSched(g Geom, rd Reducer, d Dist, counts []int, lane int, dsts, src [][]byte) []Round {
	at := make([]int, len(counts)+1) // bytes before rank r's lanes
	for r, c := range counts {
		at[r+1] = at[r] + c*lane
	}
	chunk := func(q int) (lo, hi int) { // node rank q's members are consecutive ranks
		mem := g.Team.Members(q)
		return at[mem[0]], at[mem[len(mem)-1]+1]
	}
	sh := shape{Rows: 1, es: rd.ElemSize, Dense: true}
	v, r0copies, _ := rd.ownPartials(g, sh, d, src, nil)
	own := v.elem(0)
	r0 := Round{Copies: r0copies}
	myLo, myHi := chunk(g.Me)
	n := myHi - myLo
	one := len(g.Mem) == 1
	mine := g.Buf(n)
	if one {
		mine = dsts[0][:n]
	}
	pieces := make([][]byte, g.P)
	pieces[g.Me] = own[myLo:myHi]
	for i := 1; i < g.P; i++ {
		from, to := (g.Me-i+g.P)%g.P, (g.Me+i)%g.P
		if n > 0 {
			pieces[from] = g.Buf(n)
			r0.Recvs = append(r0.Recvs, Xfer{g.node(from), 0, pieces[from], false})
		}
		if lo, hi := chunk(to); hi > lo {
			r0.Sends = append(r0.Sends, Xfer{g.node(to), 0, own[lo:hi], r0copies == nil})
		}
	}
	var r1 Round
	switch {
	case n == 0:
	case g.P == 1:
		r1.Copies = append(r1.Copies, Copy(mine, pieces[0], one))
	default:
		r1.Copies = append(r1.Copies, g.foldInOrder(rd, pieces, mine, one))
	}
	rs := []Round{r0, r1}
	if !one {
		var r2 Round
		for k, r := range g.Mem {
			if counts[r] > 0 {
				r2.Copies = append(r2.Copies, Copy(dsts[k][:counts[r]*lane], mine[at[r]-myLo:at[r+1]-myLo], true))
			}
		}
		rs = append(rs, r2)
	}
	return rs
}

// ReduceAllSched: every image gets the fold. Elements are exchanged whole
// (recursive doubling), or, with split (select.go: large elements) and
// where they can be split, by a reduce-scatter and a gather_all. The
// result lands in the first member's destination and is copied to the
// others'.
func ReduceAllSched(g Geom, rd Reducer, d Dist, dst, src [][]byte, split bool) []Round {
	var rs []Round
	if rd.Splits(g, d, split) {
		rs = reduceScatterGatherSched(g, rd, d, dst[0], src)
	} else {
		rs = recursiveDoublingSched(g, rd, d, dst[0], src)
	}
	return append(rs, spread(dst, rd.ElemSize)...)
}

// Splits reports whether a ReduceAll splits its elements (see
// ReduceAllSched), given the model's choice split.
func (rd Reducer) Splits(g Geom, d Dist, split bool) bool {
	return rd.Scalar > 0 && split && rd.ElemSize/rd.Scalar >= g.P && g.P > 1 && everyNodeHolds(g, d, 1) &&
		(rd.Commutative() || d.rows() == 1)
}

// spread copies the first n bytes of dst[0] to the other buffers of dst,
// once every earlier round is done.
func spread(dst [][]byte, n int) []Round {
	if len(dst) < 2 {
		return nil
	}
	var r Round
	for _, d := range dst[1:] {
		r.Copies = append(r.Copies, Copy(d[:n], dst[0][:n], true))
	}
	return []Round{r}
}

// recursiveDoublingSched: in step k, node rank n exchanges partials with
// n^2^k and combines them, the lower ranks' on the left, so every node
// folds the same operands the same way and all results are bitwise equal.
// With P not a power of two, the first 2*rem ranks pair up first (the odd
// one of each pair carries on) and the even ones get the result at the
// end; every rank in the doubling then stands for a run of consecutive
// nodes.
func recursiveDoublingSched(g Geom, rd Reducer, d Dist, dst []byte, src [][]byte) []Round {
	sh := rd.ShapeFor(g, d)
	P2 := 1
	for P2*2 <= g.P {
		P2 *= 2
	}
	rem := g.P - P2
	me := g.Me
	var into []byte // one node: the result is the node's own fold
	if g.P == 1 {
		into = dst
	}
	own, fill, inDst := rd.ownPartials(g, sh, d, src, into)
	cur := Round{Copies: fill}
	if inDst {
		return []Round{cur}
	}
	ownClient := fill == nil     // own is the caller's source as it lies (see ReduceSched)
	if me < 2*rem && me%2 == 0 { // hands its partials to me+1, gets the result back
		cur.Sends = append(cur.Sends, Xfer{g.node(me + 1), 0, own.buf, ownClient})
		final := sh.new(g)
		return []Round{cur,
			{Recvs: []Xfer{{g.node(me + 1), 1, final.buf, false}}},
			{Copies: []CopyOp{compute(true, true, func() { rd.total(dst[:rd.ElemSize], final) })}},
		}
	}
	var rs []Round
	acc := own
	nr := me - rem
	if me < 2*rem {
		nr = me / 2
		pre := sh.new(g)
		cur.Recvs = append(cur.Recvs, Xfer{g.node(me - 1), 0, pre.buf, false})
		rs = append(rs, cur)
		out := sh.new(g)
		cur = Round{Copies: []CopyOp{compute(ownClient, false, func() { rd.combineInto(out, pre, own) })}}
		acc = out
	}
	orig := func(n int) int {
		if n < rem {
			return 2*n + 1
		}
		return n + rem
	}
	for k := 0; 1<<k < P2; k++ {
		pn := nr ^ 1<<k
		in, out, mine := sh.new(g), sh.new(g), acc
		into := false
		if 1<<(k+1) == P2 && me >= 2*rem && sh.Dense && sh.Rows == 1 {
			out = sh.over(dst[:rd.ElemSize]) // the last step writes the result in place
			// and a ready-made function folds the partner's partial, on
			// the right, in place there (see ReduceSched)
			if into = rd.Own && pn > nr; into {
				in = out
			}
		}
		client := k == 0 && me >= 2*rem && ownClient // mine is the caller's source
		cur.Sends = append(cur.Sends, Xfer{g.node(orig(pn)), 2 + k, mine.buf, client})
		cur.Recvs = append(cur.Recvs, Xfer{g.node(orig(pn)), 2 + k, in.buf, into})
		rs = append(rs, cur)
		if pn < nr {
			cur = Round{Copies: []CopyOp{compute(client, false, func() { rd.combineInto(out, in, mine) })}}
		} else {
			cur = Round{Copies: []CopyOp{compute(client, false, func() { rd.combineInto(out, mine, in) })}}
		}
		acc = out
	}
	if me < 2*rem {
		cur.Sends = append(cur.Sends, Xfer{g.node(me - 1), 1, acc.buf, false})
	}
	final := acc
	cur.Copies = append(cur.Copies, compute(true, true, func() { rd.total(dst[:rd.ElemSize], final) }))
	return append(rs, cur)
}

// reduceScatterGatherSched splits each node's single partial into P chunks
// at multiples of the entry's Scalar; node rank i folds chunk i of every
// node in rank order straight into its destination, then gathers the
// others' chunks. Each chunk is computed once, so all images get the same
// bits.
func reduceScatterGatherSched(g Geom, rd Reducer, d Dist, dst []byte, src [][]byte) []Round {
	S := rd.ElemSize / rd.Scalar
	chunk := func(q int) (lo, hi int) { return q * S / g.P * rd.Scalar, (q + 1) * S / g.P * rd.Scalar }
	me := g.Me
	// own is the node's partial; a single local element is used in place.
	sh := shape{Rows: 1, es: rd.ElemSize, Dense: true}
	v, r0copies, _ := rd.ownPartials(g, sh, d, src, nil)
	own := v.elem(0)
	r0 := Round{Copies: r0copies}
	myLo, myHi := chunk(me)
	mine := dst[myLo:myHi]
	pieces := make([][]byte, g.P) // chunk me of each node's partial
	for i := 1; i < g.P; i++ {
		from := (me - i + g.P) % g.P
		// The last node's chunk, the last fold's right operand, comes
		// into dst for a ready-made function to fold in place (see
		// ReduceSched).
		into := rd.Own && from == g.P-1
		pieces[from] = mine
		if !into {
			pieces[from] = g.Buf(myHi - myLo)
		}
		r0.Recvs = append(r0.Recvs, Xfer{g.node(from), 0, pieces[from], into})
	}
	for i := 1; i < g.P; i++ {
		to := (me + i) % g.P
		lo, hi := chunk(to)
		r0.Sends = append(r0.Sends, Xfer{g.node(to), 0, own[lo:hi], r0copies == nil})
	}
	pieces[me] = own[myLo:myHi]
	var r1 Round
	r1.Copies = append(r1.Copies, g.foldInOrder(rd, pieces, mine, true))
	for i := 1; i < g.P; i++ {
		from := (me - i + g.P) % g.P
		lo, hi := chunk(from)
		r1.Recvs = append(r1.Recvs, Xfer{g.node(from), 1, dst[lo:hi], true})
	}
	for i := 1; i < g.P; i++ {
		r1.Sends = append(r1.Sends, Xfer{g.node((me + i) % g.P), 1, mine, true})
	}
	return []Round{r0, r1}
}
