package coll_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	"github.com/gocoll/gocoll/reducefn"
	gsync "github.com/gocoll/gocoll/sync"
)

// userStall bounds the waits of the tests of misbehaving functions: a
// test that breaks fails with ErrStalled instead of hanging.
const userStall = 5 * time.Second

// runHooks runs fn on every image of the table perNode, each node with
// its own hook from mk.
func runHooks(t *testing.T, perNode []int, opts coll.Options, mk func(node int) *colltest.Hook, fn func(im *coll.Image, nd *colltest.Node, h *colltest.Hook) error) {
	t.Helper()
	if opts.StallTimeout == 0 {
		opts.StallTimeout = userStall
	}
	hooks := make([]*colltest.Hook, len(perNode))
	w := colltest.NewWorld(len(perNode), colltest.Options{MaxDelay: 20 * time.Microsecond})
	err := w.RunNodes(perNode, opts, func(n int) []reducefn.Entry {
		hooks[n] = mk(n)
		return hooks[n].Table()
	}, time.Minute, func(im *coll.Image, nd *colltest.Node) error {
		return fn(im, nd, hooks[im.Node()])
	})
	if err != nil {
		t.Fatal(err)
	}
}

// misbehaving are the tables of the re-entry and panic tests: teams across
// nodes (the engine) and on one node (no transfer), one image per node and
// several; perImg 2 folds locally in the first round, 1 combines later.
var misbehaving = map[string]struct {
	per    []int
	perImg int
}{
	"3 nodes":            {[]int{1, 1, 1}, 2},
	"2 nodes x 2 images": {[]int{2, 2}, 2},
	"1 node x 3 images":  {[]int{3}, 1},
}

// TestReentryFails: a reduction function that calls gocoll gets
// ErrReentrant from that call, the collective fails with ErrReentrant on
// that node, nothing of it stays live, and the next collective works
// (colltest.Misbehaving); blocking and non-blocking, and with the progress
// agent running the function. Every node's function re-enters (its peers'
// view of one node failing is TestFailureSeenByPeers).
func TestReentryFails(t *testing.T) {
	type setup struct {
		per    []int
		opts   coll.Options
		fl     reducefn.Flags
		perImg int
	}
	setups := map[string]setup{"agent": {per: []int{1, 1}, opts: coll.Options{Progress: gsync.Goroutine}, fl: reducefn.AMSafe, perImg: 1}}
	for name, s := range misbehaving {
		setups[name] = setup{per: s.per, perImg: s.perImg}
	}
	for sname, s := range setups {
		for call := range colltest.ReentryCalls {
			t.Run(sname+"/"+call, func(t *testing.T) {
				t.Parallel()
				runHooks(t, s.per, s.opts, func(int) *colltest.Hook { return colltest.NewReentryHook(call, s.fl) },
					func(im *coll.Image, nd *colltest.Node, h *colltest.Hook) error {
						return colltest.Misbehaving(im, nd, h, s.perImg)
					})
			})
		}
	}
}

// TestPanicReachesCaller: a reduction function's panic is raised again, as
// a *coll.PanicError holding its value, on the goroutine of the image that
// made the call (blocking) or syncs its handle; the collective failed and
// nothing of it stays live; the next collective works.
func TestPanicReachesCaller(t *testing.T) {
	for name, s := range misbehaving {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			runHooks(t, s.per, coll.Options{}, colltest.NewPanicHook, func(im *coll.Image, nd *colltest.Node, h *colltest.Hook) error {
				return colltest.Misbehaving(im, nd, h, s.perImg)
			})
		})
	}
}

// TestFailureSeenByPeers documents what peers see when a reduction
// function panics on one node: the peers that needed that node's later
// messages stall (ErrStalled naming it), the others finish with the
// right result. Recursive doubling on 4 nodes: node 0 panics after its
// first exchange (with node 1); node 2 needed it next.
func TestFailureSeenByPeers(t *testing.T) {
	const P = 4
	var results [P]error
	runHooks(t, []int{1, 1, 1, 1}, coll.Options{StallTimeout: testStall}, colltest.NewPanicHook, func(im *coll.Image, _ *colltest.Node, h *colltest.Hook) error {
		b, sum := make([]byte, 8), make([]byte, 8)
		b[0] = 1
		h.Arm(im.Node() == 0)
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
