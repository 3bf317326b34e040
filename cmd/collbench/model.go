package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/loggp"
)

// The LogGP scale model (--model): package loggp's parameters fitted from
// the PingPong and Stream rows of the run, then the latency of each of
// gocoll's algorithms predicted from them (loggp's costs), beside the
// measured gocoll.* rows for this run's P and alone for P = 2 .. 4096,
// marking the algorithm gocoll picks by default (coll.Options' choices,
// made with loggp.Default). Fold, the reductions' computation, is fitted
// to the gocoll.ReduceAll rows of 1 KiB and more (fitFold), or kept from
// loggp.Default without them.

// errModelRows: the run lacks the rows the fit needs.
var errModelRows = errors.New("the model needs PingPong and Stream rows at two sizes or more (np >= 2)")

// fitLogGP fits the model to the C side of the PingPong and Stream rows
// (the native MPI figures: the model is of the machine, not of gocoll).
func fitLogGP(rows []row) (loggp.Params, error) {
	m, err := loggp.Default.Fit(sizedPoints(rows, "PingPong"), sizedPoints(rows, "Stream"))
	if errors.Is(err, loggp.ErrFit) {
		return m, errModelRows
	}
	return m, err
}

// fitFold fits Fold to the gocoll.ReduceAll rows of 1 KiB and more (Go
// avg) at np nodes, by least squares: the predicted cost of the algorithm
// gocoll picked for a row is a + b*Fold, a its messages (m's fit) and b
// the bytes folded on its critical path. It returns the fit (at least 0)
// and the number of rows it used.
func fitFold(rows []row, np int, m loggp.Params) (float64, int) {
	var sbb, sby float64
	n := 0
	for _, r := range rows {
		if r.op != "gocoll.ReduceAll" || r.size < 1<<10 || r.goAvg <= 0 {
			continue
		}
		for _, a := range algorithms {
			if a.coll != "ReduceAll" || !a.picked(np, r.size) {
				continue
			}
			m0, m1 := m, m
			m0.Fold, m1.Fold = 0, 1
			base := a.cost(m0, np, float64(r.size))
			b := a.cost(m1, np, float64(r.size)) - base
			sbb += b * b
			sby += b * (r.goAvg - base)
			n++
		}
	}
	if n == 0 || sbb == 0 {
		return 0, 0
	}
	return max(sby/sbb, 0), n
}

// sizedPoints are op's rows as (size, C avg) pairs, by size.
func sizedPoints(rows []row, op string) [][2]float64 {
	var ps [][2]float64
	for _, r := range rows {
		if r.op == op && r.cAvg > 0 {
			ps = append(ps, [2]float64{float64(r.size), r.cAvg})
		}
	}
	slices.SortFunc(ps, func(a, b [2]float64) int { return int(a[0] - b[0]) })
	return ps
}

// algorithm is one of gocoll's algorithms for one collective: its
// predicted latency for P nodes and k bytes per block (per vector for the
// reductions).
type algorithm struct {
	coll, name string
	row        string // the collbench row that measures it when gocoll picks it, "" if none
	picked     func(P, k int) bool
	cost       func(m loggp.Params, P int, k float64) float64
}

// defaults are the options whose choices the table marks: gocoll's.
var defaults coll.Options

// treeAlgo is a tree algorithm of shape t for a collective of that use,
// measured by row.
func treeAlgo(name string, use coll.TreeUse, t coll.Tree, row string) algorithm {
	return algorithm{name, t.String(), row,
		func(P, k int) bool { return defaults.TreeFor(use, P, k) == t },
		func(m loggp.Params, P int, k float64) float64 {
			switch use {
			case coll.TreeReduce:
				return m.ReduceTree(P, t.Subtrees, k)
			case coll.TreeBlocks:
				return m.Tree(P, t.Subtrees, func(n int) float64 { return float64(n) * k })
			}
			return m.Tree(P, t.Subtrees, func(int) float64 { return k })
		}}
}

// splits reports whether gocoll's ReduceAll of k bytes of float64 over P
// nodes splits the vector.
func splits(P, k int) bool { return k/8 >= P && defaults.SplitsReduceAll(P, k) }

