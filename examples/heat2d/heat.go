package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/examples/internal/decomp"
	"github.com/gocoll/gocoll/images"
	gsync "github.com/gocoll/gocoll/sync"
)

// params are the problem and the process grid: an n x n interior, py x px
// blocks (py rows of blocks, px columns), at most steps sweeps, a
// convergence test every k of them, stopping once the residual is below tol.
type params struct {
	n, steps, k int
	py, px      int
	tol         float64
}

// result is what the program prints; everything but seconds is the same on
// every process count and in the C twin, bit for bit.
type result struct {
	steps    int     // sweeps done
	residual float64 // max |u_new - u_old| over the grid at sweep resStep
	resStep  int     // 0 when no test ran
	checksum uint64  // see checksum
	seconds  float64 // the sweeps, from a barrier to the end
}

// flags of the halo exchange and the reductions: the source is written
// locally before the call (IN_MYSYNC) and the result read locally after it
// (OUT_MYSYNC), so nothing needs a barrier and an image waits only on the
// images it exchanges with. AllThreads lets a node host several images,
// each calling for itself (one image per node works the same).
const flags = gsync.InMySync | gsync.OutMySync | gsync.Local | gsync.AllThreads

// Boundary values: the top edge is held at 1, the left one at 0.5, the
// others at 0; the interior starts at 0. The left/right asymmetry makes a
// halo sent the wrong way show in the result.
const (
	topValue  = 1.0
	leftValue = 0.5
)

// block is one image's part of the grid: ny x nx interior cells plus a ring
// of halo (or boundary) cells, row-major with stride nx+2, two copies.
type block struct {
	n      int // the global interior is n x n
	r0, c0 int // global row and column (boundary included) of local row and column 0
	ny, nx int
	u, v   []float64 // v = sweep(u), then they swap
}

func newBlock(p params, prow, pcol int) *block {
	r0, ny := decomp.Span(p.n, p.py, prow)
	c0, nx := decomp.Span(p.n, p.px, pcol)
	b := &block{n: p.n, r0: r0, c0: c0, ny: ny, nx: nx}
	b.u = make([]float64, (ny+2)*(nx+2))
	b.v = make([]float64, (ny+2)*(nx+2))
	s := nx + 2
	for _, a := range [][]float64{b.u, b.v} {
		if pcol == 0 {
			for i := range ny + 2 {
				a[i*s] = leftValue
			}
		}
		if prow == 0 {
			for j := range s {
				a[j] = topValue
			}
		}
	}
	return b
}

// sweep writes one Jacobi sweep of u into v: each interior cell becomes the
// mean of its four neighbours, summed north, south, west, east (the C twin
// sums in the same order). Each row's operands are slices of the row's
// length, so that the compiler drops the bounds checks of the inner loop.
func sweep(v, u []float64, nx, ny int) {
	s, q := nx+2, quarter
	for i := 1; i <= ny; i++ {
		out := v[i*s+1:][:nx]
		n, so, w, e := u[(i-1)*s+1:][:nx], u[(i+1)*s+1:][:nx], u[i*s:][:nx], u[i*s+2:][:nx]
		for j := range out {
			out[j] = q * (n[j] + so[j] + w[j] + e[j])
		}
	}
}

// quarter is 0.25 as a variable, not a constant: the compiler then keeps it
// in a register through the loop, where it reloads a constant from memory
// at every element (one load in six, measured ~20% of the sweep's time).
var quarter = 0.25

// sweepResidual is sweep that also returns max |v - u| over the block.
func sweepResidual(v, u []float64, nx, ny int) float64 {
	s, q := nx+2, quarter
	res := 0.0
	for i := 1; i <= ny; i++ {
		out, c := v[i*s+1:][:nx], u[i*s+1:][:nx]
		n, so, w, e := u[(i-1)*s+1:][:nx], u[(i+1)*s+1:][:nx], u[i*s:][:nx], u[i*s+2:][:nx]
		for j := range out {
			x := q * (n[j] + so[j] + w[j] + e[j])
			out[j] = x
			if d := math.Abs(x - c[j]); d > res {
				res = d
			}
		}
	}
	return res
}

// checksum is the sum over the block's interior cells of the bits of the
// value times an odd number of the global position, modulo 2^64. Integer
// sums do not depend on their order, so any decomposition of the same field
// gives the same checksum; any one changed value changes it.
func (b *block) checksum() uint64 {
	s := b.nx + 2
	var c uint64
	for i := 1; i <= b.ny; i++ {
		for j := 1; j <= b.nx; j++ {
			pos := uint64((b.r0+i)*(b.n+2) + b.c0 + j)
			c += math.Float64bits(b.u[i*s+j]) * (2*pos + 1)
		}
	}
	return c
}

// halo is the exchange of a block's edges with the neighbouring blocks on
// the process grid, in the grid's order of neighbours: north (the block
// row above), south, west, east. The edges are packed one after another
// in send, the halos arrive in recv; a side without a neighbour (the
// boundary) is neither sent nor received.
type halo struct {
	im             *coll.Image
	g              *images.Grid
	me             int // team rank
	counts, displs []int
	send, recv     []float64
}

