package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"testing"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	"github.com/gocoll/gocoll/examples/internal/job"
)

// theJob is this process's MPI job: a singleton under `go test`, np ranks
// under scripts/mpirun-tests.sh.
var theJob *job.Job

func TestMain(m *testing.M) { os.Exit(job.TestMain(m, &theJob)) }

// serial is the reference: conjugate gradients on the whole grid, written
// plainly (2-D indexing with tests at the edges, sequential sums, no gonum).
func serial(p params) result {
	n := p.n
	at := func(v []float64, i, j int) float64 {
		if i < 0 || i >= n || j < 0 || j >= n {
			return 0
		}
		return v[i*n+j]
	}
	mul := func(q, v []float64) {
		for i := range n {
			for j := range n {
				q[i*n+j] = 4*at(v, i, j) - at(v, i-1, j) - at(v, i+1, j) - at(v, i, j-1) - at(v, i, j+1)
			}
		}
	}
	dotp := func(a, b []float64) float64 {
		s := 0.0
		for i := range a {
			s += a[i] * b[i]
		}
		return s
	}
	h2 := 1 / (float64(n+1) * float64(n+1))
	x, r, pv, q := make([]float64, n*n), make([]float64, n*n), make([]float64, n*n), make([]float64, n*n)
	for i := range r {
		r[i], pv[i] = h2, h2
	}
	var res result
	rr := dotp(r, r)
	bnorm := math.Sqrt(rr)
	for res.iters < p.maxIter && math.Sqrt(rr) > p.rtol*bnorm {
		res.iters++
		mul(q, pv)
		alpha := rr / dotp(pv, q)
		for i := range x {
			x[i] += alpha * pv[i]
			r[i] -= alpha * q[i]
		}
		rrNew := dotp(r, r)
		beta := rrNew / rr
		rr = rrNew
		for i := range pv {
			pv[i] = r[i] + beta*pv[i]
		}
	}
	mul(q, x)
	for i := range r {
		r[i] = h2 - q[i]
	}
	res.relres, res.xnorm = math.Sqrt(dotp(r, r))/bnorm, math.Sqrt(dotp(x, x))
	return res
}

// kappa is the condition number of A on an n x n grid.
func kappa(n int) float64 {
	t := math.Tan(math.Pi / (2 * float64(n+1)))
	return 1 / (t * t)
}

// agree checks got against the reference want: both converged (true
// residual within twice rtol: the recursive residual drifts a little from
// it) and ||x|| within the bound 2 rtol κ(A) of the package documentation.
func agree(p params, got, want result) error {
	if got.relres > 2*p.rtol || want.relres > 2*p.rtol {
		return fmt.Errorf("not converged: relres %g (reference %g), rtol %g", got.relres, want.relres, p.rtol)
	}
	if d, tol := math.Abs(got.xnorm-want.xnorm), 2*p.rtol*kappa(p.n)*want.xnorm; !(d <= tol) {
		return fmt.Errorf("||x|| = %.17g, reference %.17g: differ by %g > %g", got.xnorm, want.xnorm, d, tol)
	}
	return nil
}

func problems() []params {
	return []params{{n: 12, maxIter: 1000, rtol: 1e-10}, {n: 31, maxIter: 1000, rtol: 1e-8}}
}

func TestSerialConverges(t *testing.T) {
	for _, p := range problems() {
		if r := serial(p); r.iters == 0 || r.iters == p.maxIter || r.relres > 2*p.rtol || !(r.xnorm > 0) {
			t.Errorf("%+v: %v", p, r)
		}
	}
}

