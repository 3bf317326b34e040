// Command heat2d solves the 2-D heat equation at steady state (Laplace's
// equation) on an n x n grid by Jacobi iteration, on a 2-D grid of
// processes, with gocoll's collectives: each sweep exchanges halos with the
// neighbouring blocks (a neighbour exchange on the process grid,
// coll.NeighborExchangeVOf), and every k sweeps a non-blocking
// max-reduction of the residual overlaps the next sweep. c/heat2d.c is its C + MPI twin: same
// arithmetic in the same order, so the printed results agree bit for bit
// (the time aside), at every process count.
//
//	go build -o heat2d ./examples/heat2d
//	mpirun --bind-to none -np 4 ./heat2d -n 1024 -steps 2000 -k 10 -grid 2x2
//
// It prints one line: steps done, the last residual (max |u_new - u_old|)
// and the sweep it belongs to, a checksum of the field that does not depend
// on the decomposition, and the time of the sweeps.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/examples/internal/decomp"
	"github.com/gocoll/gocoll/examples/internal/job"
)

func main() { os.Exit(realMain(os.Args[1:], os.Stdout, os.Stderr)) }

// parseArgs reads the flags; py and px are 0 when the grid is left to dims.
func parseArgs(args []string, stderr io.Writer) (params, error) {
	var p params
	fs := flag.NewFlagSet("heat2d", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&p.n, "n", 512, "interior grid size: `n` x n cells")
	fs.IntVar(&p.steps, "steps", 1000, "most Jacobi sweeps")
	fs.IntVar(&p.k, "k", 10, "convergence test every `k` sweeps")
	fs.Float64Var(&p.tol, "tol", 0, "stop once the residual is below `tol` (0: run every sweep)")
	grid := fs.String("grid", "", "process grid `PYxPX` (rows x columns of blocks; default: the most square)")
	if err := fs.Parse(args); err != nil {
		return p, err
	}
	if fs.NArg() > 0 {
		return p, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if *grid != "" {
		y, x, ok := strings.Cut(*grid, "x")
		var e1, e2 error
		p.py, e1 = strconv.Atoi(y)
		p.px, e2 = strconv.Atoi(x)
		if !ok || e1 != nil || e2 != nil || p.py < 1 || p.px < 1 {
			return p, fmt.Errorf("-grid %q: want PYxPX, e.g. 2x1", *grid)
		}
	}
	return p, nil
}

func realMain(args []string, stdout, stderr io.Writer) int {
	p, err := parseArgs(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "heat2d:", err)
		return 2
	}
	return job.Main("heat2d", stdout, stderr, func(im *coll.Image) (string, error) {
		np := im.Images()
		if p.py == 0 {
			p.py, p.px = decomp.Dims(np)
		}
		if err := p.check(np); err != nil {
			return "", job.Usage(err)
		}
		res, err := solve(im, p)
		return fmt.Sprintf("heat2d go: n=%d grid=%dx%d steps=%d k=%d tol=%g np=%d\n%v\n", p.n, p.py, p.px, p.steps, p.k, p.tol, np, res), err
	})
}
