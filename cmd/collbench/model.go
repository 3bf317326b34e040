package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/gocoll/gocoll/coll"
)

// The LogGP scale model (--model): L, o, g, G fitted from the PingPong and
// Stream rows of the run, then the latency of each of gocoll's algorithms
// predicted from them, beside the measured gocoll.* rows for this run's P
// and alone for P = 2 .. 4096.
//
// Costs, for a message of k bytes between two nodes (one image per node):
//
//	deliver(k) = o + kG + L + o     the receiver has it (a ping-pong half)
//	gap(k)     = max(g, o + kG)     between two sends of one node
//
// Fit (see fitLogGP): the ping-pong is deliver(k), so its intercept is
// L + 2o and its slope G; the stream's per-message time at the smallest
// size is the gap g; this model takes o = g, the sender's cost of one
// small message being all of its gap on a host without a network
// processor (shared memory or loopback TCP); L is what the ping-pong's
// intercept leaves, at least 0. Computation (the reductions' folds) is
// not in the model.

// logGP holds the model's parameters in microseconds (G per byte).
type logGP struct{ L, o, g, G float64 }

func (m logGP) deliver(k float64) float64 { return 2*m.o + k*m.G + m.L }
func (m logGP) gap(k float64) float64     { return max(m.g, m.o+k*m.G) }

// errModelRows: the run lacks the rows the fit needs.
var errModelRows = errors.New("the model needs PingPong and Stream rows at two sizes or more (np >= 2)")