// TestInProcess runs solve on colltest's in-process conduit with 1 to 6
// nodes, some hosting two images, against the serial run.
func TestInProcess(t *testing.T) {
	if theJob.Image.Images() > 1 {
		t.Skip("in-process only: it runs in the one-process run (go test), not again on every rank under mpirun")
	}
	for _, perNode := range [][]int{{1}, {1, 1}, {1, 1, 1}, {2, 2}, {1, 1, 1, 1, 1, 1}} {
		for _, p := range problems() {
			want := serial(p)
			t.Run(fmt.Sprintf("nodes%v/n%d", perNode, p.n), func(t *testing.T) {
				err := colltest.RunImages(perNode, colltest.Options{MaxDelay: 20 * time.Microsecond}, coll.Options{}, nil, time.Minute,
					func(im *coll.Image, _ *colltest.Node) error {
						got, err := solve(im, p)
						if err != nil {
							return err
						}
						return agree(p, got, want)
					})
				if err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// TestMPI runs solve over MPI at the launched rank count.
func TestMPI(t *testing.T) {
	im := theJob.Image
	for _, p := range problems() {
		got, err := solve(im, p)
		if err != nil {
			t.Fatal(err)
		}
		if err := agree(p, got, serial(p)); err != nil {
			t.Errorf("rank %d of %d, n %d: %v", im.ImageNum(), im.Images(), p.n, err)
		}
	}
}

func TestBadInput(t *testing.T) {
	for _, args := range [][]string{{"-n", "x"}, {"extra"}, {"-rtol"}} {
		if _, err := parseArgs(args, io.Discard); err == nil {
			t.Errorf("parseArgs(%q) accepted", args)
		}
	}
	for _, c := range []struct {
		p  params
		np int
	}{{params{n: 0, maxIter: 1}, 1}, {params{n: 4, maxIter: -1}, 1}, {params{n: 4, rtol: math.NaN()}, 1}, {params{n: 3, maxIter: 1}, 4}} {
		if err := c.p.check(c.np); !errors.Is(err, errParams) {
			t.Errorf("check(%+v, %d) = %v, want errParams", c.p, c.np, err)
		}
	}
}

// The kernels against plain loops, on lengths around gonum's unrolling.
func TestKernels(t *testing.T) {
	for _, n := range []int{0, 1, 3, 4, 7, 8, 33} {
		x, y := make([]float64, n), make([]float64, n)
		for i := range x {
			x[i], y[i] = float64(i)+0.5, 1/float64(i+1)
		}
		want := 0.0
		for i := range x {
			want += x[i] * y[i]
		}
		if got := dot(x, y); math.Abs(got-want) > 1e-12*math.Abs(want) {
			t.Errorf("dot, n %d: %g, want %g", n, got, want)
		}
		y2 := append([]float64(nil), y...)
		axpy(y2, 2, x)
		y3 := append([]float64(nil), y...)
		xpby(y3, x, 3)
		for i := range x {
			if y2[i] != y[i]+2*x[i] || y3[i] != x[i]+3*y[i] {
				t.Fatalf("n %d, i %d: axpy %g, xpby %g", n, i, y2[i], y3[i])
			}
		}
	}
}

// Benchmarks of the kernels beside plain loops: gonum's place in the
// program is decided by these.
func BenchmarkKernels(b *testing.B) {
	for _, n := range []int{1 << 12, 1 << 20} {
		x, y := make([]float64, n), make([]float64, n)
		for i := range x {
			x[i], y[i] = 1, 2
		}
		b.Run(fmt.Sprintf("dot/gonum/%d", n), func(b *testing.B) {
			for b.Loop() {
				dot(x, y)
			}
		})
		b.Run(fmt.Sprintf("dot/loop/%d", n), func(b *testing.B) {
			for b.Loop() {
				s := 0.0
				for i := range x {
					s += x[i] * y[i]
				}
				_ = s
			}
		})
		b.Run(fmt.Sprintf("axpy/gonum/%d", n), func(b *testing.B) {
			for b.Loop() {
				axpy(y, 1e-9, x)
			}
		})
		b.Run(fmt.Sprintf("axpy/loop/%d", n), func(b *testing.B) {
			for b.Loop() {
				for i := range y {
					y[i] += 1e-9 * x[i]
				}
			}
		})
	}
}
