package coll

// Prefix reductions, after the spec's four steps: (1) each image folds its
// run of each row; (2) a scan over images carries those partials (round k:
// rank p sends to p+2^k), giving for every row the fold of the runs of
// lower images; (3) when the array spans more than one row, the last image
// (which then holds every row's total) prefixes the row totals and
// broadcasts them; (4) each image finishes its runs with one callback per
// run. Results are computed in the source layout and then moved to the
// destination layout when the two differ (reblocking).

// prefixSched builds the schedule; exclusive leaves the first element's
// result undefined (unwritten) and gives element j the fold of 0..j-1.
func prefixSched(g geom, t Tree, rd reducer, sd, dd dist, dst, src []byte, exclusive bool) []round {
	rows, me, es := sd.rows(), g.me, rd.es
	// The scan's format: dense (no presence bytes) when every image holds an
	// element in every row, so that a single element is used where it lies.
	sh := shape{rows: rows, es: es, dense: rows == 1 && everyImageHolds(sd)}
	runs := sd.runs(me)
	own, fill := rd.ownPartials(g, sh, sd, src)
	cur := round{copies: fill}
	var rs []round

	// Step 2: inc covers images 0..me, exc images 0..me-1, per row. exc
	// starts absent; the first vector received becomes it as it is.
	inc, exc := own, shape{rows: rows, es: es}.empty(g)
	excSet := false
	for k := 0; 1<<k < g.P; k++ {
		d := 1 << k
		if me+d < g.P {
			cur.sends = append(cur.sends, xfer{g.node(me + d), 2 + k, inc.buf, false})
		}
		if me-d < 0 {
			continue
		}
		in := sh.new(g)
		cur.recvs = append(cur.recvs, xfer{g.node(me - d), 2 + k, in.buf, false})
		rs = append(rs, cur)
		cur = round{}
		// inc is needed again only if a later round sends it, or for the
		// row totals on the last image.
		if me+2*d < g.P || (rows > 1 && me == g.P-1) {
			i0, i1 := inc, sh.new(g)
			cur.copies = append(cur.copies, compute(false, false, func() { rd.combineInto(i1, in, i0) }))
			inc = i1
		}
		if excSet {
			e0, e1 := exc, sh.new(g)
			cur.copies = append(cur.copies, compute(false, false, func() { rd.combineInto(e1, in, e0) }))
			exc = e1
		} else {
			exc, excSet = in, true
		}
	}

	// Step 3: before[r] is the fold of every row before r.
	before := shape{rows: rows, es: es}.empty(g) // written only when there is more than one row
	if rows > 1 {
		if me == g.P-1 {
			totals := inc
			cur.copies = append(cur.copies, compute(false, false, func() { rowPrefix(rd, before, totals) }))
		}
		rs = append(rs, cur)
		gb := g
		gb.n = len(before.buf) // the broadcast's block is the whole vector
		bc := broadcastSched(gb, t, g.P-1, before.buf, before.buf)
		for i := range bc { // sub 1: apart from the scan's
			for k := range bc[i].sends {
				bc[i].sends[k].sub, bc[i].sends[k].client = 1, false
			}
			for k := range bc[i].recvs {
				bc[i].recvs[k].sub, bc[i].recvs[k].client = 1, false
			}
			bc[i].copies = nil
		}
		rs = append(rs, bc...)
		cur = round{}
	}

	// Step 4: the results of each run, in the source layout.
	direct := sd.Layout == dd.Layout
	out := dst
	if !direct {
		out = g.buf(sd.localLen(me) * es)
	}
	excl, pre := exc, g.buf(es)
	cur.copies = append(cur.copies, compute(true, direct, func() {
		finishRuns(rd, runs, before, excl, out, src, pre, exclusive)
	}))
	rs = append(rs, cur)
	if direct {
		return rs
	}
	return append(rs, reblockRounds(g, sd, dd, out, dst, es, exclusive)...)
}

