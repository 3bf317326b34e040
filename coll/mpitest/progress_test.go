package mpitest

import (
	"context"
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
// it syncs its OUT_NOSYNC handle at once and sleeps without calling gocoll.
// With a progress agent rank 0 completes while rank 2 sleeps; with polling
// it completes after. Ranks tell each other with native MPI messages.
func TestProgressSleepingRankMPI(t *testing.T) {
	w := mpi.World()
	if w.Size() < 4 {
		t.Skip("needs 4 ranks (rank 2 forwards rank 3's block): scripts/mpirun-tests.sh runs it at np 4 and 8")
	}
	const sleep = 2 * time.Second
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
			if me == 3 {
				time.Sleep(100 * time.Millisecond) // after rank 2 went to sleep
			}
			h, err := im.GatherNB(im.TeamAll(), 0, dst, src, 8, f)
			if err != nil {
				t.Fatal(err)
			}
			switch me {
			case 2:
				if ok, err := h.Try(); !ok || err != nil {
					t.Fatalf("rank 2's OUT_NOSYNC sync: %v %v", ok, err)
				}
				time.Sleep(sleep)
			default:
				if err := h.Wait(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			// Rank 0 tells rank 2 when it is done; rank 2, on waking, checks
			// whether that came while it slept (by causality it cannot in
			// polling mode: rank 0 needs rank 2's forwarding first).
			if me == 0 {
				for q := range w.Size() {
					if dst[8*q] != byte(q) {
						t.Fatalf("block %d = %v", q, dst[8*q:8*q+8])
					}
				}
				if err := w.Send([]byte{1}, 2, 90); err != nil {
					t.Fatal(err)
				}
			}
			if me == 2 {
				// Iprobe until the message shows, for a moment: MPI's own
				// progress on this rank has been idle while it slept.
				var done bool
				for deadline := time.Now().Add(200 * time.Millisecond); !done && time.Now().Before(deadline); {
					if _, done, err = w.Iprobe(0, 90); err != nil {
						t.Fatal(err)
					}
				}
				if agent := mode != gsync.Polling; agent != done {
					t.Errorf("mode %v: rank 0 done while rank 2 slept %v s: %v", mode, sleep.Seconds(), done)
				}
			}
			if err := im.Close(); err != nil { // rank 2 forwards here in polling mode
				t.Fatal(err)
			}
			if me == 2 {
				if _, err := w.Recv(make([]byte, 1), 0, 90); err != nil {
					t.Fatal(err)
				}
			}
			if err := cd.Close(); err != nil {
				t.Fatal(fmt.Errorf("conduit: %w", err))
			}
		})
	}
}
