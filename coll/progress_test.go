package coll_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	gsync "github.com/gocoll/gocoll/sync"
)

// TestProgressSleepingNode: in a gather to node 0 over four nodes, node 2
// forwards node 3's block. Node 2 starts the gather with OUT_NOSYNC, whose
// sync succeeds at once there (node 2 has no destination), and then makes
// no gocoll call until node 0 lets it; node 3 starts only then. With a
// progress agent node 2 forwards node 3's block while it does not call, and
// node 0 completes before it lets node 2 go on; with polling node 0 cannot
// complete, even once node 3's block reached node 2, until node 2 calls.
func TestProgressSleepingNode(t *testing.T) {
	for _, mode := range []gsync.ProgressMode{gsync.Polling, gsync.Goroutine, gsync.Periodic} {
		t.Run(mode.String(), func(t *testing.T) {
			t.Parallel()
			asleep := make(chan struct{}) // node 2 synced and makes no gocoll call
			sent := make(chan struct{})   // node 3's block reached node 2
			wake := make(chan struct{})   // node 2 may call gocoll again
			opts := coll.Options{Tree: coll.Binomial, Progress: mode, ProgressInterval: time.Millisecond}
			err := colltest.Run(4, colltest.Options{}, opts, time.Minute, func(im *coll.Image) error {
				me := im.ImageNum()
				f := gsync.InMySync | gsync.OutNoSync | gsync.Local
				src := []byte{byte(me), 0, 0, 0, 0, 0, 0, 0}
				var dst []byte
				switch me {
				case 0:
					dst = make([]byte, 8*4)
				case 3:
					<-asleep
				}
				h, err := im.GatherNB(im.TeamAll(), 0, dst, src, 8, f)
				if err != nil {
					return err
				}
				switch me {
				case 2:
					ok, err := h.Try()
					close(asleep)
					if !ok || err != nil {
						return fmt.Errorf("node 2's OUT_NOSYNC sync: %v %v", ok, err)
					}
					<-wake // no gocoll call meanwhile
					return im.Close()
				case 1, 3:
					err := h.Wait(context.Background())
					if me == 3 {
						close(sent) // the in-process conduit delivers as it sends
					}
					if err != nil {
						return err
					}
					return im.Close()
				}
				if mode == gsync.Polling {
					<-sent
					ok, err := h.Try()
					close(wake)
					if ok || err != nil {
						return fmt.Errorf("node 0 synced (%v, %v) while node 2 made no call, in polling mode", ok, err)
					}
					if err := h.Wait(context.Background()); err != nil { // node 2 forwards in its Close
						return err
					}
				} else {
					// 30 s is a hang guard: without the agent's forwarding
					// node 0 would wait as long as node 2 makes no call.
					ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
					err := h.Wait(ctx)
					cancel()
					close(wake)
					if errors.Is(err, context.DeadlineExceeded) {
						_ = h.Wait(context.Background())
						_ = im.Close()
						return fmt.Errorf("node 0 did not complete while node 2 made no call: its %v agent did not forward node 3's block", mode)
					}
					if err != nil {
						return err
					}
				}
				for q := range 4 {
					if dst[8*q] != byte(q) {
						return fmt.Errorf("block %d = %v", q, dst[8*q:8*q+8])
					}
				}
				return im.Close()
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestDoneChannel: with the goroutine agent, a program selects on a
// collective's Done channel beside a timer; the handle is then synced.
func TestDoneChannel(t *testing.T) {
	opts := coll.Options{Progress: gsync.Goroutine}
	err := colltest.Run(3, colltest.Options{MaxDelay: 200 * time.Microsecond}, opts, time.Minute, func(im *coll.Image) error {
		dst := make([]byte, 3*8)
		h, err := im.GatherAllNB(im.TeamAll(), dst, []byte{byte(im.ImageNum()), 1, 2, 3, 4, 5, 6, 7}, 8, gsync.InMySync|gsync.OutMySync|gsync.Local)
		if err != nil {
			return err
		}
		select {
		case <-h.Done():
		case <-time.After(30 * time.Second):
			return errors.New("Done never closed")
		}
		if ok, err := h.Try(); !ok || err != nil {
			return fmt.Errorf("sync after Done: %v %v", ok, err)
		}
		for q := range 3 {
			if dst[8*q] != byte(q) {
				return fmt.Errorf("block %d", q)
			}
		}
		return im.Close()
	})
	if err != nil {
		t.Fatal(err)
	}
}

// notThreadSafe is a conduit that may be called from one thread only.
type notThreadSafe struct{ *colltest.Conduit }

func (notThreadSafe) ThreadMultiple() bool { return false }

func TestProgressMisuse(t *testing.T) {
	w := colltest.NewWorld(1, colltest.Options{})
	_, err := coll.Init(notThreadSafe{w.Conduit(0)}, nil, 0, nil, 0, coll.Options{Progress: gsync.Goroutine})
	if !errors.Is(err, coll.ErrProgress) {
		t.Errorf("agent on a conduit of one thread: %v, want ErrProgress", err)
	}
	_, err = coll.Init(w.Conduit(0), nil, 0, nil, 0, coll.Options{Progress: gsync.ProgressMode(7)})
	if !errors.Is(err, coll.ErrProgress) {
		t.Errorf("unknown mode: %v, want ErrProgress", err)
	}
	im, err := coll.Init(w.Conduit(0), nil, 0, nil, 0, coll.Options{Progress: gsync.Periodic})
	if err != nil {
		t.Fatal(err)
	}
	if err := im.Close(); err != nil {
		t.Fatal(err)
	}
	if err := im.Close(); !errors.Is(err, coll.ErrClosed) {
		t.Errorf("Close twice: %v, want ErrClosed", err)
	}
	if err := im.Barrier(im.TeamAll()); !errors.Is(err, coll.ErrClosed) {
		t.Errorf("use after Close: %v, want ErrClosed", err)
	}
}
