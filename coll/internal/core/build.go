package core

import (
	"github.com/gocoll/gocoll/coll/internal/alg"
	"github.com/gocoll/gocoll/coll/internal/exec"
	"github.com/gocoll/gocoll/coll/internal/plan"
	"github.com/gocoll/gocoll/reducefn"
)

// Building a schedule: a plan key and its buffers to the rounds of the
// algorithm the choices pick (select.go).

// Build is the node's schedule of c, by its kind.
func (n *node) Build(g alg.Geom, c *plan.Call) []alg.Round {
	k := &c.Key
	switch k.Kind {
	case plan.Barrier:
		return alg.BarrierRounds(g, alg.SubBar)
	case plan.Broadcast:
		return alg.BroadcastSched(g, n.tree(TreeBroadcast, g.P, k.N), c.Key.Root, c.Dst, c.Src)
	case plan.Scatter:
		return alg.ScatterSched(g, n.tree(TreeBlocks, g.P, k.N), c.Key.Root, c.Dst, c.Src)
	case plan.Gather:
		return alg.GatherSched(g, n.tree(TreeBlocks, g.P, k.N), c.Key.Root, c.Dst, c.Src)
	case plan.GatherAll:
		return alg.GatherAllSched(g, n.gatherAllAlgo(g.P, k.N), c.Dst, c.Src)
	case plan.Exchange:
		return alg.ExchangeSched(g, c.Dst, c.Src)
	case plan.GatherV, plan.ScatterV, plan.GatherAllV, plan.ExchangeV, plan.NeighborExchange:
		return n.buildV(g, c)
	}
	if k.Kind == plan.ReduceScatter {
		return n.buildReduceScatter(g, c)
	}
	src, snaps := inPlaceSources(g, c)
	if snaps == nil {
		return n.buildReduction(g, c)
	}
	in := *c
	in.Src = src
	rs := n.buildReduction(g, &in)
	rs[0].Copies = append(snaps, rs[0].Copies...) // before anything reads a source
	return rs
}

// buildV is the schedule of a v-call: each member's extents from its
// VArgs; the counts every image passes alike are the first member's.
func (n *node) buildV(g alg.Geom, c *plan.Call) []alg.Round {
	k := &c.Key
	sends, recvs := make([]alg.VExt, len(c.V)), make([]alg.VExt, len(c.V))
	for m, v := range c.V {
		sends[m], recvs[m] = alg.VExt{Counts: v.Counts, Displs: v.Displs}, alg.VExt{Counts: v.RCounts, Displs: v.RDispls}
	}
	u, counts := k.ElemSize, c.V[0].Counts
	switch k.Kind {
	case plan.GatherV:
		return alg.GatherVSched(g, k.Root, u, counts, c.Dst, c.Src, sends)
	case plan.ScatterV:
		return alg.ScatterVSched(g, k.Root, u, counts, c.Dst, c.Src, sends)
	case plan.GatherAllV:
		return alg.GatherAllVSched(g, n.gatherAllAlgo(g.P, max(1, k.N/g.Team.Size())), u, counts, c.Dst, c.Src, sends)
	case plan.NeighborExchange:
		return alg.NeighborSched(g, c.V[0].Grid, u, c.Dst, c.Src, sends, recvs)
	}
	return alg.ExchangeVSched(g, u, c.Dst, c.Src, sends, recvs)
}

// SizeChoice is the algorithm build picks for a data-movement collective
// of key k on P nodes by its size (select.go): members of an aggregate
// fuse only where it is the same (internal/exec/aggregate.go).
func (n *node) SizeChoice(k *plan.Key, P int) int {
	switch k.Kind {
	case plan.Broadcast:
		return int(n.tree(TreeBroadcast, P, k.N))
	case plan.Scatter, plan.Gather:
		return int(n.tree(TreeBlocks, P, k.N))
	case plan.GatherAll:
		return int(n.gatherAllAlgo(P, k.N))
	case plan.GatherAllV:
		return int(n.gatherAllAlgo(P, max(1, k.N/k.Team.Size())))
	}
	return 0
}

// buildReduceScatter is the schedule of a reduce-scatter: its own in a
// node-major team; elsewhere (a node's members' parts would not be one
// run of the vector) the fold as ReduceAll makes it into an internal
// buffer, and each member's part copied from it.
func (n *node) buildReduceScatter(g alg.Geom, c *plan.Call) []alg.Round {
	k := &c.Key
	counts := c.V[0].Counts
	lane := k.ElemSize / plan.Total(counts)
	sd := alg.Dist{Layout: k.SrcLayout, P: g.Team.Size(), Count: k.Count}
	if g.Team.NodeMajor() {
		return alg.ReduceScatterSched(g, n.reducerOf(k), sd, counts, lane, c.Dst, c.Src)
	}
	all := g.Buf(k.ElemSize)
	in := plan.Call{Key: *k, Src: c.Src, Dst: make([][]byte, len(c.Dst))}
	in.Key.Kind = plan.ReduceAll
	for m := range in.Dst {
		in.Dst[m] = all
	}
	rs := n.buildReduction(g, &in)
	var parts alg.Round
	at := 0
	for r, cnt := range counts {
		if m := g.Member(r); m >= 0 && cnt > 0 {
			parts.Copies = append(parts.Copies, alg.Copy(c.Dst[m][:cnt*lane], all[at:at+cnt*lane], true))
		}
		at += cnt * lane
	}
	return append(rs, parts)
}

