// Package loggp is the LogGP cost model of gocoll's collective algorithms:
// the machine's parameters, their fit from measured ping-pong and stream
// times, and the predicted latency of each algorithm. Package coll picks
// its default algorithms (tree shape, gather_all pattern, the ReduceAll
// split) by comparing these predictions; cmd/collbench --model fits the
// parameters on the machine at hand and prints predicted against measured.
//
// Costs, for a message of k bytes between two nodes (one image per node),
// all in microseconds:
//
//   - delivery: 2o + kG + L (the sender's overhead, the bytes, the wire,
//     the receiver's overhead), and R more for a message of more than S
//     bytes (LogGPS's rendezvous: a large message waits for its receive,
//     and moves by another protocol);
//   - a node's next message leaves max(g, o + kG) after its previous one;
//   - folding k bytes of a reduction costs k*Fold (not LogGP's: the
//     reductions compute, and their algorithms differ in how much).
//
// The model knows nothing of gocoll: tree shapes come in as a function that
// lists a subtree's children (package coll's trees).
package loggp

import (
	"errors"
	"fmt"
	"math/bits"
	"slices"
)

// Params are the model's parameters. Times are in microseconds, G and
// Fold in microseconds per byte.
type Params struct {
	L    float64 // latency: a message's time on the wire
	O    float64 // overhead: the processor time of a send, or of a receive
	Gap  float64 // g: the least time between two messages of one node
	G    float64 // per byte of a message
	Fold float64 // per byte a reduction folds
	S    int     // the largest message delivered eagerly (0: every message)
	R    float64 // what a larger message's delivery costs more
}

// Default are the parameters fitted on the development machines (2 cores,
// Open MPI 4.1.4 over shared memory, np 2, idle; BENCHMARKS.md has the
// command, collbench --model): the model's choices with them are gocoll's
// defaults. L comes out 0 there: a shared-memory ping-pong's intercept
// (0.16 us) is below two of the stream's per-message times (0.10 us each),
// so the wire adds nothing the overheads do not already hold. S and R are
// MPI's rendezvous in collbench's PingPong rows; they also price what a
// gocoll message of more than 8 KiB costs more on the shared-memory rings
// (a header message of its own, the copies through the data ring): with
// them the model picks ReduceAll's recursive doubling up to about 128 KiB
// at np 2, which measures fastest there. Fold is reducefn's float64 sum of
// 1 MiB (BenchmarkSumFloat64).
var Default = Params{L: 0, O: 0.104, Gap: 0.104, G: 0.000056, Fold: 0.000026, S: 8 << 10, R: 1.7}

// IsZero reports whether p is the zero Params (unset: Default applies).
func (p Params) IsZero() bool { return p == Params{} }

// String gives the parameters in microseconds, as collbench prints them.
func (p Params) String() string {
	s := fmt.Sprintf("L %.3f us, o %.3f us, g %.3f us, G %.6f us/B, Fold %.6f us/B", p.L, p.O, p.Gap, p.G, p.Fold)
	if p.S > 0 {
		s += fmt.Sprintf(", R %.3f us above S %d B", p.R, p.S)
	}
	return s
}

// Deliver is the time from a send's start to its receive's end, k bytes.
func (p Params) Deliver(k float64) float64 { return 2*p.O + k*p.G + p.L + p.rendezvous(k) }

// rendezvous is what a message of k bytes costs more than an eager one.
func (p Params) rendezvous(k float64) float64 {
	if p.S > 0 && k > float64(p.S) {
		return p.R
	}
	return 0
}

// Next is the least time between the starts of two sends of one node, the
// first of k bytes.
func (p Params) Next(k float64) float64 { return max(p.Gap, p.O+k*p.G) }

// Lg is ceil(log2 P), the rounds of the binomial, dissemination and
// recursive-doubling patterns.
func Lg(P int) int {
	if P < 2 {
		return 0
	}
	return bits.Len(uint(P - 1))
}

// Subtrees lists the child subtrees of the subtree [lo, hi) of a tree over
// relative ranks (rooted at lo), in the order its root serves them, each
// as [lo, hi).
type Subtrees func(lo, hi int) [][2]int

// Tree is the latency of a tree over P nodes in which the edge into a
// subtree of n nodes carries bytes(n) bytes: a node serves its subtrees
// one after the other, Next apart, and a subtree's own cost starts once its
// root has the data. Gather and reduce run the same edges the other way;
// the model gives them the same cost (a reduce's folds: ReduceTree).
func (p Params) Tree(P int, shape Subtrees, bytes func(n int) float64) float64 {
	var sub func(lo, hi int) float64
	sub = func(lo, hi int) float64 {
		start, worst := 0.0, 0.0
		for _, c := range shape(lo, hi) {
			k := bytes(c[1] - c[0])
			worst = max(worst, start+p.Deliver(k)+sub(c[0], c[1]))
			start += p.Next(k)
		}
		return worst
	}
	return sub(0, P)
}

// ReduceTree is a reduce of k bytes over a tree: the tree's messages, and
// at every level the fold of what a node's children sent.
func (p Params) ReduceTree(P int, shape Subtrees, k float64) float64 {
	var sub func(lo, hi int) float64
	sub = func(lo, hi int) float64 {
		start, worst := 0.0, 0.0
		for _, c := range shape(lo, hi) {
			worst = max(worst, start+p.Deliver(k)+sub(c[0], c[1]))
			start += p.Next(k)
		}
		return worst + float64(len(shape(lo, hi)))*k*p.Fold
	}
	return sub(0, P)
}

