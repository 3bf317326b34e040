package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/examples/internal/decomp"
	"github.com/gocoll/gocoll/examples/internal/halo"
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

// flags of the reductions: the source is written locally before the call
// (IN_MYSYNC) and the result read locally after it (OUT_MYSYNC); nothing
// needs a barrier. See halo.Flags for AllThreads.
const flags = halo.Flags

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

// exchange fills the halos of u: the column line (the image's column team)
// carries rows to the blocks above and below, the row line columns to the
// blocks left and right. Both lines exchange at once.
func (b *block) exchange(ctx context.Context, rows, cols *halo.Line) error {
	s := b.nx + 2
	u := b.u
	if e := cols.Edge(halo.Below); e != nil {
		copy(e, u[s+1:][:b.nx])
	}
	if e := cols.Edge(halo.Above); e != nil {
		copy(e, u[b.ny*s+1:][:b.nx])
	}
	if e := rows.Edge(halo.Below); e != nil {
		for i := range e {
			e[i] = u[(i+1)*s+1]
		}
	}
	if e := rows.Edge(halo.Above); e != nil {
		for i := range e {
			e[i] = u[(i+1)*s+b.nx]
		}
	}
	if err := cols.Start(); err != nil {
		return err
	}
	if err := rows.Start(); err != nil {
		return err
	}
	if err := cols.Wait(ctx); err != nil {
		return err
	}
	if err := rows.Wait(ctx); err != nil {
		return err
	}
	if h := cols.Halo(halo.Below); h != nil {
		copy(u[1:][:b.nx], h)
	}
	if h := cols.Halo(halo.Above); h != nil {
		copy(u[(b.ny+1)*s+1:][:b.nx], h)
	}
	if h := rows.Halo(halo.Below); h != nil {
		for i, x := range h {
			u[(i+1)*s] = x
		}
	}
	if h := rows.Halo(halo.Above); h != nil {
		for i, x := range h {
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
func solve(im *coll.Image, p params) (res result, err error) {
	ctx := context.Background()
	all := im.TeamAll()
	np := all.Size()
	if err := p.check(np); err != nil {
		return res, err
	}
	me := all.Rank(im.ImageNum())
	prow, pcol := me/p.px, me%p.px

	// The row team holds the blocks of this block row, ranked by column; the
	// column team those of this block column, ranked by row. Each is a line
	// of neighbours for the halo exchange.
	row, err := im.Split(all, prow, pcol)
	if err != nil {
		return res, err
	}
	col, err := im.Split(all, pcol, prow)
	if err != nil {
		return res, err
	}
	b := newBlock(p, prow, pcol)
	rows, err := halo.NewLine(im, row, b.ny) // left and right: columns of ny
	if err != nil {
		return res, err
	}
	cols, err := halo.NewLine(im, col, b.nx) // above and below: rows of nx
	if err != nil {
		return res, err
	}
	defer func() {
		err = errors.Join(err, rows.Close(), cols.Close(), im.Destroy(row), im.Destroy(col))
	}()

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
		if err := b.exchange(ctx, rows, cols); err != nil {
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
