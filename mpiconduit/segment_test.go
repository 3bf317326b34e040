package mpiconduit

import (
	"errors"
	"os"
	"testing"

	"github.com/gocoll/gocoll/mpiconduit/internal/singleton"
	"github.com/gocoll/gocoll/mpiconduit/mpi"
	"github.com/stretchr/testify/require"
)

// The conformance check of the segments runs in coll/mpitest (it lives
// in coll/colltest, beside the in-process conduit's); these are the
// conduit's own cases.

// A closed conduit refuses the one-sided calls with ErrClosed (which also
// matches mpi.ErrFreed, as the two-sided calls' errors do), and Close
// twice too; Close frees the segment's windows.
func TestSegmentClosed(t *testing.T) {
	eachConduit(t, func(t *testing.T, w *mpi.Comm, cd *Conduit) {
		seg, err := cd.AllocSegment(64)
		require.NoError(t, err)
		require.Len(t, seg, 64)
		require.NoError(t, cd.Close())
		_, err = cd.PutNotify(w.Rank(), 0, 1, make([]byte, 8), 1)
		require.ErrorIs(t, err, ErrClosed)
		require.ErrorIs(t, err, mpi.ErrFreed)
		_, err = cd.Get(w.Rank(), 0, make([]byte, 8), 1)
		require.ErrorIs(t, err, ErrClosed)
		_, err = cd.AllocSegment(64)
		require.ErrorIs(t, err, ErrClosed)
		require.ErrorIs(t, cd.Close(), ErrClosed)
		// eachConduit's Close comes next: a new conduit for it.
		cd2, err := NewConduit(w)
		require.NoError(t, err)
		*cd = *cd2
	})
}

// A negative size on one node fails AllocSegment on every node, none
// left waiting; the conduit then has no segment and still works.
func TestSegmentNegativeSize(t *testing.T) {
	eachConduit(t, func(t *testing.T, w *mpi.Comm, cd *Conduit) {
		size := 64
		if w.Rank() == w.Size()-1 {
			size = -1
		}
		_, err := cd.AllocSegment(size)
		require.ErrorIs(t, err, ErrSegmentRange)
		_, err = cd.PutNotify(w.Rank(), 0, 1, make([]byte, 8), 1)
		require.ErrorIs(t, err, ErrNoSegment)
		seg, err := cd.AllocSegment(16)
		require.NoError(t, err, "a refused size allocated nothing")
		require.Len(t, seg, 16)
	})
}

// Transfers to a rank outside the conduit, or with a tag MPI refuses, are
// refused as Isend refuses them.
func TestSegmentRankTag(t *testing.T) {
	cd, err := NewConduit(mpi.Self())
	require.NoError(t, err)
	defer cd.Close()
	_, err = cd.AllocSegment(8)
	require.NoError(t, err)
	_, err = cd.PutNotify(1, 0, 1, make([]byte, 1), 1)
	require.ErrorIs(t, err, mpi.ErrRank)
	_, err = cd.PutNotify(0, 0, -1, make([]byte, 1), 1)
	require.ErrorIs(t, err, mpi.ErrTag)
	_, err = cd.Get(-1, 0, make([]byte, 1), 1)
	require.ErrorIs(t, err, mpi.ErrRank)
	_, err = cd.PutNotify(0, 0, 1, nil, 1)
	require.ErrorIs(t, err, mpi.ErrNilBuffer)
}

// noRMAChild marks the process that TestSegmentNoRMA starts.
const noRMAChild = "GOCOLL_TEST_SEGMENT_NO_RMA_CHILD"

// TestSegmentNoRMA starts this test binary as an MPI singleton that may
// use only Open MPI's osc/pt2pt one-sided component, which refuses
// windows under MPI_THREAD_MULTIPLE (as it is selected over TCP), and
// checks that AllocSegment says so with ErrNoRMA, on a conduit with and
// without the shared-memory path, and that the conduit still carries
// messages and closes. Only rank 0 runs the child.
func TestSegmentNoRMA(t *testing.T) {
	if os.Getenv(noRMAChild) != "" {
		// osc/sm is excluded too, so no conduit has the shared-memory path.
		for _, o := range []ConduitOptions{{}, {NoSharedMemory: true}} {
			w := mpi.World()
			cd, err := NewConduitWith(w, o)
			require.NoError(t, err)
			_, err = cd.AllocSegment(64)
			t.Logf("%+v: %v", o, err)
			require.ErrorIs(t, err, ErrNoRMA)
			var e *mpi.Error
			require.True(t, errors.As(err, &e), "the MPI error is wrapped: %v", err)
			require.Equal(t, mpi.ClassWin, e.Class)
			require.Contains(t, err.Error(), "osc/pt2pt")
			_, err = cd.Get(0, 0, make([]byte, 1), 1)
			require.ErrorIs(t, err, ErrNoSegment)
			conduitRing(t, w, cd)
			require.NoError(t, cd.Close())
		}
		return
	}
	if mpi.World().Rank() != 0 {
		return
	}
	cmd := singleton.Command([]string{"-test.run=^TestSegmentNoRMA$", "-test.v"}, noRMAChild+"=1", "OMPI_MCA_osc=pt2pt")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "child output:\n%s", out)
	require.Contains(t, string(out), "--- PASS: TestSegmentNoRMA")
}

// A notification of PutNotify that MPI did not complete at once waits in
// the table holding no buffer; completing it must not put a buffer that
// is none into the pool (where a small transfer would take it and hand
// MPI a null pointer).
func TestFinishNotification(t *testing.T) {
	cd, err := NewConduitWith(mpi.Self(), ConduitOptions{NoSharedMemory: true})
	require.NoError(t, err)
	defer cd.Close()
	cd.finish(&pending{token: 7})
	for c, free := range cd.bounce {
		require.Empty(t, free, "size class %d", c)
	}
	require.Empty(t, cd.spare)
}
