package coll

import "github.com/gocoll/gocoll/coll/internal/alg"

// Building a schedule: a plan key and its buffers to the rounds of the
// algorithm the choices pick (choose.go).

// build is the node's schedule of c, by its kind.
func (n *node) build(g alg.Geom, c *call) []alg.Round {
	k := &c.key
	switch k.kind {
	case kBarrier:
		return alg.BarrierRounds(g, alg.SubBar)
	case kBroadcast:
		return alg.BroadcastSched(g, n.tree(TreeBroadcast, g.P, k.n), c.key.root, c.dst, c.src)
	case kScatter:
		return alg.ScatterSched(g, n.tree(TreeBlocks, g.P, k.n), c.key.root, c.dst, c.src)
	case kGather:
		return alg.GatherSched(g, n.tree(TreeBlocks, g.P, k.n), c.key.root, c.dst, c.src)
	case kGatherAll:
		return alg.GatherAllSched(g, n.gatherAllAlgo(g.P, k.n), c.dst, c.src)
	case kExchange:
		return alg.ExchangeSched(g, c.dst, c.src)
	}
	src, snaps := inPlaceSources(g, c)
	if snaps == nil {
		return n.buildReduction(g, c)
	}
	in := *c
	in.src = src
	rs := n.buildReduction(g, &in)
	rs[0].Copies = append(snaps, rs[0].Copies...) // before anything reads a source
	return rs
}

// sizeChoice is the algorithm build picks for a data-movement collective
// of key k on P nodes by its size (choose.go): members of an aggregate
// fuse only where it is the same (aggregate.go).
func (n *node) sizeChoice(k *planKey, P int) int {
	switch k.kind {
	case kBroadcast:
		return int(n.tree(TreeBroadcast, P, k.n))
	case kScatter, kGather:
		return int(n.tree(TreeBlocks, P, k.n))
	case kGatherAll:
		return int(n.gatherAllAlgo(P, k.n))
	}
	return 0
}

// buildReduction is the schedule of a computational collective.
func (n *node) buildReduction(g alg.Geom, c *call) []alg.Round {
	k := &c.key
	rd := n.reducerOf(k)
	sd := alg.Dist{Layout: k.sl, P: g.Team.Size(), Count: k.count}
	nm := g.Team.NodeMajor()
	algo := n.gatherAllAlgo(g.P, k.es)
	t := n.tree(TreeReduce, g.P, k.es)
	switch k.kind {
	case kReduce:
		if !rd.Commutative() && !nm {
			return alg.GatheredSched(g, algo, t, rd, sd, c.dst, c.src, alg.Gathered{Reduce: true, DstImg: k.root})
		}
		var dst []byte
		if m := g.Member(k.root); m >= 0 {
			dst = c.dst[m]
		}
		return alg.ReduceSched(g, t, rd, sd, k.root, dst, c.src)
	case kReduceAll:
		if !rd.Commutative() && !nm {
			return alg.GatheredSched(g, algo, t, rd, sd, c.dst, c.src, alg.Gathered{All: true})
		}
		return alg.ReduceAllSched(g, rd, sd, c.dst, c.src, n.opts.SplitsReduceAll(g.P, k.es))
	}
	dd := alg.Dist{Layout: k.dl, P: g.Team.Size(), Count: k.count}
	excl := k.kind == kExclusivePrefix
	if !nm {
		return alg.GatheredSched(g, algo, t, rd, sd, c.dst, c.src, alg.Gathered{Exclusive: excl, DD: dd})
	}
	return alg.PrefixSched(g, t, rd, sd, dd, c.dst, c.src, excl)
}

// reducerOf is the reducer of a computational collective's key: its
// function's table entry, argument and element size.
func (n *node) reducerOf(k *planKey) alg.Reducer {
	e, own := n.entry(k.fn)
	return alg.Reducer{Fn: e.Fn, Flags: e.Flags, Arg: k.arg, ElemSize: k.es, Scalar: e.Scalar, Own: own}
}

// compAreas are member k's destination and source areas in a
// computational collective of key k (validated), nil where they do not
// apply.
func compAreas(key *planKey, rank, P int, dst, src []byte) (d, s []byte) {
	sd := alg.Dist{Layout: key.sl, P: P, Count: key.count}
	if n := sd.LocalLen(rank) * key.es; n > 0 && len(src) >= n {
		s = src[:n]
	}
	n := key.es
	switch key.kind {
	case kReduce:
		if rank != key.root {
			n = 0
		}
	case kPrefix, kExclusivePrefix:
		n = alg.Dist{Layout: key.dl, P: P, Count: key.count}.LocalLen(rank) * key.es
	}
	if n > 0 && len(dst) >= n {
		d = dst[:n]
	}
	return d, s
}

// inPlaceSources returns c's source list with a snapshot for every member
// whose destination is its source, and the copies that take them (nil
// when no member reduces in place).
func inPlaceSources(g alg.Geom, c *call) (src [][]byte, copies []alg.CopyOp) {
	for k, r := range g.Mem {
		d, s := compAreas(&c.key, r, g.Team.Size(), c.dst[k], c.src[k])
		if !alg.Overlap(d, s) {
			continue
		}
		if src == nil {
			src = append([][]byte(nil), c.src...)
		}
		snap := g.Buf(len(s))
		src[k] = snap
		copies = append(copies, alg.Copy(snap, s, false))
	}
	return src, copies
}