// fitLogGP fits the model to the C side of the PingPong and Stream rows
// (the native MPI figures: the model is of the machine, not of gocoll).
func fitLogGP(rows []row) (logGP, error) {
	pp, st := sizedPoints(rows, "PingPong"), sizedPoints(rows, "Stream")
	if len(pp) < 2 || len(st) < 1 {
		return logGP{}, errModelRows
	}
	a, G := lineFit(pp)
	m := logGP{G: max(G, 0)}
	// The stream's smallest message costs o + kG, o being g.
	m.g = max(st[0][1]-st[0][0]*m.G, 0)
	m.o = m.g
	m.L = max(a-2*m.o, 0)
	return m, nil
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

// lineFit is the least-squares line y = a + b x through ps, each point
// weighted by 1/y^2 (relative error), so that the small sizes fix the
// intercept and the large ones the slope.
func lineFit(ps [][2]float64) (a, b float64) {
	var sw, sx, sy, sxx, sxy float64
	for _, p := range ps {
		w := 1 / (p[1] * p[1])
		sw += w
		sx += w * p[0]
		sy += w * p[1]
		sxx += w * p[0] * p[0]
		sxy += w * p[0] * p[1]
	}
	den := sw*sxx - sx*sx
	if den == 0 {
		return sy / sw, 0
	}
	b = (sw*sxy - sx*sy) / den
	return (sy - b*sx) / sw, b
}

// lg is ceil(log2 P), the rounds of the binomial and dissemination patterns.
func lg(P int) int { return bits.Len(uint(P - 1)) }

// algorithm is one of gocoll's algorithms for one collective: its
// predicted latency for P nodes and k bytes per block (per vector for the
// reductions).
type algorithm struct {
	coll, name string
	row        string // the collbench row that measures it when gocoll picks it, "" if none
	picked     func(P, k int) bool
	cost       func(m logGP, P int, k float64) float64
}

// treeCost is the latency of a tree of shape t over P nodes in which the
// edge into a subtree of n nodes carries bytes(n) bytes: a node serves its
// subtrees one after the other, a gap apart, and each subtree's own cost
// starts when its root has the data. Gather and reduce run the same
// edges the other way; the model gives them the same cost.
func treeCost(m logGP, t coll.Tree, P int, bytes func(n int) float64) float64 {
	var sub func(lo, hi int) float64
	sub = func(lo, hi int) float64 {
		start, worst := 0.0, 0.0
		for _, c := range t.Subtrees(lo, hi) {
			k := bytes(c[1] - c[0])
			worst = max(worst, start+m.deliver(k)+sub(c[0], c[1]))
			start += m.gap(k)
		}
		return worst
	}
	return sub(0, P)
}

// tree is the cost function of a tree algorithm: every edge carries k
// bytes (broadcast, reduce) or, perBlock, k per node of the subtree
// (scatter, gather).
func tree(t coll.Tree, perBlock bool) func(m logGP, P int, k float64) float64 {
	return func(m logGP, P int, k float64) float64 {
		return treeCost(m, t, P, func(n int) float64 {
			if perBlock {
				return float64(n) * k
			}
			return k
		})
	}
}

// exchangeSteps is P-1 lock-step rounds in which every node sends and
// receives one message of k bytes: a round costs the larger of the gap and
// both overheads plus the bytes, the last one a full delivery.
func exchangeSteps(m logGP, P int, k float64) float64 {
	if P < 2 {
		return 0
	}
	return float64(P-2)*max(m.g, 2*m.o+k*m.G) + m.deliver(k)
}

// dissemination is gather_all's dissemination: round i moves the blocks of
// min(2^i, P-2^i) nodes.
func dissemination(m logGP, P int, k float64) float64 {
	t := 0.0
	for i := range lg(P) {
		t += m.deliver(float64(min(1<<i, P-1<<i)) * k)
	}
	return t
}

// gatherAllExchange reports whether gocoll's default picks the
// exchange-like gather_all for P nodes (coll's rule with coll.DefaultA).
func gatherAllExchange(P int) bool { return (P-1)+coll.DefaultA <= lg(P)*(coll.DefaultA+1) }

// largeReduceAll is coll's cut-over (unexported there) from recursive
// doubling to reduce-scatter + gather_all in ReduceAll: the model's table
// marks gocoll's current choices.
const largeReduceAll = 32 << 10

var (
	always = func(P, k int) bool { return true }
	never  = func(P, k int) bool { return false }
)

// algorithms are the modelled algorithms, in table order.
var algorithms = []algorithm{
	{"Broadcast", "binomial", "gocoll.Broadcast", always, tree(coll.Binomial, false)},
	{"Broadcast", "binary", "", never, tree(coll.Binary, false)},
	{"Broadcast", "flat", "", never, tree(coll.Flat, false)},
	{"Scatter", "binomial", "gocoll.Scatter", always, tree(coll.Binomial, true)},
	{"Scatter", "flat", "", never, tree(coll.Flat, true)},
	{"Gather", "binomial", "gocoll.Gather", always, tree(coll.Binomial, true)},
	{"Gather", "flat", "", never, tree(coll.Flat, true)},
	{"GatherAll", "dissemination", "gocoll.GatherAll", func(P, k int) bool { return !gatherAllExchange(P) }, dissemination},
	{"GatherAll", "exchange", "gocoll.GatherAll", func(P, k int) bool { return gatherAllExchange(P) }, exchangeSteps},
	{"Exchange", "exchange", "gocoll.Exchange", always, exchangeSteps},
	{"Reduce", "binomial", "gocoll.Reduce", always, tree(coll.Binomial, false)},
	{"ReduceAll", "recursive doubling", "gocoll.ReduceAll", func(P, k int) bool { return k < largeReduceAll || k/8 < P }, func(m logGP, P int, k float64) float64 {
		return float64(lg(P)) * m.deliver(k)
	}},
	{"ReduceAll", "reduce-scatter+gather_all", "gocoll.ReduceAll", func(P, k int) bool { return k >= largeReduceAll && k/8 >= P }, func(m logGP, P int, k float64) float64 {
		c := k / float64(P)
		if gatherAllExchange(P) {
			return exchangeSteps(m, P, c) + exchangeSteps(m, P, c)
		}
		return exchangeSteps(m, P, c) + dissemination(m, P, c)
	}},
	{"PrefixReduce", "dissemination scan", "gocoll.PrefixReduce", always, func(m logGP, P int, k float64) float64 {
		return float64(lg(P)) * m.deliver(k)
	}},
}

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
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("\n# LogGP model, fitted to this run's native PingPong and Stream rows (C side)\n")
	p("# L %.3f us, o %.3f us, g %.3f us, G %.6f us/B (%.2f GB/s), A = L/max(o,g) = %.2f\n",
		m.L, m.o, m.g, m.G, 1e-3/max(m.G, 1e-12), m.L/max(m.o, m.g))
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
	p("\n# predicted latency (us) by P (nodes, one image each); * marks gocoll's current choice\n")
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
	return nil
}
