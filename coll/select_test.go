package coll_test

import (
	"testing"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/loggp"
)

// The default choices follow the cost model: forced options win, the
// model's parameters move the choices, and the choices agree with the
// model's own comparison.
func TestChoicesFollowTheModel(t *testing.T) {
	var def coll.Options
	for _, P := range []int{2, 3, 4, 8, 64, 4096} {
		for _, k := range []int{8, 4 << 10, 1 << 20} {
			_, exchange := loggp.Default.GatherAll(P, float64(k))
			if got := def.GatherAllFor(P, k); (got == coll.GatherAllExchange) != exchange {
				t.Errorf("P %d k %d: gather_all %v, the model says exchange=%v", P, k, got, exchange)
			}
			split := loggp.Default.ReduceScatterGatherAll(P, float64(k)) < loggp.Default.RecursiveDoubling(P, float64(k))
			if got := def.SplitsReduceAll(P, k); got != split {
				t.Errorf("P %d k %d: ReduceAll split %v, the model says %v", P, k, got, split)
			}
			for _, use := range []coll.TreeUse{coll.TreeBroadcast, coll.TreeBlocks, coll.TreeReduce} {
				if got := def.TreeFor(use, P, k); got == coll.TreeAuto {
					t.Errorf("P %d k %d use %d: TreeFor gave TreeAuto", P, k, use)
				}
				forced := coll.Options{Tree: coll.Flat}
				if got := forced.TreeFor(use, P, k); got != coll.Flat {
					t.Errorf("Options.Tree Flat: TreeFor gave %v", got)
				}
			}
		}
	}
	// Small messages over 8 nodes: with a latency large against the gap a
	// flat tree's root sends 7 messages a gap apart, cheaper than 3
	// deliveries in a row; with a gap as large as the latency the binomial
	// tree wins.
	slowWire := coll.Options{Model: loggp.Params{L: 2, O: 0.1, Gap: 0.1, G: 0.0001}}
	if got := slowWire.TreeFor(coll.TreeBroadcast, 8, 8); got != coll.Flat {
		t.Errorf("8 B over 8 nodes, latency 2 us: %v, want flat", got)
	}
	slowGap := coll.Options{Model: loggp.Params{L: 0.25, O: 0.13, Gap: 2, G: 0.0001}}
	if got := slowGap.TreeFor(coll.TreeBroadcast, 8, 8); got != coll.Binomial {
		t.Errorf("8 B over 8 nodes, gap 2 us: %v, want binomial", got)
	}
	// Large vectors split, small ones do not; a very costly fold splits
	// sooner.
	if def.SplitsReduceAll(2, 8) || !def.SplitsReduceAll(2, 1<<20) {
		t.Error("ReduceAll over 2 nodes: 8 B must not split, 1 MiB must")
	}
	slowFold := coll.Options{Model: loggp.Params{L: 0.25, O: 0.13, Gap: 0.13, G: 0.0001, Fold: 0.01}}
	if !slowFold.SplitsReduceAll(2, 1<<10) {
		t.Error("ReduceAll of 1 KiB over 2 nodes with a fold of 10 ns/B: the split folds half")
	}
	// Options.A keeps the LogP rule: with A = 4, (P-1)+4 <= 5*5 up to P = 22.
	a4 := coll.Options{A: 4}
	if a4.GatherAllFor(22, 8) != coll.GatherAllExchange || a4.GatherAllFor(23, 8) != coll.GatherAllDissemination {
		t.Error("Options.A = 4: exchange up to 22 nodes, dissemination from 23")
	}
}
