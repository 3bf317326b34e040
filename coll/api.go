package coll

import (
	"context"
	"fmt"
	"unsafe"

	"github.com/gocoll/gocoll/images"
	gsync "github.com/gocoll/gocoll/sync"
)

// The data-movement collectives. Each has a blocking form and a
// non-blocking ...NB form returning a handle; the blocking form is the NB
// form followed by Wait. Arguments follow the spec's prototypes:
//
//   - nbytes is the size of one block, > 0 and the same on every node.
//   - root is a team rank, the same on every node.
//   - With Local addressing an argument that does not apply to the caller
//     (src of Broadcast/Scatter off the root, dst of Gather off the root) is
//     ignored and may be nil. With Single every argument must be given.
//   - A slice always names the caller's own memory (Go has no global address
//     space); Single promises that the arguments agree across nodes.

// Broadcast copies nbytes of src on the root to dst on every image.
func (im *Image) Broadcast(t *images.Team, dst []byte, root int, src []byte, nbytes int, f gsync.Flags) error {
	return wait(im.broadcast(t, dst, root, src, nbytes, f, false))
}

// BroadcastNB is the non-blocking Broadcast.
func (im *Image) BroadcastNB(t *images.Team, dst []byte, root int, src []byte, nbytes int, f gsync.Flags) (gsync.Handle, error) {
	return im.broadcast(t, dst, root, src, nbytes, f, true)
}

func (im *Image) broadcast(t *images.Team, dst []byte, root int, src []byte, n int, f gsync.Flags, nb bool) (gsync.Handle, error) {
	a := im.args(kBroadcast, t, root, n, f, nb, dst, src)
	a.need("dst", dst, n, true)
	a.need("src", src, n, a.isRoot)
	a.disjoint(dst[:min(len(dst), n)], src[:min(len(src), n)], a.isRoot, true)
	return im.run(&a, func(g geom) []round { return broadcastSched(g, im.opts.Tree, root, dst, src) })
}

// Scatter sends block i of src (P blocks of nbytes) on the root to dst on
// the image of team rank i.
func (im *Image) Scatter(t *images.Team, dst []byte, root int, src []byte, nbytes int, f gsync.Flags) error {
	return wait(im.scatter(t, dst, root, src, nbytes, f, false))
}

// ScatterNB is the non-blocking Scatter.
func (im *Image) ScatterNB(t *images.Team, dst []byte, root int, src []byte, nbytes int, f gsync.Flags) (gsync.Handle, error) {
	return im.scatter(t, dst, root, src, nbytes, f, true)
}

func (im *Image) scatter(t *images.Team, dst []byte, root int, src []byte, n int, f gsync.Flags, nb bool) (gsync.Handle, error) {
	a := im.args(kScatter, t, root, n, f, nb, dst, src)
	a.need("dst", dst, n, true)
	a.need("src", src, n*im.nodes, a.isRoot)
	if a.err == nil && a.isRoot {
		a.disjoint(dst[:n], src[:n*im.nodes], true, false)
		if a.err != nil && identical(dst[:n], src[root*n:(root+1)*n]) {
			a.err = nil // the root's own block may be its destination
		}
	}
	return im.run(&a, func(g geom) []round { return scatterSched(g, im.opts.Tree, root, dst, src) })
}

// Gather collects src (nbytes) of every image into block i of dst (P
// blocks) on the root, i being the team rank of the source.
func (im *Image) Gather(t *images.Team, root int, dst, src []byte, nbytes int, f gsync.Flags) error {
	return wait(im.gather(t, root, dst, src, nbytes, f, false))
}

// GatherNB is the non-blocking Gather.
func (im *Image) GatherNB(t *images.Team, root int, dst, src []byte, nbytes int, f gsync.Flags) (gsync.Handle, error) {
	return im.gather(t, root, dst, src, nbytes, f, true)
}

func (im *Image) gather(t *images.Team, root int, dst, src []byte, n int, f gsync.Flags, nb bool) (gsync.Handle, error) {
	a := im.args(kGather, t, root, n, f, nb, dst, src)
	a.need("dst", dst, n*im.nodes, a.isRoot)
	a.need("src", src, n, true)
	if a.err == nil && a.isRoot {
		a.disjoint(dst[:n*im.nodes], src[:n], true, false)
		if a.err != nil && identical(src[:n], dst[root*n:(root+1)*n]) {
			a.err = nil // the root's own block may be its source
		}
	}
	return im.run(&a, func(g geom) []round { return gatherSched(g, im.opts.Tree, root, dst, src) })
}

// GatherAll collects src (nbytes) of every image into block i of dst (P
// blocks) on every image.
func (im *Image) GatherAll(t *images.Team, dst, src []byte, nbytes int, f gsync.Flags) error {
	return wait(im.gatherAll(t, dst, src, nbytes, f, false))
}

// GatherAllNB is the non-blocking GatherAll.
func (im *Image) GatherAllNB(t *images.Team, dst, src []byte, nbytes int, f gsync.Flags) (gsync.Handle, error) {
	return im.gatherAll(t, dst, src, nbytes, f, true)
}