// rowPrefix sets before[r] to the fold of totals[0..r-1].
func rowPrefix(rd reducer, before, totals partials) {
	acc := shape{rows: 1, es: rd.es}.empty(geom{})
	tmp := make([]byte, rd.es)
	for r := 0; r < totals.rows; r++ {
		before.mark(r, acc.has(0))
		if acc.has(0) {
			copy(before.elem(r), acc.elem(0))
		}
		if !totals.has(r) {
			continue
		}
		if acc.has(0) {
			rd.fn(tmp, acc.elem(0), totals.elem(r), rd.es, rd.flags, rd.arg)
			copy(acc.elem(0), tmp)
		} else {
			copy(acc.elem(0), totals.elem(r))
			acc.mark(0, true)
		}
	}
}

// finishRuns writes each run's prefix results at its local indices of out.
// The value before a run is the fold of the earlier rows (before) and of
// the lower images' runs in its row (exc), in that order; pre (one element)
// holds their fold when both are present.
func finishRuns(rd reducer, runs []elemRun, before, exc partials, out, src, pre []byte, exclusive bool) {
	es := rd.es
	for _, run := range runs {
		var left []byte
		switch hb, he := before.has(run.row), exc.has(run.row); {
		case hb && he:
			rd.fn(pre, before.elem(run.row), exc.elem(run.row), es, rd.flags, rd.arg)
			left = pre
		case hb:
			left = before.elem(run.row)
		case he:
			left = exc.elem(run.row)
		}
		in := src[run.local*es : (run.local+run.n)*es]
		res := out[run.local*es : (run.local+run.n)*es]
		if !exclusive {
			rd.fn(res, left, in, es, rd.flags, rd.arg)
			continue
		}
		if left != nil { // else: the array's first element, undefined
			copy(res[:es], left)
		}
		if run.n > 1 {
			rd.fn(res[es:], left, in[:len(in)-es], es, rd.flags, rd.arg)
		}
	}
}

// reblockRounds moves results from the source layout (in, this image's
// local array) to the destination layout (dst): one packed message per pair
// of images, elements in array order.
func reblockRounds(g geom, sd, dd dist, in, dst []byte, es int, exclusive bool) []round {
	type seg struct{ from, to, n int } // local indices in the two layouts
	sends := make([][]seg, g.P)
	recvs := make([][]seg, g.P)
	var local []seg
	j := 0
	if exclusive { // element 0 has no defined value to move
		j = 1
	}
	for j < sd.count {
		e := min(sd.segEnd(j), dd.segEnd(j))
		ps, ls := sd.place(j)
		pd, ld := dd.place(j)
		s := seg{ls, ld, e - j}
		switch {
		case ps == g.me && pd == g.me:
			local = append(local, s)
		case ps == g.me:
			sends[pd] = append(sends[pd], s)
		case pd == g.me:
			recvs[ps] = append(recvs[ps], s)
		}
		j = e
	}
	var r0, r1 round
	size := func(ss []seg) int {
		n := 0
		for _, s := range ss {
			n += s.n * es
		}
		return n
	}
	r0.copies = append(r0.copies, compute(true, true, func() {
		for _, s := range local {
			copy(dst[s.to*es:(s.to+s.n)*es], in[s.from*es:(s.from+s.n)*es])
		}
	}))
	for i := 1; i < g.P; i++ {
		q := (g.me + i) % g.P
		if ss := sends[q]; len(ss) > 0 {
			buf := g.buf(size(ss))
			r0.copies = append(r0.copies, compute(false, false, func() {
				k := 0
				for _, s := range ss {
					k += copy(buf[k:], in[s.from*es:(s.from+s.n)*es])
				}
			}))
			r0.sends = append(r0.sends, xfer{g.node(q), subReblock, buf, false})
		}
		q = (g.me - i + g.P) % g.P
		if ss := recvs[q]; len(ss) > 0 {
			buf := g.buf(size(ss))
			r0.recvs = append(r0.recvs, xfer{g.node(q), subReblock, buf, false})
			r1.copies = append(r1.copies, compute(true, true, func() {
				k := 0
				for _, s := range ss {
					k += copy(dst[s.to*es:(s.to+s.n)*es], buf[k:])
				}
			}))
		}
	}
	return []round{r0, r1}
}
