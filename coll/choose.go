package coll

import (
	stdsync "sync"

	"github.com/gocoll/gocoll/coll/internal/alg"
	"github.com/gocoll/gocoll/loggp"
)

// Algorithm choices, in one place: the tree of broadcast, scatter, gather
// and the tree-based reductions, gather_all's pattern, and whether
// ReduceAll splits its vector (reduce-scatter + gather_all) or exchanges it
// whole (recursive doubling). Options can force the first two; otherwise,
// and always for the third, the choice is the algorithm the LogGP model
// (package loggp) predicts fastest for the team's number of nodes and the
// bytes moved, with Options.Model's parameters (loggp.Default when zero).
// Every node passes the same Options (Init checks), so every node picks
// alike.

// TreeUse says what a tree's edges carry, for the cost of its shape.
type TreeUse int

const (
	// TreeBroadcast: every edge carries the message (broadcast).
	TreeBroadcast TreeUse = iota
	// TreeBlocks: an edge carries the blocks of its subtree (scatter,
	// gather).
	TreeBlocks
	// TreeReduce: every edge carries a partial, folded at its end (reduce,
	// the tree-based prefix reductions).
	TreeReduce
)

// model is o.Model, or loggp.Default when zero.
func (o Options) model() loggp.Params {
	if o.Model.IsZero() {
		return loggp.Default
	}
	return o.Model
}

// TreeFor is the tree shape a collective of that use over P nodes moving
// k bytes per edge (per block for TreeBlocks) runs with these options:
// Options.Tree, or the model's pick among the shapes (Binomial on ties).
func (o Options) TreeFor(use TreeUse, P, k int) Tree {
	if o.Tree != TreeAuto {
		return o.Tree
	}
	if P <= 2 {
		return Binomial // every shape is one edge
	}
	p, kk := o.model(), float64(k)
	best, bestCost := Binomial, 0.0
	for _, t := range []Tree{Binomial, Binary, Flat} {
		var cost float64
		switch use {
		case TreeReduce:
			cost = p.ReduceTree(P, t.Subtrees, kk)
		case TreeBlocks:
			cost = p.Tree(P, t.Subtrees, func(m int) float64 { return float64(m) * kk })
		default:
			cost = p.Tree(P, t.Subtrees, func(int) float64 { return kk })
		}
		if t == Binomial || cost < bestCost {
			best, bestCost = t, cost
		}
	}
	return best
}

// GatherAllFor is gather_all's pattern for P nodes of k bytes each:
// Options.GatherAll when it forces one; with Options.A set, the LogP rule
// of the package documentation; else the model's cheaper pattern (the
// exchange on ties).
func (o Options) GatherAllFor(P, k int) GatherAllAlgo {
	if o.GatherAll != GatherAllAuto {
		return o.GatherAll
	}
	if A := o.A; A > 0 {
		if (P-1)+A <= bitsOf(P-1)*(A+1) {
			return GatherAllExchange
		}
		return GatherAllDissemination
	}
	if _, exchange := o.model().GatherAll(P, float64(k)); exchange {
		return GatherAllExchange
	}
	return GatherAllDissemination
}

// SplitsReduceAll reports whether ReduceAll of k bytes over P nodes splits
// the vector (reduce-scatter + gather_all, where the function and layout
// allow it) rather than exchanging it whole (recursive doubling): where
// the model predicts it faster. The split folds 1/P of the vector on each
// node and moves fewer bytes, at the price of more messages.
func (o Options) SplitsReduceAll(P, k int) bool {
	p := o.model()
	return P > 1 && p.ReduceScatterGatherAll(P, float64(k)) < p.RecursiveDoubling(P, float64(k))
}

// choiceKey names one tree choice: by use, nodes, and the bytes per edge
// rounded down to a power of two (the model's costs change slowly with
// size, and the cache stays small).
type choiceKey struct {
	use       TreeUse
	P, kClass int
}

// choices caches a node's tree choices: a choice walks every shape's tree
// over the team's nodes, which at thousands of nodes costs more than a
// small collective.
type choices struct {
	mu    stdsync.Mutex
	trees map[choiceKey]alg.Tree
}

// tree is Options.TreeFor, cached, with k rounded down to a power of two.
func (n *node) tree(use TreeUse, P, k int) alg.Tree {
	if n.opts.Tree != TreeAuto || P <= 2 {
		return alg.Tree(n.opts.TreeFor(use, P, k))
	}
	key := choiceKey{use, P, 0}
	if k > 0 {
		key.kClass = 1 << (bitsOf(k) - 1)
	}
	c := &n.choices
	c.mu.Lock()
	defer c.mu.Unlock()
	if t, ok := c.trees[key]; ok {
		return t
	}
	t := alg.Tree(n.opts.TreeFor(use, P, key.kClass))
	if c.trees == nil {
		c.trees = map[choiceKey]alg.Tree{}
	}
	c.trees[key] = t
	return t
}

func (n *node) gatherAllAlgo(P, k int) alg.GatherAllAlgo {
	return alg.GatherAllAlgo(n.opts.GatherAllFor(P, k))
}