func (im *Image) gatherAll(t *images.Team, dst, src []byte, n int, f gsync.Flags, nb bool) (gsync.Handle, error) {
	a := im.args(kGatherAll, t, 0, n, f, nb, dst, src)
	a.need("dst", dst, n*im.nodes, true)
	a.need("src", src, n, true)
	if a.err == nil {
		a.disjoint(dst[:n*im.nodes], src[:n], true, false)
		if a.err != nil && identical(src[:n], dst[im.me*n:(im.me+1)*n]) {
			a.err = nil // a node's own block may be its source
		}
	}
	algo := im.gatherAllAlgo()
	return im.run(&a, func(g geom) []round {
		if algo == GatherAllExchange {
			return gatherAllExchangeSched(g, dst, src)
		}
		return gatherAllDisseminationSched(g, dst, src)
	})
}

// gatherAllAlgo applies the rule of the package documentation: with A =
// L/max(o,g), the exchange-like pattern costs about (P-1) + A gaps and the
// dissemination one ceil(lg P) * (A+1); take the cheaper, exchange on ties.
func (im *Image) gatherAllAlgo() GatherAllAlgo {
	if im.opts.GatherAll != GatherAllAuto {
		return im.opts.GatherAll
	}
	A := im.opts.A
	if A <= 0 {
		A = DefaultA
	}
	if (im.nodes-1)+A <= bitsOf(im.nodes-1)*(A+1) {
		return GatherAllExchange
	}
	return GatherAllDissemination
}

// Exchange sends block j of src on the image of team rank i to block i of
// dst on the image of team rank j (P blocks of nbytes each side).
func (im *Image) Exchange(t *images.Team, dst, src []byte, nbytes int, f gsync.Flags) error {
	return wait(im.exchange(t, dst, src, nbytes, f, false))
}

// ExchangeNB is the non-blocking Exchange.
func (im *Image) ExchangeNB(t *images.Team, dst, src []byte, nbytes int, f gsync.Flags) (gsync.Handle, error) {
	return im.exchange(t, dst, src, nbytes, f, true)
}

func (im *Image) exchange(t *images.Team, dst, src []byte, n int, f gsync.Flags, nb bool) (gsync.Handle, error) {
	a := im.args(kExchange, t, 0, n, f, nb, dst, src)
	a.need("dst", dst, n*im.nodes, true)
	a.need("src", src, n*im.nodes, true)
	if a.err == nil {
		a.disjoint(dst[:n*im.nodes], src[:n*im.nodes], true, false) // exchange has no exception
	}
	return im.run(&a, func(g geom) []round { return exchangeSched(g, dst, src) })
}

// callArgs validates the common arguments; the first problem found is kept.
type callArgs struct {
	key    planKey // the schedule's cache key, filled as arguments are checked
	f      gsync.Flags
	single bool
	isRoot bool
	n      int // block size of the data-movement collectives
	es     int // element size of the computational ones
	err    error
}

func (im *Image) args(k kind, t *images.Team, root, n int, f gsync.Flags, nb bool, dst, src []byte) callArgs {
	a := callArgs{f: f, n: n, single: f&gsync.Single != 0}
	a.key = planKey{kind: k, team: t, f: f, root: root, n: n, dst: idOf(dst), src: idOf(src)}
	if a.err = im.check(); a.err != nil {
		return a
	}
	if a.err = im.checkTeamFlags(t, f, nb); a.err != nil {
		return a
	}
	switch {
	case n <= 0:
		a.err = fmt.Errorf("%w: got %d", ErrNBytes, n)
	case root < 0 || root >= im.nodes:
		a.err = fmt.Errorf("%w: root %d, team size %d", ErrRoot, root, im.nodes)
	}
	a.isRoot = root == im.me
	return a
}

// need checks a buffer of at least n bytes that applies to the caller (or
// must be given anyway under Single addressing).
func (a *callArgs) need(name string, b []byte, n int, applies bool) {
	if a.err != nil || !(applies || a.single) {
		return
	}
	switch {
	case b == nil:
		a.err = fmt.Errorf("%w: %s", ErrNilBuffer, name)
	case len(b) < n:
		a.err = fmt.Errorf("%w: %s has %d bytes, needs %d", ErrShortBuffer, name, len(b), n)
	}
}

// disjoint reports ErrOverlap when x and y share memory, unless
// identicalOK and they are the same block.
func (a *callArgs) disjoint(x, y []byte, check, identicalOK bool) {
	if a.err != nil || !check || len(x) == 0 || len(y) == 0 {
		return
	}
	if identicalOK && identical(x, y) {
		return
	}
	px, py := uintptr(unsafe.Pointer(&x[0])), uintptr(unsafe.Pointer(&y[0]))
	if px < py+uintptr(len(y)) && py < px+uintptr(len(x)) {
		a.err = ErrOverlap
	}
}

// identical: same address and length.
func identical(x, y []byte) bool {
	return len(x) == len(y) && len(x) > 0 && &x[0] == &y[0]
}

// run initiates the schedule once the arguments are valid.
func (im *Image) run(a *callArgs, build func(geom) []round) (gsync.Handle, error) {
	if a.err != nil {
		return gsync.Handle{}, a.err
	}
	return im.start(a.key, build)
}

func wait(h gsync.Handle, err error) error {
	if err != nil {
		return err
	}
	return h.Wait(context.Background())
}