// buildReduction is the schedule of a computational collective.
func (n *node) buildReduction(g alg.Geom, c *plan.Call) []alg.Round {
	k := &c.Key
	rd := n.reducerOf(k)
	sd := alg.Dist{Layout: k.SrcLayout, P: g.Team.Size(), Count: k.Count}
	nm := g.Team.NodeMajor()
	algo := n.gatherAllAlgo(g.P, k.ElemSize)
	t := n.tree(TreeReduce, g.P, k.ElemSize)
	switch k.Kind {
	case plan.Reduce:
		if !rd.Commutative() && !nm {
			return alg.GatheredSched(g, algo, t, rd, sd, c.Dst, c.Src, alg.Gathered{Reduce: true, DstImg: k.Root})
		}
		var dst []byte
		if m := g.Member(k.Root); m >= 0 {
			dst = c.Dst[m]
		}
		return alg.ReduceSched(g, t, rd, sd, k.Root, dst, c.Src)
	case plan.ReduceAll:
		if !rd.Commutative() && !nm {
			return alg.GatheredSched(g, algo, t, rd, sd, c.Dst, c.Src, alg.Gathered{All: true})
		}
		return alg.ReduceAllSched(g, rd, sd, c.Dst, c.Src, n.opts.SplitsReduceAll(g.P, k.ElemSize))
	}
	dd := alg.Dist{Layout: k.DstLayout, P: g.Team.Size(), Count: k.Count}
	excl := k.Kind == plan.ExclusivePrefix
	if !nm {
		return alg.GatheredSched(g, algo, t, rd, sd, c.Dst, c.Src, alg.Gathered{Exclusive: excl, DD: dd})
	}
	return alg.PrefixSched(g, t, rd, sd, dd, c.Dst, c.Src, excl)
}

// reducerOf is the reducer of a computational collective's key: its
// function's table entry, argument and element size.
func (n *node) reducerOf(k *plan.Key) alg.Reducer { return n.reducer(k.Fn, k.Arg, k.ElemSize) }

// reducer is the Reducer of function fn with argument arg on elements of
// es bytes.
func (n *node) reducer(fn, arg, es int) alg.Reducer {
	e, own := n.entry(fn)
	return alg.Reducer{Fn: e.Fn, Flags: e.Flags, Arg: arg, ElemSize: es, Scalar: e.Scalar, Own: own}
}

// compAreas are member k's destination and source areas in a
// computational collective of key k (validated), nil where they do not
// apply.
func compAreas(key *plan.Key, rank, P int, dst, src []byte) (d, s []byte) {
	sd := alg.Dist{Layout: key.SrcLayout, P: P, Count: key.Count}
	if n := sd.LocalLen(rank) * key.ElemSize; n > 0 && len(src) >= n {
		s = src[:n]
	}
	n := key.ElemSize
	switch key.Kind {
	case plan.Reduce:
		if rank != key.Root {
			n = 0
		}
	case plan.Prefix, plan.ExclusivePrefix:
		n = alg.Dist{Layout: key.DstLayout, P: P, Count: key.Count}.LocalLen(rank) * key.ElemSize
	}
	if n > 0 && len(dst) >= n {
		d = dst[:n]
	}
	return d, s
}

// inPlaceSources returns c's source list with a snapshot for every member
// whose destination is its source, and the copies that take them (nil
// when no member reduces in place).
func inPlaceSources(g alg.Geom, c *plan.Call) (src [][]byte, copies []alg.CopyOp) {
	for k, r := range g.Mem {
		d, s := compAreas(&c.Key, r, g.Team.Size(), c.Dst[k], c.Src[k])
		if !alg.Overlap(d, s) {
			continue
		}
		if src == nil {
			src = append([][]byte(nil), c.Src...)
		}
		snap := g.Buf(len(s))
		src[k] = snap
		copies = append(copies, alg.Copy(snap, s, false))
	}
	return src, copies
}

// AgentSafe reports whether the progress agent may call function fn: it
// is registered with AMSafe.
func (n *node) AgentSafe(fn int) bool {
	e, _ := n.entry(fn)
	return e.Flags&reducefn.AMSafe != 0
}

// Op is the schedule of c on team tn, which lives on the node
// (localNode).
func (tn *teamNode) Op(c plan.Call) *exec.Sched { return tn.n.op(tn, &c) }

// Reducer is the Reducer of function fn with argument arg on elements of
// es bytes (localNode).
func (tn *teamNode) Reducer(fn, arg, es int) alg.Reducer { return tn.n.reducer(fn, arg, es) }
