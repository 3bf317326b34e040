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

// serial is the reference: the same iteration on the whole grid in one
// piece, written plainly (no halos, no blocks, no collectives).
func serial(p params) result {
	s := p.n + 2
	u, v := make([]float64, s*s), make([]float64, s*s)
	for _, a := range [][]float64{u, v} {
		for i := range s {
			a[i*s] = leftValue
		}
		for j := range s {
			a[j] = topValue
		}
	}
	var res result
	pendingR, pendingStep := 0.0, 0
	for res.steps < p.steps {
		res.steps++
		r := 0.0
		for i := 1; i <= p.n; i++ {
			for j := 1; j <= p.n; j++ {
				x := 0.25 * (u[(i-1)*s+j] + u[(i+1)*s+j] + u[i*s+j-1] + u[i*s+j+1])
				v[i*s+j] = x
				r = math.Max(r, math.Abs(x-u[i*s+j]))
			}
		}
		u, v = v, u
		if pendingStep != 0 {
			res.residual, res.resStep, pendingStep = pendingR, pendingStep, 0
			if res.residual < p.tol {
				break
			}
		}
		if res.steps%p.k == 0 {
			pendingR, pendingStep = r, res.steps
		}
	}
	if pendingStep != 0 {
		res.residual, res.resStep = pendingR, pendingStep
	}
	for i := 1; i <= p.n; i++ {
		for j := 1; j <= p.n; j++ {
			res.checksum += math.Float64bits(u[i*s+j]) * uint64(2*(i*s+j)+1)
		}
	}
	return res
}

// same reports how got differs from want, bit for bit, the time aside.
func same(got, want result) error {
	got.seconds, want.seconds = 0, 0
	if got != want || math.Float64bits(got.residual) != math.Float64bits(want.residual) {
		return fmt.Errorf("got  %v\nwant %v", got, want)
	}
	return nil
}

// problems are small cases: uneven blocks (n not a multiple of the grid),
// k not dividing steps, an early stop on the tolerance, k = 1.
func problems() []params {
	return []params{
		{n: 13, steps: 40, k: 3},
		{n: 10, steps: 200, k: 4, tol: 2e-3},
		{n: 9, steps: 25, k: 1},
	}
}

// grids are the process grids of np images.
func grids(np int) [][2]int {
	var g [][2]int
	for py := 1; py <= np; py++ {
		if np%py == 0 {
			g = append(g, [2]int{py, np / py})
		}
	}
	return g
}

func TestSerialStopsEarly(t *testing.T) {
	p := params{n: 10, steps: 200, k: 4, tol: 2e-3}
	r := serial(p)
	if r.steps >= p.steps || r.resStep != r.steps-1 || !(r.residual < p.tol) {
		t.Fatalf("reference did not stop after the test that passed: %v", r)
	}
}

// TestInProcess runs solve on colltest's in-process conduit with 1 to 6
// nodes, some hosting two images, on every grid, against the serial run.
func TestInProcess(t *testing.T) {
	if theJob.Image.Images() > 1 {
		t.Skip("in-process only: it runs in the one-process run (go test), not again on every rank under mpirun")
	}
	for _, perNode := range [][]int{{1}, {1, 1}, {1, 1, 1}, {2, 2}, {1, 1, 1, 1, 1, 1}} {
		np := 0
		for _, k := range perNode {
			np += k
		}
		for _, g := range grids(np) {
			for _, p := range problems() {
				p.py, p.px = g[0], g[1]
				want := serial(p)
				t.Run(fmt.Sprintf("nodes%v/grid%dx%d/n%d", perNode, p.py, p.px, p.n), func(t *testing.T) {
					err := colltest.RunImages(perNode, colltest.Options{MaxDelay: 20 * time.Microsecond}, coll.Options{}, nil, time.Minute,
						func(im *coll.Image, _ *colltest.Node) error {
							got, err := solve(im, p)
							if err != nil {
								return err
							}
							if err := same(got, want); err != nil {
								return fmt.Errorf("image %d: %w", im.ImageNum(), err)
							}
							return nil
						})
					if err != nil {
						t.Fatal(err)
					}
				})
			}
		}
	}
}

// TestMPI runs solve over MPI on every grid of the launched rank count.
func TestMPI(t *testing.T) {
	im := theJob.Image
	for _, g := range grids(im.Images()) {
		for _, p := range problems() {
			p.py, p.px = g[0], g[1]
			got, err := solve(im, p)
			if err != nil {
				t.Fatal(err)
			}
			if err := same(got, serial(p)); err != nil {
				t.Errorf("rank %d of %d, grid %dx%d: %v", im.ImageNum(), im.Images(), p.py, p.px, err)
			}
		}
	}
}

func TestBadInput(t *testing.T) {
	for _, args := range [][]string{{"-grid", "2"}, {"-grid", "0x1"}, {"-grid", "axb"}, {"extra"}, {"-n", "x"}} {
		if _, err := parseArgs(args, io.Discard); err == nil {
			t.Errorf("parseArgs(%q) accepted", args)
		}
	}
	if p, err := parseArgs([]string{"-grid", "3x2", "-n", "7"}, io.Discard); err != nil || p.py != 3 || p.px != 2 || p.n != 7 {
		t.Errorf("parseArgs: %+v, %v", p, err)
	}
	for _, c := range []struct {
		p   params
		np  int
		err error
	}{
		{params{n: 8, steps: 1, k: 1, py: 2, px: 2}, 3, errGrid},
		{params{n: 2, steps: 1, k: 1, py: 3, px: 1}, 3, errGrid},
	} {
		if err := c.p.check(c.np); !errors.Is(err, c.err) {
			t.Errorf("check(%+v, %d) = %v, want %v", c.p, c.np, err, c.err)
		}
	}
	if err := (params{n: 8, steps: 1, k: 0, py: 1, px: 1}).check(1); err == nil {
		t.Error("k = 0 accepted")
	}
}
