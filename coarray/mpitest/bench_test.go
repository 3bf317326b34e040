package mpitest

import (
	"fmt"
	"os"
	"testing"

	"github.com/gocoll/gocoll/coarray"
)

// TestCoSumVsAllreduce prints the time per call of CoSum (default and
// checked mode) and of MPI_Allreduce on n doubles, in one run: best of 5
// batches of ~0.2 s, microseconds, on image 1. It runs only with
// GOCOLL_COARRAY_BENCH=1 (under the exclusive lock, as every timing):
//
//	GOCOLL_COARRAY_BENCH=1 flock /tmp/gocoll-cpu.lock mpirun -np 2 ./mpitest.test -test.run CoSumVsAllreduce -test.v
func TestCoSumVsAllreduce(t *testing.T) {
	if os.Getenv("GOCOLL_COARRAY_BENCH") != "1" {
		t.Skip("a measurement: set GOCOLL_COARRAY_BENCH=1 to run it")
	}
	for _, checked := range []bool{false, true} {
		run(t, 1, coarray.Options{Checked: checked}, func(img *coarray.Image) error {
			for _, n := range []int{1, 1000, 131072, 1000000} {
				a := make([]float64, n)
				co := best(img, func() error { return coarray.CoSum(img, a) })
				mpi := best(img, func() error { return allreduce(a) })
				if img.ThisImage() == 1 {
					fmt.Printf("CoSum checked=%-5v %8d doubles: %10.3f us   MPI_Allreduce %10.3f us   ratio %.2f\n",
						checked, n, co, mpi, co/mpi)
				}
			}
			return nil
		})
	}
}

// best is the best of 5 batches of the mean microseconds per call of f,
// the batch size grown to ~0.2 s on image 1 and broadcast.
func best(img *coarray.Image, f func() error) float64 {
	batch := func(iters int) float64 {
		_ = img.SyncAll()
		t0 := wtime()
		for range iters {
			if err := f(); err != nil {
				panic(err)
			}
		}
		dt := []float64{wtime() - t0}
		_ = coarray.CoBroadcast(img, dt, 1)
		return dt[0]
	}
	iters := 1
	for batch(iters) < 0.2 && iters < 1<<20 {
		iters *= 4
	}
	b := 1e30
	for range 5 {
		b = min(b, batch(iters)/float64(iters)*1e6)
	}
	return b
}
