package main

import (
	"fmt"
	"os"
	"testing"

	"github.com/gocoll/gocoll"
	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/examples/internal/job"
	"github.com/gocoll/gocoll/mpiconduit/mpi"
)

// TestMain runs the program with 3 images per process, in checked mode
// (gocoll.WithOptions): without mpirun in one process, under mpirun
// (scripts/mpirun-tests.sh) on every rank, image 0 checking what it
// printed.
func TestMain(m *testing.M) {
	// MPI first, for the rank and size (RunImages takes MPI as it finds
	// it, and finalizes it).
	if _, err := mpi.Init(mpi.ThreadMultiple); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	rank, P := mpi.World().Rank(), 3*mpi.World().Size()
	var err error
	out := job.Capture(func() { err = sum(3, gocoll.WithOptions(coll.Options{Check: true})) })
	switch {
	case err != nil:
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	case rank == 0 && out != fmt.Sprintf("%d images, sum: [%d %d %d]\n", P, P, 2*P, P*(P-1)/2):
		fmt.Fprintf(os.Stderr, "the program printed %q\n", out)
		os.Exit(1)
	case rank != 0 && out != "":
		fmt.Fprintf(os.Stderr, "rank %d printed %q\n", rank, out)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

func TestRunImagesTwice(t *testing.T) {
	// MPI was finalized by the first run: a second fails, and says so.
	if err := sum(1); err == nil {
		t.Fatal("a second RunImages after MPI_Finalize succeeded")
	}
}