// Exchange is P-1 lock-step rounds in which every node sends and receives
// one message of k bytes (exchange, and gather_all's exchange pattern): a
// round costs the larger of the gap and both overheads with the bytes, the
// last one a full delivery.
func (p Params) Exchange(P int, k float64) float64 {
	if P < 2 {
		return 0
	}
	return float64(P-2)*max(p.Gap, 2*p.O+k*p.G) + p.Deliver(k)
}

// Dissemination is gather_all's dissemination pattern of k bytes per node:
// round i moves the blocks of min(2^i, P-2^i) nodes.
func (p Params) Dissemination(P int, k float64) float64 {
	t := 0.0
	for i := range Lg(P) {
		t += p.Deliver(float64(min(1<<i, P-1<<i)) * k)
	}
	return t
}

// GatherAll is the cheaper of gather_all's two patterns for P nodes of k
// bytes each, and whether it is the exchange (on ties: the exchange, one
// message per peer).
func (p Params) GatherAll(P int, k float64) (float64, bool) {
	e, d := p.Exchange(P, k), p.Dissemination(P, k)
	return min(e, d), e <= d
}

// RecursiveDoubling is ReduceAll of k bytes by recursive doubling: lg P
// rounds, each a delivery of the whole vector and its fold.
func (p Params) RecursiveDoubling(P int, k float64) float64 {
	return float64(Lg(P)) * (p.Deliver(k) + k*p.Fold)
}

// ReduceScatterGatherAll is ReduceAll of k bytes split in P parts: an
// exchange of the parts, each node folding P-1 of them into its own, then
// a gather_all of the folded parts (by its cheaper pattern).
func (p Params) ReduceScatterGatherAll(P int, k float64) float64 {
	c := k / float64(P)
	ga, _ := p.GatherAll(P, c)
	return p.Exchange(P, c) + float64(P-1)*c*p.Fold + ga
}

// Scan is the dissemination scan of prefix reductions: lg P rounds of a
// delivery and a fold.
func (p Params) Scan(P int, k float64) float64 { return p.RecursiveDoubling(P, k) }

// ErrFit reports too few measurements to fit the parameters.
var ErrFit = errors.New("loggp: the fit needs ping-pong times at two sizes or more and a stream time")

// Fit fits L, O, Gap and G to measured times, given as (bytes, us) pairs:
// pingPong the one-way time of a message (half a round trip), stream the
// time per message of a stream of messages one way. The ping-pong is a
// delivery, so its intercept is L + 2o and its slope G (a least-squares
// line weighted by relative error, so that small sizes fix the intercept
// and large ones the slope); the stream's smallest message costs o + kG,
// and o is taken equal to g: a stream cannot tell them apart, and on a host
// with no network processor a small message's overhead is all its gap. L
// is what the intercept leaves, at least 0. Fold and S are kept from p.
// With S set and ping-pong sizes on both sides of it, the line is fitted
// to the sizes above S (they fix G), R is how far its intercept lies above
// the line through the sizes up to S (which fixes L), and the stream's
// smallest message is taken at or below S.
func (p Params) Fit(pingPong, stream [][2]float64) (Params, error) {
	if len(pingPong) < 2 || len(stream) < 1 {
		return Params{}, ErrFit
	}
	pp := slices.Clone(pingPong)
	slices.SortFunc(pp, func(a, b [2]float64) int { return int(a[0] - b[0]) })
	st := slices.Clone(stream)
	slices.SortFunc(st, func(a, b [2]float64) int { return int(a[0] - b[0]) })
	q := Params{Fold: p.Fold, S: p.S}
	eager := len(pp)
	if p.S > 0 {
		eager, _ = slices.BinarySearchFunc(pp, float64(p.S)+0.5, func(pt [2]float64, k float64) int { return int(pt[0] - k) })
	}
	a, G := lineFit(pp)
	if eager >= 2 && eager <= len(pp)-2 { // both sides have a line
		var aLarge float64
		aLarge, G = lineFit(pp[eager:])
		a, _ = lineFit(pp[:eager])
		q.R = max(aLarge-a, 0)
	} else {
		q.S = 0
	}
	q.G = max(G, 0)
	q.Gap = max(st[0][1]-st[0][0]*q.G, 0)
	q.O = q.Gap
	q.L = max(a-2*q.O, 0)
	return q, nil
}

// lineFit is the least-squares line y = a + b x through ps, each point
// weighted by 1/y^2 (relative error).
func lineFit(ps [][2]float64) (a, b float64) {
	var sw, sx, sy, sxx, sxy float64
	for _, pt := range ps {
		w := 1 / (pt[1] * pt[1])
		sw += w
		sx += w * pt[0]
		sy += w * pt[1]
		sxx += w * pt[0] * pt[0]
		sxy += w * pt[0] * pt[1]
	}
	den := sw*sxx - sx*sx
	if den == 0 {
		return sy / sw, 0
	}
	b = (sw*sxy - sx*sy) / den
	return (sy - b*sx) / sw, b
}
