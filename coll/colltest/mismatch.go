package colltest

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/reducefn"
	gsync "github.com/gocoll/gocoll/sync"
)

// The disagreement matrix: collectives whose arguments differ across
// images (issue 11), one argument at a time: kind, root, size, element
// size, element count, sync flags, addressing, function and layout. In
// every case the images of the last node call differently from the others. Each image
// checks what it got against what its own call promises (as if every
// image had called like it): with checked mode every image must get
// coll.ErrMismatch; without it, no image may succeed with wrong data.

// MismatchFns is the function table the matrix needs (its fn arguments
// index it): 0 sums int64, 1 xors int64.
var MismatchFns = []reducefn.Entry{reducefn.Sum[int64](), reducefn.BitXor[int64]()}

// Mismatch is one case of the matrix.
type Mismatch struct {
	Name string // the argument that differs, and how
	// call starts this image's collective (deviant: it is the image that
	// calls differently) and returns its handle, and a check of its
	// destination once synced.
	call func(im *coll.Image, deviant bool, extra gsync.Flags) (gsync.Handle, func() error, error)
}

// Outcome is what one image saw in a case.
type Outcome struct {
	Err   error // the initiation's or the wait's error (nil: success)
	Hung  bool  // no result within the wait: Err is the context's
	Wrong error // success with wrong data: what was wrong
}

func (o Outcome) String() string {
	switch {
	case o.Hung:
		return "hung (bounded by the test)"
	case o.Wrong != nil:
		return "success with WRONG DATA: " + o.Wrong.Error()
	case o.Err != nil:
		return "error: " + o.Err.Error()
	}
	return "success, right data"
}

// RunMismatch runs case c on this image, with flags extra added to every
// call's (AllThreads where nodes host several images); the images of the
// last node are the deviant ones. It waits up to wait for the result; an
// initiation that does not return within it counts as hung too (its
// goroutine is left behind).
func RunMismatch(im *coll.Image, c Mismatch, wait time.Duration, extra gsync.Flags) Outcome {
	done := make(chan Outcome, 1)
	go func() { done <- runMismatch(im, c, wait, extra) }()
	select {
	case o := <-done:
		return o
	case <-time.After(wait + time.Second):
		return Outcome{Err: errors.New("the initiation did not return"), Hung: true}
	}
}

func runMismatch(im *coll.Image, c Mismatch, wait time.Duration, extra gsync.Flags) Outcome {
	h, check, err := c.call(im, im.Node() == im.Table().Nodes()-1, extra)
	if err != nil {
		return Outcome{Err: err}
	}
	if h.Valid() {
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		if err := h.Wait(ctx); err != nil {
			return Outcome{Err: err, Hung: errors.Is(err, context.DeadlineExceeded)}
		}
	}
	return Outcome{Wrong: check()}
}

// CheckMismatch is the verdict of one image on case c: in checked mode
// only ErrMismatch passes, otherwise anything but success with wrong data.
func CheckMismatch(o Outcome, checked bool) error {
	switch {
	case checked && !errors.Is(o.Err, coll.ErrMismatch):
		return fmt.Errorf("checked mode: want ErrMismatch, got %v", o)
	case o.Wrong != nil:
		return errors.New(o.String())
	}
	return nil
}

const (
	mmMy   = gsync.InMySync | gsync.OutMySync | gsync.Local
	mmFill = 0xee // destinations before the call
)

// mmByte is byte i of image img's source.
func mmByte(img, i int) byte { return byte(img*31 + i*7 + 1) }

func mmSrc(img, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = mmByte(img, i)
	}
	return b
}

func mmDst(n int) []byte { return bytes.Repeat([]byte{mmFill}, n) }

// want compares got with the bytes want says.
func want(what string, got []byte, want func(i int) byte) error {
	for i, g := range got {
		if w := want(i); g != w {
			return fmt.Errorf("%s: byte %d is %#x, want %#x", what, i, g, w)
		}
	}
	return nil
}

// mvArgs are a data-movement call's arguments.
type mvArgs struct {
	kind    string // "bcast", "gather", "scatter"
	root, n int
	f       gsync.Flags
}

func (a mvArgs) start(im *coll.Image, extra gsync.Flags) (gsync.Handle, func() error, error) {
	t, me, P := im.TeamAll(), im.ImageNum(), im.Images()
	a.f |= extra
	switch a.kind {
	case "gather":
		src, dst := mmSrc(me, a.n), mmDst(a.n*P)
		h, err := im.GatherNB(t, a.root, dst, src, a.n, a.f)
		return h, func() error {
			if me != a.root {
				return want("gather dst off the root", dst, func(int) byte { return mmFill })
			}
			return want("gather dst", dst, func(i int) byte { return mmByte(i/a.n, i%a.n) })
		}, err
	case "scatter":
		src, dst := mmSrc(me, a.n*P), mmDst(a.n)
		h, err := im.ScatterNB(t, dst, a.root, src, a.n, a.f)
		return h, func() error {
			return want("scatter dst", dst, func(i int) byte { return mmByte(a.root, me*a.n+i) })
		}, err
	}
	src, dst := mmSrc(me, a.n), mmDst(a.n)
	h, err := im.BroadcastNB(t, dst, a.root, src, a.n, a.f)
	return h, func() error {
		return want("broadcast dst", dst, func(i int) byte { return mmByte(a.root, i) })
	}, err
}

