package main

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/gocoll/gocoll"
	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/examples/internal/decomp"
	"github.com/gocoll/gocoll/images"
	gsync "github.com/gocoll/gocoll/sync"
)

// params: the n x n grid, at most maxIter iterations, stopping once
// ||r|| <= rtol ||b||.
type params struct {
	n, maxIter int
	rtol       float64
}

// result is what the program prints.
type result struct {
	iters   int     // iterations done
	relres  float64 // ||b - A x|| / ||b||, recomputed from x at the end
	xnorm   float64 // ||x||
	seconds float64 // the iterations, from a barrier to the end
}

// system is one image's rows of the distributed problem: the vectors hold
// ny rows of w = n+2 values, the grid row and a zero on each side, so that
// the stencil needs no test at the left and right edges; p has a halo row
// above and below besides. The zeros stay zero: every update of a vector
// is a combination of vectors that are zero there.
type system struct {
	im       *coll.Image
	n, ny, w int
	x, r, q  []float64
	p        []float64 // (ny+2) x w; its rows 1..ny are the ones owned
	line     *images.Grid
	halo     haloRows
	dst, src []float64 // of the sums
}

// haloRows are the counts and displacements in p of the halo exchange on
// the line of images, in its order of neighbours (below, then above): p's
// first owned row goes to the image below and its last to the one above,
// whose rows arrive in p's halo rows, in place. Rows past the ends of the
// line are neither sent nor received (they stay zero: the boundary).
type haloRows struct{ counts, send, recv []int }

// flags of the halo exchange: p is written locally before it (IN_MYSYNC)
// and read locally after it (OUT_MYSYNC), so an image waits only on its
// neighbours.
const flags = gsync.InMySync | gsync.OutMySync | gsync.Local | gsync.AllThreads

func newSystem(im *coll.Image, line *images.Grid, n, ny int) *system {
	w := n + 2
	return &system{im: im, n: n, ny: ny, w: w,
		x: make([]float64, ny*w), r: make([]float64, ny*w), q: make([]float64, ny*w),
		p: make([]float64, (ny+2)*w), line: line, dst: make([]float64, 1), src: make([]float64, 1),
		halo: haloRows{counts: []int{w, w}, send: []int{w, ny * w}, recv: []int{0, (ny + 1) * w}}}
}

// own is the owned part of p, laid out as x, r and q.
func (s *system) own() []float64 { return s.p[s.w : (s.ny+1)*s.w] }

// applyA sets q = A p, after filling p's halo rows from the neighbours.
func (s *system) applyA() error {
	h := &s.halo
	if err := coll.NeighborExchangeVOf(s.im, s.line, s.p, h.counts, h.recv, s.p, h.counts, h.send, flags); err != nil {
		return err
	}
	stencil(s.q, s.p, s.n, s.ny)
	return nil
}

// sum is the sum of v over the images (ReduceAll): the dot products'
// global step.
func (s *system) sum(v float64) (float64, error) {
	s.src[0] = v
	err := gocoll.ReduceAll(s.im, s.dst, s.src, gocoll.Sum)
	return s.dst[0], err
}

// errParams: parameters out of range.
var errParams = errors.New("cg: bad parameters")

func (p params) check(np int) error {
	if p.n < 1 || p.maxIter < 0 || !(p.rtol >= 0) {
		return fmt.Errorf("%w: need n >= 1, iters >= 0, rtol >= 0 (got n %d, iters %d, rtol %g)", errParams, p.n, p.maxIter, p.rtol)
	}
	if np > p.n {
		return fmt.Errorf("%w: %d images for %d grid rows leave an image without rows", errParams, np, p.n)
	}
	return nil
}

// solve runs conjugate gradients on A x = b, A the 5-point Laplacian
// (4 on the diagonal, -1 for each neighbour, zero Dirichlet boundary) on
// the n x n grid, b = h^2 (h = 1/(n+1): the Poisson problem -Δu = 1 on the
// unit square), x0 = 0. Image i of P holds a band of consecutive grid rows
// (decomp.Span). Collective over TeamAll.
func solve(im *coll.Image, p params) (res result, err error) {
	all := im.TeamAll()
	if err := p.check(all.Size()); err != nil {
		return res, err
	}
	_, ny := decomp.Span(p.n, all.Size(), all.Rank(im.ImageNum()))
	line, err := images.NewGrid(all, []int{all.Size()}, []bool{false})
	if err != nil {
		return res, err
	}
	s := newSystem(im, line, p.n, ny)

	h2 := 1 / (float64(p.n+1) * float64(p.n+1))
	for i := range ny {
		row := s.r[i*s.w+1:][:p.n]
		for j := range row {
			row[j] = h2
		}
	}
	copy(s.own(), s.r)

	if err := im.Barrier(all); err != nil {
		return res, err
	}
	t0 := time.Now()
	rr, err := s.sum(dot(s.r, s.r))
	if err != nil {
		return res, err
	}
	bnorm := math.Sqrt(rr)
	for res.iters < p.maxIter && math.Sqrt(rr) > p.rtol*bnorm {
		res.iters++
		if err := s.applyA(); err != nil {
			return res, err
		}
		pq, err := s.sum(dot(s.own(), s.q))
		if err != nil {
			return res, err
		}
		alpha := rr / pq
		axpy(s.x, alpha, s.own())
		axpy(s.r, -alpha, s.q)
		rrNew, err := s.sum(dot(s.r, s.r))
		if err != nil {
			return res, err
		}
		beta := rrNew / rr
		rr = rrNew
		xpby(s.own(), s.r, beta) // p = r + beta p
	}
	if err := im.Barrier(all); err != nil {
		return res, err
	}
	res.seconds = time.Since(t0).Seconds()

	// The true residual b - A x, with x in p's place; r becomes b again.
	copy(s.own(), s.x)
	if err := s.applyA(); err != nil {
		return res, err
	}
	for i := range ny {
		row, q := s.r[i*s.w+1:][:p.n], s.q[i*s.w+1:][:p.n]
		for j := range row {
			row[j] = h2 - q[j]
		}
	}
	trr, err := s.sum(dot(s.r, s.r))
	if err != nil {
		return res, err
	}
	xx, err := s.sum(dot(s.x, s.x))
	if err != nil {
		return res, err
	}
	res.relres, res.xnorm = math.Sqrt(trr)/bnorm, math.Sqrt(xx)
	return res, nil
}

// String is the result line, as the C twin prints it.
func (r result) String() string {
	return fmt.Sprintf("iterations=%d relres=%.6e xnorm=%.17g time=%.6f", r.iters, r.relres, r.xnorm, r.seconds)
}