func newHalo(im *coll.Image, g *images.Grid, nx, ny int) *halo {
	return &halo{im: im, g: g, me: g.Team().Rank(im.ImageNum()),
		counts: []int{nx, nx, ny, ny}, displs: []int{0, nx, 2 * nx, 2*nx + ny},
		send: make([]float64, 2*(nx+ny)), recv: make([]float64, 2*(nx+ny))}
}

// side is block i of b.
func (h *halo) side(b []float64, i int) []float64 { return b[h.displs[i]:][:h.counts[i]] }

// exchange fills the halos of b.u from the neighbours' edges.
func (h *halo) exchange(b *block) error {
	s, u := b.nx+2, b.u
	copy(h.side(h.send, 0), u[s+1:][:b.nx])
	copy(h.side(h.send, 1), u[b.ny*s+1:][:b.nx])
	for i, w, e := 0, h.side(h.send, 2), h.side(h.send, 3); i < b.ny; i++ {
		w[i], e[i] = u[(i+1)*s+1], u[(i+1)*s+b.nx]
	}
	if err := coll.NeighborExchangeVOf(h.im, h.g, h.recv, h.counts, h.displs, h.send, h.counts, h.displs, flags); err != nil {
		return err
	}
	has := func(i int) bool { return h.g.Neighbor(h.me, i) != images.NoNeighbor }
	if has(0) {
		copy(u[1:][:b.nx], h.side(h.recv, 0))
	}
	if has(1) {
		copy(u[(b.ny+1)*s+1:][:b.nx], h.side(h.recv, 1))
	}
	if has(2) {
		for i, x := range h.side(h.recv, 2) {
			u[(i+1)*s] = x
		}
	}
	if has(3) {
		for i, x := range h.side(h.recv, 3) {
			u[(i+1)*s+b.nx+1] = x
		}
	}
	return nil
}

// errGrid: the process grid does not fit the images or the problem.
var errGrid = errors.New("heat2d: bad process grid")

// check validates p for a job of np images.
func (p params) check(np int) error {
	switch {
	case p.n < 1 || p.steps < 0 || p.k < 1:
		return fmt.Errorf("heat2d: need n >= 1, steps >= 0, k >= 1 (got n %d, steps %d, k %d)", p.n, p.steps, p.k)
	case p.py*p.px != np:
		return fmt.Errorf("%w: %d x %d blocks for %d images", errGrid, p.py, p.px, np)
	case p.py > p.n || p.px > p.n:
		return fmt.Errorf("%w: %d x %d blocks of a %d x %d grid leave a block empty", errGrid, p.py, p.px, p.n, p.n)
	}
	return nil
}

// solve runs the Jacobi iteration on image im's block. It is collective over
// TeamAll; image i holds block (i / px, i % px).
func solve(im *coll.Image, p params) (result, error) {
	var res result
	ctx := context.Background()
	all := im.TeamAll()
	np := all.Size()
	if err := p.check(np); err != nil {
		return res, err
	}
	me := all.Rank(im.ImageNum())
	prow, pcol := me/p.px, me%p.px

	// The process grid: image i holds block (i / px, i % px), as the grid
	// ranks them (row-major).
	g, err := images.NewGrid(all, []int{p.py, p.px}, []bool{false, false})
	if err != nil {
		return res, err
	}
	b := newBlock(p, prow, pcol)
	h := newHalo(im, g, b.nx, b.ny)

	// The convergence test: every k sweeps a max-reduction of the block
	// residuals starts, non-blocking, and is waited for after the next
	// sweep, which it overlaps; the iteration stops after that sweep when
	// the residual is below tol.
	global, local := []float64{0}, []float64{0}
	var pending gsync.Handle
	pendingStep := 0
	wait := func() error {
		if err := pending.Wait(ctx); err != nil {
			return err
		}
		res.residual, res.resStep, pendingStep = global[0], pendingStep, 0
		return nil
	}

	if err := im.Barrier(all); err != nil {
		return res, err
	}
	t0 := time.Now()
	for res.steps < p.steps {
		res.steps++
		if err := h.exchange(b); err != nil {
			return res, err
		}
		test := res.steps%p.k == 0
		r := 0.0
		if test {
			r = sweepResidual(b.v, b.u, b.nx, b.ny)
		} else {
			sweep(b.v, b.u, b.nx, b.ny)
		}
		b.u, b.v = b.v, b.u
		if pendingStep != 0 {
			if err := wait(); err != nil {
				return res, err
			}
			if res.residual < p.tol {
				break
			}
		}
		if test {
			local[0] = r // the previous test's reduction is over (waited for above)
			if pending, err = coll.ReduceAllOfNB(im, all, global, local, coll.Max, flags); err != nil {
				return res, err
			}
			pendingStep = res.steps
		}
	}
	if pendingStep != 0 {
		if err := wait(); err != nil {
			return res, err
		}
	}
	if err := im.Barrier(all); err != nil {
		return res, err
	}
	res.seconds = time.Since(t0).Seconds()

	sums := []uint64{b.checksum(), 0}
	if err := coll.ReduceAllOf(im, all, sums[1:], sums[:1], coll.Sum, flags); err != nil {
		return res, err
	}
	res.checksum = sums[1]
	return res, nil
}

// String is the result line, the same as the C twin's.
func (r result) String() string {
	return fmt.Sprintf("steps=%d residual=%.17g residual_step=%d checksum=0x%016x time=%.6f",
		r.steps, r.residual, r.resStep, r.checksum, r.seconds)
}
