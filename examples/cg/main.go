// Command cg solves the Poisson problem -Δu = 1 on the unit square, with
// zero boundary values, discretized by the 5-point stencil on an n x n grid,
// by conjugate gradients, on a band of grid rows per process, with gocoll's
// collectives: the dot products' sums by ReduceAll, the halo rows of the
// mat-vec by a neighbour exchange on the line of images, in place
// (coll.NeighborExchangeVOf). The local vector kernels
// are gonum's. c/cg.c is its C + MPI twin.
//
//	go build -o cg ./examples/cg
//	mpirun --bind-to none -np 2 ./cg -n 512 -rtol 1e-8
//
// It prints the iterations done, the true relative residual ||b - A x|| /
// ||b|| recomputed from x, the norm of x and the time of the iterations.
//
// # Agreement with the C twin
//
// The two do the same operations but not the same roundings: a dot product
// is summed in a different order by gonum's Dot (several lanes at once) than
// by C's loop, and its sum over processes in a different order by gocoll's
// ReduceAll (recursive doubling) than by Open MPI's MPI_Allreduce; the
// number of processes changes the order again. Each program's x still
// satisfies ||b - A x|| <= rtol ||b|| (up to the small drift of the
// recursive residual), and two such solutions differ by at most
// ||A^-1|| 2 rtol ||b|| <= 2 rtol κ(A) ||x||, κ(A) = cot^2(π / (2(n+1)))
// for this matrix. scripts/examples.sh checks that bound on ||x|| between
// Go and C and between process counts; the differences seen are far below it.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/examples/internal/job"
)

func main() { os.Exit(realMain(os.Args[1:], os.Stdout, os.Stderr)) }

func parseArgs(args []string, stderr io.Writer) (params, error) {
	var p params
	fs := flag.NewFlagSet("cg", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&p.n, "n", 256, "grid size: `n` x n unknowns")
	fs.IntVar(&p.maxIter, "iters", 100000, "most iterations")
	fs.Float64Var(&p.rtol, "rtol", 1e-8, "stop once ||r|| <= `rtol` ||b||")
	if err := fs.Parse(args); err != nil {
		return p, err
	}
	if fs.NArg() > 0 {
		return p, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return p, nil
}

func realMain(args []string, stdout, stderr io.Writer) int {
	p, err := parseArgs(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "cg:", err)
		return 2
	}
	return job.Main("cg", stdout, stderr, func(im *coll.Image) (string, error) {
		if err := p.check(im.Images()); err != nil {
			return "", job.Usage(err)
		}
		res, err := solve(im, p)
		return fmt.Sprintf("cg go: n=%d rtol=%g np=%d\n%v\n", p.n, p.rtol, im.Images(), res), err
	})
}
