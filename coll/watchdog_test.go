package coll_test

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	"github.com/gocoll/gocoll/images"
	"github.com/gocoll/gocoll/reducefn"
	gsync "github.com/gocoll/gocoll/sync"
)

const testStall = 300 * time.Millisecond

// TestStallNamesPeers: one image returns early (makes no more calls) or
// skips a call (its next call pairs with the others' skipped one, so
// their last call finds no partner): the others' last call fails with
// ErrStalled within the stall timeout, naming the collective, its
// sequence number on the team and the images it waits for; nothing of the
// stalled collective stays live, and Close returns. Broadcast rooted at
// the missing image (the peers wait for it, or for an image that waits
// for it) and ReduceAll (they wait for each other); one image per node
// (the wait is on a peer node) and several (the missing image's node
// mates wait for it before the node starts the collective).
func TestStallNamesPeers(t *testing.T) {
	type collective struct {
		name string
		call func(im *coll.Image, gone int, b []byte) error
	}
	f := gsync.InMySync | gsync.OutMySync | gsync.Local | gsync.AllThreads
	colls := []collective{
		{"Broadcast", func(im *coll.Image, gone int, b []byte) error {
			return im.Broadcast(im.TeamAll(), b, gone, b, 8, f)
		}},
		{"ReduceAll", func(im *coll.Image, _ int, b []byte) error {
			return im.ReduceAll(im.TeamAll(), b, b, coll.Cyclic, 8, im.Images(), fnSumI64, 0, f)
		}},
	}
	for _, per := range [][]int{{1, 1, 1}, {1, 1, 1, 1}, {2, 2}} {
		for _, c := range colls {
			for _, skip := range []bool{false, true} {
				what := map[bool]string{false: "returns early", true: "skips a call"}[skip]
				t.Run(fmt.Sprint(per, c.name, what), func(t *testing.T) {
					t.Parallel()
					tbl, _ := images.New(per)
					gone := tbl.Images() - 1 // the last node's last image
					err := colltest.RunImages(per, colltest.Options{MaxDelay: 20 * time.Microsecond}, coll.Options{StallTimeout: testStall}, table, time.Minute,
						func(im *coll.Image, nd *colltest.Node) error {
							return stallCase(im, nd, gone, skip, func(b []byte) error { return c.call(im, gone, b) }, c.name)
						})
					if err != nil {
						t.Fatal(err)
					}
				})
			}
		}
	}
}

// stallCase is one image's part of a TestStallNamesPeers case: TeamAll's
// collective #0 is Init's agreement, then image gone makes call #1 and
// leaves (it returns early), or #1 and #3 (it skips #2: its #3 pairs with
// the others' #2, which succeeds, and their #3 finds no partner); the
// others' next call stalls.
func stallCase(im *coll.Image, nd *colltest.Node, gone int, skip bool, call func([]byte) error, name string) error {
	b := make([]byte, 8)
	made := 1 // calls of image gone
	if skip {
		made = 2
	}
	if im.ImageNum() == gone {
		for range made {
			if err := call(b); err != nil {
				return err
			}
		}
		return im.Close()
	}
	for i := 1; i <= made; i++ {
		if err := call(b); err != nil {
			return fmt.Errorf("call #%d: %w", i, err)
		}
	}
	t0 := time.Now()
	err := call(b)
	if !errors.Is(err, coll.ErrStalled) {
		return fmt.Errorf("got %v, want ErrStalled", err)
	}
	if d := time.Since(t0); d < testStall || d > 10*time.Second {
		return fmt.Errorf("stalled after %v, timeout %v", d, testStall)
	}
	// It names the collective, its number, and images it waits for: the
	// missing one, or (a tree's descendants of it) one that waits for it.
	waits := regexp.MustCompile(`(waiting for images \[[0-9 ]+\] \(nodes|images [0-9 ]+ of the node have not called it)`)
	if want := fmt.Sprintf("%s #%d on TeamAll", name, made+1); !strings.Contains(err.Error(), want) || !waits.MatchString(err.Error()) {
		return fmt.Errorf("the error %q does not say %q and the images waited for", err, want)
	}
	mates := im.Table().NodeOf(gone) == im.Node()
	if mates && !strings.Contains(err.Error(), fmt.Sprintf("images %d of the node have not called it", gone)) {
		return fmt.Errorf("the error %q does not name the node's image %d", err, gone)
	}
	active := nd.Images() // the node's images that synced
	if mates {
		active--
	}
	nd.Rendezvous("stalled", active)
	if n := im.Live(); n != 0 {
		return fmt.Errorf("%d operations left live", n)
	}
	return im.Close()
}

// TestFailureSeenByPeers documents what peers see when a reduction
// function panics on one node: the peers that needed that node's later
// messages stall (ErrStalled naming it), the others finish with the
// right result. Recursive doubling on 4 nodes: node 0 panics after its
// first exchange (with node 1); node 2 needed it next.
func TestFailureSeenByPeers(t *testing.T) {
	const P = 4
	var results [P]error
	runUser(t, []int{1, 1, 1, 1}, coll.Options{StallTimeout: testStall}, func(node int) ([]reducefn.Entry, *atomic.Bool) {
		var boom atomic.Bool
		return userTable(0, func() {
			if boom.Load() && node == 0 {
				panic("boom")
			}
		}), &boom
	}, func(im *coll.Image, _ *colltest.Node, boom *atomic.Bool) error {
		b, sum := make([]byte, 8), make([]byte, 8)
		b[0] = 1
		boom.Store(true)
		func() {
			defer func() {
				if r := recover(); r != nil {
					results[im.ImageNum()] = fmt.Errorf("panic: %v", r)
				}
			}()
			results[im.ImageNum()] = im.ReduceAll(im.TeamAll(), sum, b, coll.Cyclic, 8, P, 0, 0, gsync.InMySync|gsync.OutMySync|gsync.Local)
			if results[im.ImageNum()] == nil && sum[0] != P {
				results[im.ImageNum()] = fmt.Errorf("wrong sum %d", sum[0])
			}
		}()
		return im.Close()
	})
	if !strings.Contains(fmt.Sprint(results[0]), "boom") {
		t.Errorf("node 0: %v, want its panic", results[0])
	}
	if !errors.Is(results[2], coll.ErrStalled) || !strings.Contains(results[2].Error(), "images [0]") {
		t.Errorf("node 2: %v, want ErrStalled waiting for image 0", results[2])
	}
	for _, i := range []int{1, 3} {
		if results[i] != nil {
			t.Errorf("node %d: %v, want the right sum", i, results[i])
		}
	}
}
