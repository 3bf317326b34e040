package loggp_test

import (
	"errors"
	"math"
	"testing"

	"github.com/gocoll/gocoll/loggp"
)

// Shapes as package coll serves them, written out for the tests (loggp
// knows no trees): the last child first.
func binomial(lo, hi int) [][2]int {
	var cs [][2]int
	for j := 0; lo+1<<j < hi; j++ {
		cs = append([][2]int{{lo + 1<<j, min(lo+1<<(j+1), hi)}}, cs...)
	}
	return cs
}

func flat(lo, hi int) [][2]int {
	var cs [][2]int
	for c := hi - 1; c > lo; c-- {
		cs = append(cs, [2]int{c, c + 1})
	}
	return cs
}

// The costs worked out by hand for L 1, o 0.5, g 0.5, G 0.001 us/B, Fold
// 0.002 us/B, k 1000 B: Deliver(k) = 3, Deliver(2k) = 4, Deliver(k/4) =
// 2.25, Next(k) = 1.5, Next(2k) = 2.5, the exchange step max(g, 2o+kG) = 2
// (1.25 for k/4), a fold of k 2.
func TestCosts(t *testing.T) {
	m := loggp.Params{L: 1, O: 0.5, Gap: 0.5, G: 0.001, Fold: 0.002}
	const k = 1000
	same := func(int) float64 { return k }
	blocks := func(n int) float64 { return float64(n) * k }
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"broadcast binomial P 2", m.Tree(2, binomial, same), 3}, // one delivery: the ping-pong
		// Root 0 serves [2,4) at 3 (whose root serves 3 at 6), then [1,2) at 1.5+3.
		{"broadcast binomial P 4", m.Tree(4, binomial, same), 6},
		// [4,5) at 3, [2,4) at 4.5 then 3 at 7.5, [1,2) at 6.
		{"broadcast binomial P 5", m.Tree(5, binomial, same), 7.5},
		{"broadcast flat P 4", m.Tree(4, flat, same), 2*1.5 + 3},
		// [2,4) gets 2 blocks at 4, its root sends 1 to 3 at 7; [1,2) at 2.5+3.
		{"scatter binomial P 4", m.Tree(4, binomial, blocks), 7},
		// The broadcast's edges, and folds: node 2 folds one partial (2),
		// the root two (4): max(3+3+2, 1.5+3) + 4.
		{"reduce binomial P 4", m.ReduceTree(4, binomial, k), 12},
		{"dissemination P 4", m.Dissemination(4, k), 3 + 4}, // 1 block, then 2
		{"exchange P 4", m.Exchange(4, k), 2*2 + 3},
		{"exchange P 1", m.Exchange(1, k), 0},
		// Exchange of quarters (2*1.25 + 2.25), 3 folds of a quarter (1.5),
		// gather_all of quarters: dissemination 2.25 + 2.5 = 4.75 against
		// the exchange's 4.75: a tie, the exchange.
		{"reduce-scatter+gather_all P 4", m.ReduceScatterGatherAll(4, k), 4.75 + 1.5 + 4.75},
		{"recursive doubling P 8", m.RecursiveDoubling(8, k), 3 * (3 + 2)},
		// With a rendezvous of 2 us above 500 B: k pays it, k/4 does not.
		{"rendezvous above S", loggp.Params{L: 1, O: 0.5, Gap: 0.5, G: 0.001, S: 500, R: 2}.Deliver(k), 3 + 2},
		{"eager up to S", loggp.Params{L: 1, O: 0.5, Gap: 0.5, G: 0.001, S: 500, R: 2}.Deliver(k / 4), 2.25},
		{"scan P 8", m.Scan(8, k), 15},
	} {
		if math.Abs(c.got-c.want) > 1e-12 {
			t.Errorf("%s: %g, want %g", c.name, c.got, c.want)
		}
	}
	if _, exchange := m.GatherAll(4, k/4); !exchange {
		t.Error("gather_all of quarters over 4: a tie goes to the exchange")
	}
	if _, exchange := m.GatherAll(64, 8); exchange {
		t.Error("gather_all of 8 B over 64 nodes: the exchange's 63 steps beat 6 rounds")
	}
}

func TestLg(t *testing.T) {
	for P, want := range map[int]int{0: 0, 1: 0, 2: 1, 3: 2, 4: 2, 5: 3, 4096: 12, 4097: 13} {
		if got := loggp.Lg(P); got != want {
			t.Errorf("Lg(%d) = %d, want %d", P, got, want)
		}
	}
}

// Fit recovers the parameters of a machine that follows the model, with
// and without a rendezvous above S; without sizes on both sides of S it
// fits no rendezvous.
func TestFit(t *testing.T) {
	var pp, st [][2]float64
	for _, want := range []loggp.Params{
		{L: 0.7, O: 0.15, Gap: 0.15, G: 1.0 / 9000, Fold: 0.0003},
		{L: 0.7, O: 0.15, Gap: 0.15, G: 1.0 / 9000, Fold: 0.0003, S: 8 << 10, R: 1.6},
	} {
		pp, st = pp[:0], st[:0]
		for k := 1 << 20; k >= 8; k /= 4 { // out of order: Fit sorts
			pp = append(pp, [2]float64{float64(k), want.Deliver(float64(k))})
			st = append(st, [2]float64{float64(k), want.Next(float64(k))})
		}
		got, err := loggp.Params{Fold: want.Fold, S: want.S}.Fit(pp, st)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name      string
			got, want float64
		}{{"L", got.L, want.L}, {"O", got.O, want.O}, {"Gap", got.Gap, want.Gap}, {"G", got.G, want.G},
			{"Fold", got.Fold, want.Fold}, {"S", float64(got.S), float64(want.S)}, {"R", got.R, want.R}} {
			if math.Abs(c.got-c.want) > 1e-9*math.Max(1, c.want) {
				t.Errorf("%v: %s = %g, want %g", want, c.name, c.got, c.want)
			}
		}
	}
	if got, err := (loggp.Params{S: 1 << 30}).Fit(pp, st); err != nil || got.S != 0 || got.R != 0 {
		t.Errorf("no size above S: fitted S %d, R %g (%v), want none", got.S, got.R, err)
	}
	if _, err := (loggp.Params{}).Fit(pp[:1], st); !errors.Is(err, loggp.ErrFit) {
		t.Errorf("one ping-pong point: %v, want ErrFit", err)
	}
	if _, err := (loggp.Params{}).Fit(pp, nil); !errors.Is(err, loggp.ErrFit) {
		t.Errorf("no stream: %v, want ErrFit", err)
	}
}

func TestIsZero(t *testing.T) {
	if !(loggp.Params{}).IsZero() || loggp.Default.IsZero() {
		t.Error("IsZero: only the zero Params")
	}
}
