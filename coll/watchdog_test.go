package coll_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	"github.com/gocoll/gocoll/images"
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
