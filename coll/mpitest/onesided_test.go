package mpitest

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	"github.com/gocoll/gocoll/mpiconduit"
	"github.com/gocoll/gocoll/mpiconduit/mpi"
)

// The MPI conduit has segments (it cannot import coll to say so itself).
var _ colltest.OneSidedConduit = (*mpiconduit.Conduit)(nil)

var mpiErrors = colltest.OneSidedErrors{
	NoSegment: mpiconduit.ErrNoSegment,
	Allocated: mpiconduit.ErrSegmentAllocated,
	Range:     mpiconduit.ErrSegmentRange,
}

// noRDMA reports a run restricted to transports without RDMA (mpirun
// --mca btl tcp,self, which sets OMPI_MCA_btl): there only osc/sm serves
// windows, over memory MPI allocates on one host, and a window over the
// shared segments (MaxNodeSize) cannot be made.
func noRDMA() bool {
	btl, set := os.LookupEnv("OMPI_MCA_btl")
	return set && !strings.Contains(btl, "vader") && !strings.HasPrefix(btl, "^")
}

// TestOneSidedMPI runs the one-sided conformance check over MPI: with the
// shared-memory path (copies and rings within the node), without it
// (MPI_Win_allocate, MPI_Put and MPI_Get), and with every process a node
// of its own (MaxNodeSize 1: MPI_Win_create over the shared segments, as
// between hosts) and in pairs (both paths at once).
func TestOneSidedMPI(t *testing.T) {
	world := mpi.World()
	for _, o := range []mpiconduit.ConduitOptions{{}, {NoSharedMemory: true}, {MaxNodeSize: 1}, {MaxNodeSize: 2}} {
		t.Run(fmt.Sprintf("%+v", o), func(t *testing.T) {
			cd, err := mpiconduit.NewConduitWith(world, o)
			if err != nil {
				t.Fatal(err)
			}
			err = colltest.CheckOneSided(cd, mpiErrors)
			skip := errors.Is(err, mpiconduit.ErrNoRMA) && noRDMA()
			if err != nil && !skip {
				t.Errorf("rank %d of %d: %v", world.Rank(), world.Size(), err)
			}
			if err := cd.Close(); err != nil {
				t.Fatal(err)
			}
			if skip {
				t.Skipf("no RDMA in this run (OMPI_MCA_btl=%s): %v", os.Getenv("OMPI_MCA_btl"), err)
			}
		})
	}
}

// TestInSegmentMPI: every data-movement collective with SrcInSegment,
// DstInSegment and both, in all nine sync modes, gives the data the
// collective defines over MPI's one-sided path: the shared-memory path
// within the host and, with every process a node of its own, RMA windows
// (as between hosts); one image per rank and two (AllThreads).
func TestInSegmentMPI(t *testing.T) {
	np := mpi.World().Size()
	for _, o := range []mpiconduit.ConduitOptions{{}, {MaxNodeSize: 1}} {
		for _, per := range tables(np)[:2] {
			t.Run(fmt.Sprintf("%+v/%v", o, per), func(t *testing.T) {
				P := 0
				for _, k := range per {
					P += k
				}
				opts := coll.Options{SegmentSize: colltest.SegmentNeed(P, 3000), OneSidedMin: 1}
				err := runImagesOn(o, per, opts, func(im *coll.Image, _ *colltest.Node) error {
					return colltest.InSegment(im, im.TeamAll(), nil)
				})
				switch {
				case errors.Is(err, mpiconduit.ErrNoRMA) && noRDMA():
					t.Skipf("no RDMA in this run (OMPI_MCA_btl=%s): %v", os.Getenv("OMPI_MCA_btl"), err)
				case err != nil:
					t.Fatal(err)
				}
			})
		}
	}
}
