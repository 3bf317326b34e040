package coll_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	gsync "github.com/gocoll/gocoll/sync"
)

// TestProgressSleepingNode: in a gather to node 0 over four nodes, node 2
// forwards node 3's block. Node 2 starts the gather with OUT_NOSYNC, whose
// sync succeeds at once there (node 2 has no destination), and sleeps
// without calling gocoll; node 3's block reaches it afterwards. With a
// progress agent node 2 forwards it while asleep and node 0 completes
// before node 2 wakes; with polling node 0 completes only after.
func TestProgressSleepingNode(t *testing.T) {
	const sleep = 2 * time.Second
	for _, mode := range []gsync.ProgressMode{gsync.Polling, gsync.Goroutine, gsync.Periodic} {
		t.Run(mode.String(), func(t *testing.T) {
			t.Parallel()
			var asleep atomic.Bool
			var rootDoneAsleep atomic.Int32 // 1: node 0 completed while node 2 slept, 2: after
			opts := coll.Options{Tree: coll.Binomial, Progress: mode, ProgressInterval: time.Millisecond}
			err := colltest.Run(4, colltest.Options{}, opts, time.Minute, func(im *coll.Image) error {
				me := im.ImageNum()
				f := gsync.InMySync | gsync.OutNoSync | gsync.Local
				src := []byte{byte(me), 0, 0, 0, 0, 0, 0, 0}
				var dst []byte
				switch me {
				case 0:
					dst = make([]byte, 8*4)
				case 2:
					asleep.Store(true)
				case 3:
					time.Sleep(100 * time.Millisecond) // after node 2 went to sleep
				}
				h, err := im.GatherNB(im.TeamAll(), 0, dst, src, 8, f)
				if err != nil {
					return err
				}
				if me == 2 {
					if ok, err := h.Try(); !ok || err != nil {
						return fmt.Errorf("node 2's OUT_NOSYNC sync: %v %v", ok, err)
					}
					time.Sleep(sleep) // no gocoll call
					asleep.Store(false)
					return im.Close()
				}
				if err := h.Wait(context.Background()); err != nil {
					return err
				}
				if me == 0 {
					if asleep.Load() {
						rootDoneAsleep.Store(1)
					} else {
						rootDoneAsleep.Store(2)
					}
					for q := range 4 {
						if dst[8*q] != byte(q) {
							return fmt.Errorf("block %d = %v", q, dst[8*q:8*q+8])
						}
					}
				}
				return im.Close()
			})
			if err != nil {
				t.Fatal(err)
			}
			want := int32(1)
			if mode == gsync.Polling {
				want = 2
			}
			if got := rootDoneAsleep.Load(); got != want {
				t.Errorf("node 0 completed %s node 2 woke, want %s", map[int32]string{1: "before", 2: "after"}[got], map[int32]string{1: "before", 2: "after"}[want])
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