// algorithms are the modelled algorithms, in table order.
var algorithms = func() []algorithm {
	var as []algorithm
	trees := func(name string, use coll.TreeUse) {
		for _, t := range []coll.Tree{coll.Binomial, coll.Binary, coll.Flat} {
			as = append(as, treeAlgo(name, use, t, "gocoll."+name))
		}
	}
	trees("Broadcast", coll.TreeBroadcast)
	trees("Scatter", coll.TreeBlocks)
	trees("Gather", coll.TreeBlocks)
	exchange := func(P, k int) bool { return defaults.GatherAllFor(P, k) == coll.GatherAllExchange }
	as = append(as,
		algorithm{"GatherAll", "dissemination", "gocoll.GatherAll", func(P, k int) bool { return !exchange(P, k) }, loggp.Params.Dissemination},
		algorithm{"GatherAll", "exchange", "gocoll.GatherAll", exchange, loggp.Params.Exchange},
		algorithm{"Exchange", "exchange", "gocoll.Exchange", func(P, k int) bool { return true }, loggp.Params.Exchange})
	trees("Reduce", coll.TreeReduce)
	return append(as,
		algorithm{"ReduceAll", "recursive doubling", "gocoll.ReduceAll", func(P, k int) bool { return !splits(P, k) }, loggp.Params.RecursiveDoubling},
		algorithm{"ReduceAll", "reduce-scatter+gather_all", "gocoll.ReduceAll", splits, loggp.Params.ReduceScatterGatherAll},
		algorithm{"PrefixReduce", "dissemination scan", "gocoll.PrefixReduce", func(P, k int) bool { return true }, loggp.Params.Scan},
	)
}()

// modelRows are the rows --model measures: the fit's and the gocoll rows
// the algorithms are checked against.
func modelRows() []string {
	ops := []string{"PingPong", "Stream"}
	for _, a := range algorithms {
		if a.row != "" && !slices.Contains(ops, a.row) {
			ops = append(ops, a.row)
		}
	}
	return ops
}

// modelSizes are the sizes of the predicted table.
var modelSizes = []int{8, 1 << 10, 64 << 10, 1 << 20}

// printModel writes the fitted parameters, measured against predicted for
// this run's np (the algorithm gocoll picks, its relative error), and the
// predicted latency of every algorithm for P = 2 .. 4096.
func printModel(w io.Writer, rows []row, np int) error {
	m, err := fitLogGP(rows)
	if err != nil {
		return err
	}
	foldFrom := "loggp.Default's: no gocoll.ReduceAll rows of 1 KiB or more"
	if f, n := fitFold(rows, np, m); n > 0 {
		m.Fold, foldFrom = f, fmt.Sprintf("fitted to %d gocoll.ReduceAll rows", n)
	}
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("\n# LogGP model, fitted to this run's native PingPong and Stream rows (C side)\n")
	p("# %v\n# (%.2f GB/s, A = L/max(o,g) = %.2f; Fold %s)\n", m, 1e-3/max(m.G, 1e-12), m.L/max(m.O, m.Gap), foldFrom)
	p("# (coll.Options{Model: loggp.Params{L: %.3f, O: %.3f, Gap: %.3f, G: %.6f, Fold: %.6f}} makes gocoll choose by this fit)\n",
		m.L, m.O, m.Gap, m.G, m.Fold)
	p("\n# measured (gocoll row, Go avg) against predicted, np %d\n", np)
	p("# %-22s %-26s %9s %11s %11s %7s\n", "Collective", "Algorithm", "Size(B)", "measured", "predicted", "error")
	var errs []float64
	for _, a := range algorithms {
		for _, r := range rows {
			if r.op != a.row || !a.picked(np, r.size) || r.goAvg <= 0 {
				continue
			}
			pr := a.cost(m, np, float64(r.size))
			e := (pr - r.goAvg) / r.goAvg
			errs = append(errs, math.Abs(e))
			p("  %-22s %-26s %9d %11.2f %11.2f %+6.0f%%\n", a.coll, a.name, r.size, r.goAvg, pr, 100*e)
		}
	}
	if len(errs) > 0 {
		slices.Sort(errs)
		p("# median |error| %.0f%%, largest %.0f%% over %d rows\n", 100*errs[len(errs)/2], 100*errs[len(errs)-1], len(errs))
	}
	printPredicted(w, m)
	return nil
}

// printPredicted writes the predicted latency of every algorithm for P = 2
// .. 4096 by model m, marking the algorithm gocoll picks by default.
func printPredicted(w io.Writer, m loggp.Params) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("\n# predicted latency (us) by P (nodes, one image each); * marks gocoll's default choice (loggp.Default)\n")
	var hdr strings.Builder
	fmt.Fprintf(&hdr, "# %-13s %-26s %8s", "Collective", "Algorithm", "Size(B)")
	Ps := []int{2, 4, 16, 64, 256, 1024, 4096}
	for _, P := range Ps {
		fmt.Fprintf(&hdr, " %10s", fmt.Sprintf("P=%d", P))
	}
	p("%s\n", hdr.String())
	for _, a := range algorithms {
		for _, k := range modelSizes {
			p("  %-13s %-26s %8d", a.coll, a.name, k)
			for _, P := range Ps {
				mark := " "
				if a.picked(P, k) {
					mark = "*"
				}
				p(" %9.1f%s", a.cost(m, P, float64(k)), mark)
			}
			p("\n")
		}
	}
}
