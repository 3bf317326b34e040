package core

import (
	"time"

	gsync "github.com/gocoll/gocoll/sync"

	"github.com/gocoll/gocoll/coll/internal/alg"
	"github.com/gocoll/gocoll/loggp"
)

// Config is what coll.Options says (its documentation gives each field's
// meaning), in the types of the layers below.
type Config struct {
	Tree             alg.Tree
	GatherAll        alg.GatherAllAlgo
	A                int
	Model            loggp.Params
	InitTimeout      time.Duration
	Progress         gsync.ProgressMode
	ProgressInterval time.Duration
	SegmentSize      int
	OneSidedMin      int
	Check            bool
	StallTimeout     time.Duration
	// Paths is a test's hold on the selector (select.go); nil outside tests.
	Paths *PathHook
}

// TreeUse is coll.TreeUse.
type TreeUse int

// model is o.Model, or loggp.Default when zero.
func (o Config) model() loggp.Params {
	if o.Model.IsZero() {
		return loggp.Default
	}
	return o.Model
}

// TreeFor is the tree shape a collective of that use over P nodes moving
// k bytes per edge (per block for TreeBlocks) runs with these options:
// Config.Tree, or the model's pick among the shapes (Binomial on ties).
func (o Config) TreeFor(use TreeUse, P, k int) alg.Tree {
	if o.Tree != alg.TreeAuto {
		return o.Tree
	}
	if P <= 2 {
		return alg.Binomial // every shape is one edge
	}
	p, kk := o.model(), float64(k)
	best, bestCost := alg.Binomial, 0.0
	for _, t := range []alg.Tree{alg.Binomial, alg.Binary, alg.Flat} {
		var cost float64
		switch use {
		case TreeReduce:
			cost = p.ReduceTree(P, t.Subtrees, kk)
		case TreeBlocks:
			cost = p.Tree(P, t.Subtrees, func(m int) float64 { return float64(m) * kk })
		default:
			cost = p.Tree(P, t.Subtrees, func(int) float64 { return kk })
		}
		if t == alg.Binomial || cost < bestCost {
			best, bestCost = t, cost
		}
	}
	return best
}

// GatherAllFor is gather_all's pattern for P nodes of k bytes each:
// Config.GatherAll when it forces one; with Config.A set, the LogP rule
// of the package documentation; else the model's cheaper pattern (the
// exchange on ties).
func (o Config) GatherAllFor(P, k int) alg.GatherAllAlgo {
	if o.GatherAll != alg.GatherAllAuto {
		return o.GatherAll
	}
	if A := o.A; A > 0 {
		if (P-1)+A <= bitsOf(P-1)*(A+1) {
			return alg.GatherAllExchange
		}
		return alg.GatherAllDissemination
	}
	if _, exchange := o.model().GatherAll(P, float64(k)); exchange {
		return alg.GatherAllExchange
	}
	return alg.GatherAllDissemination
}

// SplitsReduceAll reports whether ReduceAll of k bytes over P nodes splits
// the vector (reduce-scatter + gather_all, where the function and layout
// allow it) rather than exchanging it whole (recursive doubling): where
// the model predicts it faster. The split folds 1/P of the vector on each
// node and moves fewer bytes, at the price of more messages.
func (o Config) SplitsReduceAll(P, k int) bool {
	p := o.model()
	return P > 1 && p.ReduceScatterGatherAll(P, float64(k)) < p.RecursiveDoubling(P, float64(k))
}
