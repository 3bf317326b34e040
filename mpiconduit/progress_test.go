package mpiconduit

import (
	"testing"
	"time"

	"github.com/gocoll/gocoll/mpiconduit/mpi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A node that waits on the conduit alone must let MPI progress for a peer
// that waits in MPI_Win_flush on one of its windows (MPICH over UCX
// completes the flush only inside the target's MPI calls; see Poll). Rank
// 1 puts into rank 0's part of a window and flushes, then sends rank 0 a
// small message, which the rings carry; rank 0 waits for it by Poll alone.
// Without progress from Poll, rank 1 stays in the flush and the message
// never comes: rank 0 gives up after giveUp, so that the test fails
// instead of hanging (its next MPI call then frees rank 1).
func TestPollProgressesRMA(t *testing.T) {
	const giveUp = 30 * time.Second
	eachConduit(t, func(t *testing.T, w *mpi.Comm, cd *Conduit) {
		if w.Size() < 2 {
			t.Skip("needs 2 ranks")
		}
		want := []byte("one-side")
		win, err := mpi.WinAllocate(w, len(want), 1)
		require.NoError(t, err)
		require.NoError(t, win.LockAll(mpi.ModeNoCheck))
		defer func() {
			// Collective: every rank gets here, whatever failed.
			assert.NoError(t, win.UnlockAll())
			assert.NoError(t, win.Free())
		}()
		require.NoError(t, w.Barrier())
		const tag, token = 5, 1
		note := []byte{1}
		switch w.Rank() {
		case 1:
			require.NoError(t, win.Put(want, 0, 0))
			require.NoError(t, win.Flush(0))
			done, err := cd.Isend(0, tag, note, token)
			for err == nil && !done {
				var got []uint64
				got, err = cd.Poll(nil)
				done = len(got) > 0
			}
			require.NoError(t, err)
		case 0:
			// No require from here: the other ranks wait in collectives
			// (the window's, the conduit's Close) that rank 0 must join.
			done, err := cd.Irecv(1, tag, make([]byte, 1), token)
			for start := time.Now(); err == nil && !done; {
				var toks []uint64
				toks, err = cd.Poll(nil)
				done = len(toks) > 0
				if !done && time.Since(start) > giveUp {
					t.Errorf("no message from rank 1 in %v: it is still in MPI_Win_flush, which rank 0's polls did not let progress", giveUp)
					return
				}
			}
			if assert.NoError(t, err) && assert.NoError(t, win.Sync()) {
				assert.Equal(t, want, win.Mem(), "what rank 1 put")
			}
		}
	})
}
