package coll_test

import (
	"context"
	"errors"
	"fmt"
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

// userTable is a function table whose entry 0 sums int64s after calling
// hook, as a user's reduction function that misbehaves. A node's images
// share their node's table (Init keeps the first one it is given), so a
// hook is per node.
func userTable(flags reducefn.Flags, hook func()) []reducefn.Entry {
	return []reducefn.Entry{{Fn: func(results, left, right []byte, es int, f reducefn.Flags, arg int) {
		hook()
		sumI64(results, left, right, es, f, arg)
	}, Flags: flags, Scalar: 8}}
}

// userStall bounds the waits of the tests of misbehaving functions: a
// test that breaks fails with ErrStalled instead of hanging.
const userStall = 5 * time.Second

// runUser runs fn on every image of the table perNode; mk makes each
// node's function table and hook, which the node's images share.
func runUser[H any](t *testing.T, perNode []int, opts coll.Options, mk func(node int) ([]reducefn.Entry, H), fn func(im *coll.Image, nd *colltest.Node, hook H) error) {
	t.Helper()
	if opts.StallTimeout == 0 {
		opts.StallTimeout = userStall
	}
	table, err := images.New(perNode)
	if err != nil {
		t.Fatal(err)
	}
	w := colltest.NewWorld(len(perNode), colltest.Options{MaxDelay: 20 * time.Microsecond})
	errs := make(chan error, table.Images())
	for n, k := range perNode {
		nd := colltest.NewNode(k)
		fns, hook := mk(n)
		for img := table.First(n); img < table.First(n)+k; img++ {
			go func() {
				im, err := coll.Init(w.Conduit(n), table, img, fns, 0, opts)
				if err == nil {
					err = fn(im, nd, hook)
				}
				if err != nil {
					err = fmt.Errorf("image %d: %w", img, err)
				}
				errs <- err
			}()
		}
	}
	timeout := time.After(time.Minute)
	for range table.Images() {
		select {
		case err := <-errs:
			if err != nil {
				t.Error(err)
			}
		case <-timeout:
			t.Fatal("hang")
		}
	}
	w.Quiesce()
}

// armed runs call with the node's hook armed: the node's images all arm
// it before any calls (a rendezvous), and disarm it once all returned.
func armed(nd *colltest.Node, group string, arm *atomic.Bool, call func() error) error {
	nd.Rendezvous(group+" arm", nd.Images())
	arm.Store(true)
	err := call()
	nd.Rendezvous(group+" disarm", nd.Images())
	arm.Store(false)
	nd.Rendezvous(group+" disarmed", nd.Images())
	return err
}

// reentryHook is what a node's misbehaving reduction function reads:
// when armed it calls gocoll through an image of the node (me), saw
// records what that call returned, inner is a live handle it may wait on.
type reentryHook struct {
	armed atomic.Bool
	saw   atomic.Value
	me    atomic.Pointer[coll.Image]
	inner atomic.Value // gsync.Handle
}

// TestReentryFails: a reduction function that calls gocoll gets
// ErrReentrant from that call, the collective fails with ErrReentrant on
// that node, nothing of it stays live, and the next collective works. On
// teams across nodes (the engine) and on one node (no transfer), with one
// image per node and several, blocking and non-blocking, and with the
// progress agent running the function. Every node's function re-enters
// (its peers' view of one node failing is TestFailureSeenByPeers).
func TestReentryFails(t *testing.T) {
	calls := map[string]func(im *coll.Image, h gsync.Handle) error{
		"Poll":    func(im *coll.Image, _ gsync.Handle) error { return im.Poll() },
		"Barrier": func(im *coll.Image, _ gsync.Handle) error { return im.Barrier(im.TeamAll()) },
		"Wait":    func(_ *coll.Image, h gsync.Handle) error { return h.Wait(context.Background()) },
		"ReduceAll": func(im *coll.Image, _ gsync.Handle) error {
			b := make([]byte, 8)
			return im.ReduceAll(im.TeamAll(), b, b, coll.Cyclic, 8, im.Images(), 0, 0, gsync.InMySync|gsync.OutMySync|gsync.Local|gsync.AllThreads)
		},
	}
	type setup struct {
		per    []int
		opts   coll.Options
		fl     reducefn.Flags
		perImg int // elements per image: 2 folds locally in the first round, 1 combines later
	}
	setups := map[string]setup{
		"3 nodes":            {per: []int{1, 1, 1}, perImg: 2},
		"2 nodes x 2 images": {per: []int{2, 2}, perImg: 2},
		"1 node x 3 images":  {per: []int{3}, perImg: 1},
		"agent":              {per: []int{1, 1}, opts: coll.Options{Progress: gsync.Goroutine}, fl: reducefn.AMSafe, perImg: 1},
	}
	for sname, s := range setups {
		for cname, call := range calls {
			t.Run(sname+"/"+cname, func(t *testing.T) {
				t.Parallel()
				runUser(t, s.per, s.opts, func(int) ([]reducefn.Entry, *reentryHook) {
					hk := &reentryHook{}
					return userTable(s.fl, func() {
						if hk.armed.Load() {
							hk.saw.Store(fmt.Sprint(call(hk.me.Load(), hk.inner.Load().(gsync.Handle))))
						}
					}), hk
				}, func(im *coll.Image, nd *colltest.Node, hk *reentryHook) error {
					hk.me.CompareAndSwap(nil, im)
					f := gsync.InMySync | gsync.OutMySync | gsync.Local | gsync.AllThreads
					count := s.perImg * im.Images()
					src, dst := make([]byte, 8*s.perImg), make([]byte, 8)
					for _, nb := range []bool{false, true} {
						other := make([]byte, 8)
						inner, err := im.BroadcastNB(im.TeamAll(), other, 0, other, 8, f)
						if err != nil {
							return err
						}
						if im.ImageNum() == im.Table().First(im.Node()) {
							hk.inner.Store(inner)
							hk.saw.Store("")
						}
						err = armed(nd, fmt.Sprint(nb), &hk.armed, func() error {
							if !nb {
								return im.ReduceAll(im.TeamAll(), dst, src, coll.Cyclic, 8, count, 0, 0, f)
							}
							h, err := im.ReduceAllNB(im.TeamAll(), dst, src, coll.Cyclic, 8, count, 0, 0, f)
							if err == nil {
								err = h.Wait(context.Background())
							}
							return err
						})
						if !errors.Is(err, coll.ErrReentrant) {
							return fmt.Errorf("nb=%v: the collective returned %v, want ErrReentrant", nb, err)
						}
						if s := hk.saw.Load().(string); s != fmt.Sprint(coll.ErrReentrant) {
							return fmt.Errorf("nb=%v: the call from the function returned %q", nb, s)
						}
						if err := inner.Wait(context.Background()); err != nil {
							return err
						}
						// The next collective works, and nothing is left.
						if err := im.ReduceAll(im.TeamAll(), dst, src, coll.Cyclic, 8, count, 0, 0, f); err != nil {
							return fmt.Errorf("nb=%v: the collective after: %w", nb, err)
						}
						if err := im.Barrier(im.TeamAll()); err != nil {
							return err
						}
						nd.Rendezvous("synced", nd.Images()) // the node's images all synced
						if n := im.Live(); n != 0 {
							return fmt.Errorf("nb=%v: %d operations left live", nb, n)
						}
					}
					return im.Close()
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
	for name, per := range map[string][]int{"3 nodes": {1, 1, 1}, "2 nodes x 2 images": {2, 2}, "1 node x 3 images": {3}} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			runUser(t, per, coll.Options{}, func(node int) ([]reducefn.Entry, *atomic.Bool) {
				var boom atomic.Bool
				return userTable(0, func() {
					if boom.Load() {
						panic(fmt.Sprintf("boom on node %d", node))
					}
				}), &boom
			}, func(im *coll.Image, nd *colltest.Node, boom *atomic.Bool) error {
				f := gsync.InMySync | gsync.OutMySync | gsync.Local | gsync.AllThreads
				count := 2 * im.Images()
				if len(per) == 1 {
					count = im.Images()
				}
				src, dst := make([]byte, 8*count/im.Images()), make([]byte, 8)
				for _, nb := range []bool{false, true} {
					var r any
					_ = armed(nd, fmt.Sprint(nb), boom, func() error {
						defer func() { r = recover() }()
						if nb {
							h, err := im.ReduceAllNB(im.TeamAll(), dst, src, coll.Cyclic, 8, count, 0, 0, f)
							if err == nil {
								err = h.Wait(context.Background())
							}
							r = err
							return nil
						}
						r = im.ReduceAll(im.TeamAll(), dst, src, coll.Cyclic, 8, count, 0, 0, f)
						return nil
					})
					pe, ok := r.(*coll.PanicError)
					if !ok {
						return fmt.Errorf("nb=%v: the call ended with %v, want a *coll.PanicError panic", nb, r)
					}
					if s, _ := pe.Value.(string); !strings.HasPrefix(s, "boom on node") {
						return fmt.Errorf("nb=%v: the panic's value is %v", nb, pe.Value)
					}
					if err := im.ReduceAll(im.TeamAll(), dst, src, coll.Cyclic, 8, count, 0, 0, f); err != nil {
						return fmt.Errorf("nb=%v: the collective after: %w", nb, err)
					}
					if err := im.Barrier(im.TeamAll()); err != nil {
						return err
					}
					nd.Rendezvous("synced", nd.Images())
					if n := im.Live(); n != 0 {
						return fmt.Errorf("nb=%v: %d operations left live", nb, n)
					}
				}
				return im.Close()
			})
		})
	}
}
