package coll_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	"github.com/gocoll/gocoll/images"
	gsync "github.com/gocoll/gocoll/sync"
)

const testStall = 300 * time.Millisecond

// TestStallNamesPeers: one image returns early or skips a call; the
// others' next call fails with ErrStalled after no progress for the stall
// timeout, naming the collective, its number and the images it waits for
// (colltest.Stall). Broadcast rooted at the missing image and ReduceAll;
// one image per node (the wait is on a peer node) and several (the
// missing image's node mates wait for it before their node starts).
func TestStallNamesPeers(t *testing.T) {
	for _, per := range [][]int{{1, 1, 1}, {1, 1, 1, 1}, {2, 2}, {3}} {
		for _, call := range []string{"Broadcast", "ReduceAll"} {
			for _, skip := range []bool{false, true} {
				t.Run(fmt.Sprintf("%v/%s/skip=%v", per, call, skip), func(t *testing.T) {
					t.Parallel()
					tbl, _ := images.New(per)
					c := colltest.StallCase{Call: call, Fn: fnSumI64, Gone: tbl.Images() - 1, Skip: skip, Timeout: testStall}
					err := colltest.RunImages(per, colltest.Options{MaxDelay: 20 * time.Microsecond}, coll.Options{StallTimeout: testStall}, table, time.Minute,
						func(im *coll.Image, nd *colltest.Node) error { return colltest.Stall(im, nd, c) })
					if err != nil {
						t.Fatal(err)
					}
				})
			}
		}
	}
}

// TestImageGone: the last image makes three barriers and is gone; the
// others learn it (ImageGone, with its Started counts) as soon as it is,
// while the conduit's delays may keep them in the barriers still, which
// complete all the same. Then they wait in a Barrier
// and a ReduceAll that it never made, each while a goroutine of theirs says
// again that it is gone, as a caller that keeps learning of a stop does;
// each wait fails with an error that wraps ErrImageGone and the cause, long
// before the stall timeout (which would give ErrStalled instead); a third
// collective fails at its call. A bad image number is ErrImage.
func TestImageGone(t *testing.T) {
	cause := errors.New("the image stopped")
	for _, per := range [][]int{{1, 1}, {1, 1, 1}, {1, 1, 1, 1}} {
		t.Run(fmt.Sprint(per), func(t *testing.T) {
			gone := len(per) - 1
			var started coll.Started
			known := make(chan struct{})
			err := colltest.RunImages(per, colltest.Options{MaxDelay: time.Millisecond}, coll.Options{StallTimeout: 2 * time.Minute}, table, time.Minute,
				func(im *coll.Image, nd *colltest.Node) error {
					barriers := func() error {
						for range 3 {
							if err := im.Barrier(im.TeamAll()); err != nil {
								return err
							}
						}
						return nil
					}
					if im.ImageNum() == gone {
						err := barriers()
						started = im.Started()
						close(known)
						return err
					}
					if _, err := im.ImageGone(len(per), nil, cause); !errors.Is(err, coll.ErrImage) {
						return fmt.Errorf("ImageGone of image %d: %v, want ErrImage", len(per), err)
					}
					learnt := make(chan error, 1)
					go func() {
						<-known
						_, err := im.ImageGone(gone, started, cause)
						learnt <- err
					}()
					if err := barriers(); err != nil {
						return fmt.Errorf("the barriers the gone image made: %w", err)
					}
					if err := <-learnt; err != nil {
						return err
					}
					reduce := func() error {
						b := make([]byte, 8)
						return im.ReduceAll(im.TeamAll(), b, b, coll.Cyclic, 8, len(per), fnSumI64, 0, gsync.InAllSync|gsync.OutAllSync|gsync.Local)
					}
					for _, call := range []func() error{func() error { return im.Barrier(im.TeamAll()) }, reduce, reduce} {
						done := make(chan struct{})
						go func() {
							for {
								select {
								case <-done:
									return
								case <-time.After(5 * time.Millisecond):
									_, _ = im.ImageGone(gone, started, cause)
								}
							}
						}()
						err := call()
						close(done)
						if !errors.Is(err, coll.ErrImageGone) || !errors.Is(err, cause) {
							return fmt.Errorf("image %d: %v, want ErrImageGone and the cause", im.ImageNum(), err)
						}
					}
					return nil
				})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}
