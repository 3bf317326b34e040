package mpitest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/mpiconduit"
	"github.com/gocoll/gocoll/mpiconduit/mpi"
	gsync "github.com/gocoll/gocoll/sync"
)

// TestProgressSleepingRankMPI is coll's TestProgressSleepingNode over MPI:
// in a gather to rank 0 (binomial tree), rank 2 forwards rank 3's block;
// it syncs its OUT_NOSYNC handle at once and then makes no gocoll call
// until rank 0 tells it whether it completed; rank 3 starts only then.
// With a progress agent rank 0 completes meanwhile; with polling it cannot
// (rank 2 forwards in its Close). Ranks tell each other with native MPI
// messages.
func TestProgressSleepingRankMPI(t *testing.T) {
	w := mpi.World()
	if w.Size() < 4 {
		t.Skip("needs 4 ranks (rank 2 forwards rank 3's block): scripts/mpirun-tests.sh runs it at np 4 and 8")
	}
	const doneTag, asleepTag = 90, 91
	for _, mode := range []gsync.ProgressMode{gsync.Polling, gsync.Goroutine, gsync.Periodic} {
		t.Run(mode.String(), func(t *testing.T) {
			cd, err := mpiconduit.NewConduit(w)
			if err != nil {
				t.Fatal(err)
			}
			im, err := coll.Init(cd, nil, 0, nil, 0, coll.Options{Tree: coll.Binomial, Progress: mode, ProgressInterval: time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			me := w.Rank()
			f := gsync.InMySync | gsync.OutNoSync | gsync.Local
			src := []byte{byte(me), 0, 0, 0, 0, 0, 0, 0}
			var dst []byte
			if me == 0 {
				dst = make([]byte, 8*w.Size())
			}
			if me == 3 { // after rank 2 stopped calling gocoll
				if _, err := w.Recv(make([]byte, 1), 2, asleepTag); err != nil {
					t.Fatal(err)
				}
			}
			h, err := im.GatherNB(im.TeamAll(), 0, dst, src, 8, f)
			if err != nil {
				t.Fatal(err)
			}
			agent := mode != gsync.Polling
			switch me {
			case 2:
				ok, err := h.Try()
				if err := w.Send([]byte{1}, 3, asleepTag); err != nil {
					t.Fatal(err)
				}
				if !ok || err != nil {
					t.Errorf("rank 2's OUT_NOSYNC sync: %v %v", ok, err)
				}
				// MPI calls only, no gocoll call, until rank 0's word.
				for {
					_, there, err := w.Iprobe(0, doneTag)
					if err != nil {
						t.Fatal(err)
					}
					if there {
						break
					}
					time.Sleep(time.Millisecond)
				}
				done := make([]byte, 1)
				if _, err := w.Recv(done, 0, doneTag); err != nil {
					t.Fatal(err)
				}
				if got := done[0] == 1; got != agent {
					t.Errorf("mode %v: rank 0 completed while rank 2 made no gocoll call: %v, want %v", mode, got, agent)
				}
			case 0:
				var done bool
				if agent {
					// 30 s is a hang guard: without the agent's forwarding
					// rank 0 would wait as long as rank 2 makes no call.
					ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
					err := h.Wait(ctx)
					cancel()
					if err != nil && !errors.Is(err, context.DeadlineExceeded) {
						t.Fatal(err)
					}
					done = err == nil
				} else { // by causality: rank 2 has not forwarded rank 3's block
					ok, err := h.Try()
					if err != nil {
						t.Fatal(err)
					}
					done = ok
				}
				if err := w.Send([]byte{boolByte(done)}, 2, doneTag); err != nil {
					t.Fatal(err)
				}
				if !done {
					if err := h.Wait(context.Background()); err != nil { // rank 2 forwards in its Close
						t.Fatal(err)
					}
				}
				for q := range w.Size() {
					if dst[8*q] != byte(q) {
						t.Fatalf("block %d = %v", q, dst[8*q:8*q+8])
					}
				}
			default:
				if err := h.Wait(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			if err := im.Close(); err != nil {
				t.Fatal(err)
			}
			if err := cd.Close(); err != nil {
				t.Fatal(fmt.Errorf("conduit: %w", err))
			}
		})
	}
}

// boolByte is 1 for true, 0 for false.
func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}
