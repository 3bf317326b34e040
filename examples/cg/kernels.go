package main

import "gonum.org/v1/gonum/floats"

// The local vector kernels. dot, axpy and xpby are gonum's (floats, over
// its assembly kernels on amd64); stencil is a plain loop, as no library
// has it. gonum's Dot sums in several lanes, so its rounding differs from a
// sequential loop's (the C twin's): one reason the Go and C results agree
// to a tolerance rather than bit for bit (see the package documentation).

// dot is x · y.
func dot(x, y []float64) float64 { return floats.Dot(x, y) }

// axpy sets y += a x.
func axpy(y []float64, a float64, x []float64) { floats.AddScaled(y, a, x) }

// xpby sets y = x + b y.
func xpby(y, x []float64, b float64) { floats.AddScaledTo(y, x, b, y) }

// stencil sets q = A p on the owned rows: each value is 4 times the centre
// minus its four neighbours (north, south, west, east, in that order, as in
// the C twin); p has w = n+2 values a row and halo rows 0 and ny+1, q has
// ny rows of w. The operands are slices of the row's length, so that the
// compiler drops the bounds checks of the inner loop, and float64(4*c[j])
// keeps a compiler from fusing the multiply into the subtraction. The 4 is
// a variable (four) so that it stays in a register: a constant is reloaded
// from memory at every element (see heat2d's quarter).
func stencil(q, p []float64, n, ny int) {
	w, k := n+2, four
	for i := 1; i <= ny; i++ {
		out, c := q[(i-1)*w+1:][:n], p[i*w+1:][:n]
		no, so, we, ea := p[(i-1)*w+1:][:n], p[(i+1)*w+1:][:n], p[i*w:][:n], p[i*w+2:][:n]
		for j := range out {
			out[j] = float64(k*c[j]) - no[j] - so[j] - we[j] - ea[j]
		}
	}
}

var four = 4.0
