package colltest

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/reducefn"
	gsync "github.com/gocoll/gocoll/sync"
)

// The checks of what a node's misbehaviour does, run in process (coll's
// tests) and over MPI (coll/mpitest): an image that returns early or skips
// a call (its peers stall: coll.ErrStalled), and a reduction function that
// calls gocoll (coll.ErrReentrant) or panics (*coll.PanicError).

// StallCase is one case of Stall: TeamAll's collective #0 is Init's
// agreement; then image Gone makes call #1 and leaves (it returns early),
// or, with Skip, #1 and #3 (it skips #2: its #3 pairs with the others' #2,
// which succeeds, so their #3 finds no partner). Call is Broadcast (rooted
// at Gone: no node sends before it heard from the root, so nothing is left
// in flight) or ReduceAll (int64 sums with the function at index Fn; the
// peers' messages to each other and to Gone are left in flight).
type StallCase struct {
	Call    string
	Fn      int
	Gone    int
	Skip    bool
	Timeout time.Duration // the Options.StallTimeout the images were given
}

// Stall is an image's part of case c: the image's call after Gone's last
// one fails with ErrStalled, saying that it saw no progress for at least
// the timeout and naming the collective, its number on TeamAll and the
// images it waits for (Gone, or an image that waits for it; Gone by number
// where it is a node mate); nothing of it stays live, and Close returns.
func Stall(im *coll.Image, nd *Node, c StallCase) error {
	f := gsync.InMySync | gsync.OutMySync | gsync.Local | gsync.AllThreads
	b := make([]byte, 8)
	call := func() error {
		if c.Call == "Broadcast" {
			return im.Broadcast(im.TeamAll(), b, c.Gone, b, 8, f)
		}
		return im.ReduceAll(im.TeamAll(), b, b, coll.Cyclic, 8, im.Images(), c.Fn, 0, f)
	}
	made := 1 // calls of image Gone
	if c.Skip {
		made = 2
	}
	if im.ImageNum() == c.Gone {
		for range made {
			if err := call(); err != nil {
				return err
			}
		}
		return im.Close()
	}
	for i := 1; i <= made; i++ {
		if err := call(); err != nil {
			return fmt.Errorf("call #%d: %w", i, err)
		}
	}
	err := call()
	if !errors.Is(err, coll.ErrStalled) {
		return fmt.Errorf("got %v, want ErrStalled", err)
	}
	if err := stalledFor(err, c.Timeout); err != nil {
		return err
	}
	want := fmt.Sprintf("%s #%d on TeamAll", c.Call, made+1)
	if im.Table().Nodes() == 1 { // no messages, no sequence numbers: the node's calls are counted from 0
		want = fmt.Sprintf("%s AllThreads call #%d on TeamAll", c.Call, made)
	}
	if !strings.Contains(err.Error(), want) || !waitsFor.MatchString(err.Error()) {
		return fmt.Errorf("the error %q does not say %q and the images waited for", err, want)
	}
	mates := im.Table().NodeOf(c.Gone) == im.Node()
	if mates && !strings.Contains(err.Error(), fmt.Sprintf("images %d of the node have not called it", c.Gone)) {
		return fmt.Errorf("the error %q does not name the node's image %d", err, c.Gone)
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

// stalledFor checks that a stall error says how long its wait saw no
// progress, and that this was at least the stall timeout: the watchdog
// gave up on its own clock, not on the test's, which a loaded machine
// would make late.
func stalledFor(err error, timeout time.Duration) error {
	ms := noProgressFor.FindAllStringSubmatch(err.Error(), -1)
	if len(ms) == 0 {
		return fmt.Errorf("the error %q does not say how long it saw no progress", err)
	}
	for _, m := range ms {
		if d, perr := time.ParseDuration(m[1]); perr != nil || d < timeout {
			return fmt.Errorf("the error %q: no progress for %s, the stall timeout is %v", err, m[1], timeout)
		}
	}
	return nil
}

// noProgressFor is how a stall error says how long it saw no progress.
var noProgressFor = regexp.MustCompile(`no progress for ([0-9.]+[a-zµ]+)`)

// waitsFor is how a stalled wait's error names the images it waits for:
// peers its transfers wait on, or the node's images yet to call.
var waitsFor = regexp.MustCompile(`(waiting for images \[[0-9 ]+\] \(nodes|images [0-9 ]+ of the node have not called it)`)

// Hook is a node's misbehaving reduction function, shared by the node's
// images (a node keeps the function table its first image gave Init):
// entry 0 of Table sums int64s, after calling gocoll (NewReentryHook) or
// panicking (NewPanicHook) while armed.
type Hook struct {
	flags  reducefn.Flags
	panics bool
	do     func(h *Hook)
	armed  atomic.Bool
	saw    atomic.Value               // string: what the call from the function returned
	me     atomic.Pointer[coll.Image] // an image of the node, to call through
	inner  atomic.Value               // gsync.Handle: a live handle of the node
}

// ReentryCalls are the gocoll calls a Reentry hook may make: progress,
// a blocking collective, a wait on a live handle, and the reduction
// itself.
var ReentryCalls = map[string]func(im *coll.Image, h gsync.Handle) error{
	"Poll":    func(im *coll.Image, _ gsync.Handle) error { return im.Poll() },
	"Barrier": func(im *coll.Image, _ gsync.Handle) error { return im.Barrier(im.TeamAll()) },
	"Wait":    func(_ *coll.Image, h gsync.Handle) error { return h.Wait(context.Background()) },
	"ReduceAll": func(im *coll.Image, _ gsync.Handle) error {
		b := make([]byte, 8)
		return im.ReduceAll(im.TeamAll(), b, b, coll.Cyclic, 8, im.Images(), 0, 0, gsync.InMySync|gsync.OutMySync|gsync.Local|gsync.AllThreads)
	},
}

// NewReentryHook is a hook that makes the call ReentryCalls[call] (flags:
// the function's, AMSafe to run it on the progress agent).
func NewReentryHook(call string, flags reducefn.Flags) *Hook {
	do := ReentryCalls[call]
	return &Hook{flags: flags, do: func(h *Hook) {
		inner, _ := h.inner.Load().(gsync.Handle)
		h.saw.Store(fmt.Sprint(do(h.me.Load(), inner)))
	}}
}

// NewPanicHook is a hook that panics with "boom on node <node>".
func NewPanicHook(node int) *Hook {
	return &Hook{panics: true, do: func(*Hook) { panic(fmt.Sprintf("boom on node %d", node)) }}
}

// Table is the node's function table.
func (h *Hook) Table() []reducefn.Entry {
	sum := reducefn.Sum[int64]()
	return []reducefn.Entry{{Fn: func(results, left, right []byte, es int, f reducefn.Flags, arg int) {
		if h.armed.Load() {
			h.do(h)
		}
		sum.Fn(results, left, right, es, f, arg)
	}, Flags: sum.Flags | h.flags, Scalar: sum.Scalar}}
}

// Arm arms the hook (or disarms it): its function misbehaves while armed.
func (h *Hook) Arm(on bool) { h.armed.Store(on) }

// armedCall runs call with the node's hook armed: the node's images all
// arm it before any calls (a rendezvous), and disarm it once all returned.
func (h *Hook) armedCall(nd *Node, group string, call func() error) error {
	nd.Rendezvous(group+" arm", nd.Images())
	h.Arm(true)
	err := call()
	nd.Rendezvous(group+" disarm", nd.Images())
	h.Arm(false)
	nd.Rendezvous(group+" disarmed", nd.Images())
	return err
}

// Misbehaving runs ReduceAll (int64 sums, perImage elements per image:
// with 2 every node's first fold is local, before any transfer) with the
// node's hook armed, blocking and non-blocking, and checks what the image
// gets: ErrReentrant, with the call from the function refused, for a
// reentry hook; a panic of *coll.PanicError holding the function's, for
// a panic hook. Either way nothing of the collective stays live and the
// next collective works. Every image of the job runs it, each node with
// its own hook of the same kind.
func Misbehaving(im *coll.Image, nd *Node, h *Hook, perImage int) error {
	h.me.CompareAndSwap(nil, im)
	f := gsync.InMySync | gsync.OutMySync | gsync.Local | gsync.AllThreads
	count := perImage * im.Images()
	src, dst := make([]byte, 8*perImage), make([]byte, 8)
	first := im.ImageNum() == im.Table().First(im.Node())
	for _, nb := range []bool{false, true} {
		other := make([]byte, 8)
		inner, err := im.BroadcastNB(im.TeamAll(), other, 0, other, 8, f)
		if err != nil {
			return err
		}
		if first {
			h.inner.Store(inner)
			h.saw.Store("")
		}
		var raised any
		err = h.armedCall(nd, fmt.Sprint(nb), func() error {
			defer func() { raised = recover() }()
			if !nb {
				return im.ReduceAll(im.TeamAll(), dst, src, coll.Cyclic, 8, count, 0, 0, f)
			}
			hd, err := im.ReduceAllNB(im.TeamAll(), dst, src, coll.Cyclic, 8, count, 0, 0, f)
			if err == nil {
				err = hd.Wait(context.Background())
			}
			return err
		})
		switch pe, ok := raised.(*coll.PanicError); {
		case h.panics && !ok:
			return fmt.Errorf("nb=%v: the call ended with %v (error %v), want a *coll.PanicError panic", nb, raised, err)
		case h.panics && !strings.HasPrefix(fmt.Sprint(pe.Value), "boom on node"):
			return fmt.Errorf("nb=%v: the panic's value is %v", nb, pe.Value)
		case h.panics:
		case raised != nil:
			return fmt.Errorf("nb=%v: the call panicked with %v", nb, raised)
		case !errors.Is(err, coll.ErrReentrant):
			return fmt.Errorf("nb=%v: the collective returned %v, want ErrReentrant", nb, err)
		case h.saw.Load() != fmt.Sprint(coll.ErrReentrant):
			return fmt.Errorf("nb=%v: the call from the function returned %q", nb, h.saw.Load())
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
}