// redArgs are a ReduceAll's arguments; every int64 of image p's source is
// p+1, so the result depends on the function, the element size and the
// count per image, not on the layout.
type redArgs struct {
	es, count, fn int
	layout        coll.Layout
}

func (a redArgs) start(im *coll.Image, extra gsync.Flags) (gsync.Handle, func() error, error) {
	t, me, P := im.TeamAll(), im.ImageNum(), im.Images()
	k := a.count / P // elements per image (the cases keep count a multiple of P)
	src := make([]byte, k*a.es)
	for i := 0; i < len(src); i += 8 {
		binary.LittleEndian.PutUint64(src[i:], uint64(me+1))
	}
	dst := mmDst(a.es)
	h, err := im.ReduceAllNB(t, dst, src, a.layout, a.es, a.count, a.fn, 0, mmMy|extra)
	return h, func() error {
		var w uint64
		for p := range P {
			for range k {
				if a.fn == 0 {
					w += uint64(p + 1)
				} else {
					w ^= uint64(p + 1)
				}
			}
		}
		var lane [8]byte
		binary.LittleEndian.PutUint64(lane[:], w)
		return want("reduce_all dst", dst, func(i int) byte { return lane[i%8] })
	}, err
}

// mvCase: everyone calls base, the deviant image dev.
func mvCase(name string, base, dev mvArgs) Mismatch {
	return Mismatch{name, func(im *coll.Image, deviant bool, extra gsync.Flags) (gsync.Handle, func() error, error) {
		if deviant {
			return dev.start(im, extra)
		}
		return base.start(im, extra)
	}}
}

// redCase: count and layouts are functions of P.
func redCase(name string, base, dev func(P int) redArgs) Mismatch {
	return Mismatch{name, func(im *coll.Image, deviant bool, extra gsync.Flags) (gsync.Handle, func() error, error) {
		if deviant {
			return dev(im.Images()).start(im, extra)
		}
		return base(im.Images()).start(im, extra)
	}}
}

// Mismatches is the matrix (for teams of at least 2 images).
func Mismatches() []Mismatch {
	b8 := mvArgs{"bcast", 0, 8, mmMy}
	with := func(a mvArgs, f func(*mvArgs)) mvArgs { f(&a); return a }
	sum := func(P int) redArgs { return redArgs{8, 2 * P, 0, coll.Cyclic} }
	return []Mismatch{
		mvCase("kind: Broadcast vs Gather", b8, with(b8, func(a *mvArgs) { a.kind = "gather" })),
		mvCase("kind: Broadcast vs Scatter", b8, with(b8, func(a *mvArgs) { a.kind = "scatter" })),
		mvCase("root: 0 vs 1", b8, with(b8, func(a *mvArgs) { a.root = 1 })),
		mvCase("size: 8 vs 16 bytes", b8, with(b8, func(a *mvArgs) { a.n = 16 })),
		mvCase("size: 8 vs 8 KiB", b8, with(b8, func(a *mvArgs) { a.n = 8 << 10 })),
		mvCase("size: 8 KiB vs 16 KiB", with(b8, func(a *mvArgs) { a.n = 8 << 10 }), with(b8, func(a *mvArgs) { a.n = 16 << 10 })),
		mvCase("sync: IN_MYSYNC vs IN_ALLSYNC", b8, with(b8, func(a *mvArgs) { a.f = a.f&^gsync.InMySync | gsync.InAllSync })),
		mvCase("sync: OUT_MYSYNC vs OUT_ALLSYNC", b8, with(b8, func(a *mvArgs) { a.f = a.f&^gsync.OutMySync | gsync.OutAllSync })),
		mvCase("addressing: Local vs Single", b8, with(b8, func(a *mvArgs) { a.f = a.f&^gsync.Local | gsync.Single })),
		redCase("element size: 8 vs 16 bytes", sum, func(P int) redArgs { return redArgs{16, P, 0, coll.Cyclic} }),
		redCase("count: 2P vs P", sum, func(P int) redArgs { return redArgs{8, P, 0, coll.Cyclic} }),
		redCase("function: sum vs xor", sum, func(P int) redArgs { return redArgs{8, 2 * P, 1, coll.Cyclic} }),
		redCase("layout: cyclic vs blocked", sum, func(P int) redArgs { return redArgs{8, 2 * P, 0, coll.Blocked(2*P, P)} }),
	}
}
