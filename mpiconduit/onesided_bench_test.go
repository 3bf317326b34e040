package mpiconduit

import (
	"fmt"
	"testing"

	"github.com/gocoll/gocoll/mpiconduit/mpi"
)

// BenchmarkOneSided is the measurement behind the one-sided path's choice
// of synchronisation: a ping-pong between ranks 0 and 1 of size bytes,
// one op a round trip, by three methods:
//
//   - isend: Isend into a posted Irecv (the conduit's two-sided path);
//   - putnotify: PutNotify into the peer's segment and a zero-byte Irecv
//     for its notification (passive target: MPI_Put, MPI_Win_flush and
//     the notification message; within a node with the shared-memory
//     path, a copy and the ring);
//   - pscw: MPI_Put in an access epoch of MPI_Win_start/MPI_Win_complete
//     matched by MPI_Win_post/MPI_Win_wait at the target, the target
//     learning of the data from MPI_Win_wait (through the binding's Win,
//     whose Go side, a pin per put and a group per epoch, costs a little
//     more than the conduit's: small beside the epochs' messages).
//
// Both ranks must run the same iteration counts, so give the count:
//
//	go test -c -o bin/mpiconduit.test ./mpiconduit
//	mpirun --allow-run-as-root --bind-to none -np 2 bin/mpiconduit.test \
//	  -test.run xxx -test.bench OneSided -test.benchtime 2000x
//
// GOCOLL_SHM=0 (passed with -x GOCOLL_SHM) measures the path between
// nodes on one host; `--mca btl tcp,self --mca btl_tcp_if_include lo
// --mca oob_tcp_if_include lo` the same over TCP. A method MPI cannot
// serve (no one-sided component: ErrNoRMA) is skipped with the reason.
func BenchmarkOneSided(b *testing.B) {
	w := mpi.World()
	if w.Size() != 2 {
		b.Skip("needs exactly 2 MPI ranks")
	}
	sizes := []int{8, 512, 4 << 10, 8 << 10, 32 << 10, 256 << 10, 1 << 20}
	maxSize := sizes[len(sizes)-1]
	cd, err := NewConduit(w)
	if err != nil {
		b.Fatal(err)
	}
	defer cd.Close()
	_, segErr := cd.AllocSegment(maxSize)
	win, winErr := mpi.WinAllocate(w, maxSize, 1)
	if winErr == nil {
		defer win.Free()
	}
	if w.Rank() == 0 {
		osc := func(w *mpi.Win) string {
			if w == nil {
				return "none"
			}
			if c := w.Component(); c != "" {
				return c
			}
			return "sm"
		}
		var segWin *mpi.Win
		if cd.seg != nil {
			segWin = cd.seg.win
		}
		b.Logf("shared memory %v; segment error %v, its MPI window's osc %s; PSCW window error %v, osc %s",
			cd.SharedMemory(), segErr, osc(segWin), winErr, osc(win))
	}
	peer := 1 - w.Rank()
	for _, n := range sizes {
		src, dst := make([]byte, n), make([]byte, n)
		b.Run(fmt.Sprintf("isend/%d", n), func(b *testing.B) {
			pingPong(b, w, n, func() error {
				return roundTrip(cd, func(tok uint64) (bool, error) { return cd.Isend(peer, 1, src, tok) },
					func(tok uint64) (bool, error) { return cd.Irecv(peer, 1, dst, tok) })
			})
		})
		b.Run(fmt.Sprintf("putnotify/%d", n), func(b *testing.B) {
			if segErr != nil {
				b.Skip(segErr)
			}
			pingPong(b, w, n, func() error {
				return roundTrip(cd, func(tok uint64) (bool, error) { return cd.PutNotify(peer, 0, 2, src, tok) },
					func(tok uint64) (bool, error) { return cd.Irecv(peer, 2, noBytes, tok) })
			})
		})
		b.Run(fmt.Sprintf("pscw/%d", n), func(b *testing.B) {
			if winErr != nil {
				b.Skip(winErr)
			}
			group := []int{peer}
			pingPong(b, w, n, func() error {
				put := func() error {
					if err := win.Start(group, 0); err != nil {
						return err
					}
					if err := win.Put(src, peer, 0); err != nil {
						return err
					}
					return win.Complete()
				}
				if err := win.Post(group, 0); err != nil {
					return err
				}
				if w.Rank() == 0 {
					if err := put(); err != nil {
						return err
					}
					return win.Wait()
				}
				if err := win.Wait(); err != nil {
					return err
				}
				return put()
			})
		})
	}
}

// pingPong times b.N round trips of n bytes, each made by trip on both
// ranks, after a barrier.
func pingPong(b *testing.B, w *mpi.Comm, n int, trip func() error) {
	b.SetBytes(int64(2 * n))
	if err := w.Barrier(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if err := trip(); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if err := w.Barrier(); err != nil {
		b.Fatal(err)
	}
}

// roundTrip is one round trip through the conduit: rank 0 sends first and
// rank 1 answers; each posts its receive before it sends.
func roundTrip(cd *Conduit, send, recv func(tok uint64) (bool, error)) error {
	var t tracker
	t.cd = cd
	const recvTok, sendTok = 1, 2
	if err := t.start(recvTok)(recv(recvTok)); err != nil {
		return err
	}
	if cd.Node() == 0 {
		if err := t.start(sendTok)(send(sendTok)); err != nil {
			return err
		}
		if err := t.wait(sendTok); err != nil {
			return err
		}
		return t.wait(recvTok)
	}
	if err := t.wait(recvTok); err != nil {
		return err
	}
	if err := t.start(sendTok)(send(sendTok)); err != nil {
		return err
	}
	return t.wait(sendTok)
}

// tracker knows which of a round trip's two transfers are incomplete.
type tracker struct {
	cd   *Conduit
	left [3]bool // by token
	buf  [4]uint64
}

// start records the outcome of starting the transfer with token tok.
func (t *tracker) start(tok uint64) func(bool, error) error {
	return func(done bool, err error) error {
		t.left[tok] = err == nil && !done
		return err
	}
}

// wait polls until the transfer with token tok has completed.
func (t *tracker) wait(tok uint64) error {
	for t.left[tok] {
		got, err := t.cd.Poll(t.buf[:0])
		if err != nil {
			return err
		}
		for _, g := range got {
			t.left[g] = false
		}
	}
	return nil
}
