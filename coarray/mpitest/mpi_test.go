package mpitest

// The only file that calls the MPI binding (Init, Finalize, World) and makes
// the conduit.

import (
	"os"
	"testing"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/mpiconduit"
	"github.com/gocoll/gocoll/mpiconduit/mpi"
)

func TestMain(m *testing.M) { os.Exit(mpi.RunTests(m)) }

// newConduit is a conduit on a duplicate of MPI_COMM_WORLD, and the rank
// and size of the job.
func newConduit() (coll.Conduit, int, int, error) {
	w := mpi.World()
	c, err := mpiconduit.NewConduit(w)
	return c, w.Rank(), w.Size(), err
}

// allreduce is MPI_Allreduce (MPI_SUM) of a in place on MPI_COMM_WORLD:
// the baseline of the benchmark.
func allreduce(a []float64) error {
	return mpi.Allreduce(mpi.World(), a, a, mpi.OpSum)
}

// wtime is MPI_Wtime.
func wtime() float64 { return mpi.Wtime() }
