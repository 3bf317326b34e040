package core

import (
	"context"
	"fmt"

	"github.com/gocoll/gocoll/coll/internal/alg"
	"github.com/gocoll/gocoll/coll/internal/plan"
	"github.com/gocoll/gocoll/images"
	"github.com/gocoll/gocoll/internal/engine"
	gsync "github.com/gocoll/gocoll/sync"
)

func (im *Image) Broadcast(t *images.Team, dst []byte, dsts [][]byte, multi bool, root int, src []byte, n int, f gsync.Flags, nb bool) (engine.Handle, error) {
	var a callArgs
	im.args(&a, plan.Broadcast, t, root, n, f, nb, multi)
	a.take(a.Dst, "dst", dst, dsts, multi, im.n)
	a.take(a.Src, "src", src, nil, false, im.n)
	lo, hi := a.members()
	for k := lo; k < hi && a.err == nil; k++ {
		isRoot := a.tn.Mem[k] == root
		a.need("dst", k, a.Dst[k], n, true)
		a.need("src", k, a.Src[k], n, isRoot)
		if a.err == nil && isRoot {
			a.disjoint(a.Dst[k][:n], a.Src[k][:n], true, true)
		}
	}
	return im.run(&a)
}

func (im *Image) Scatter(t *images.Team, dst []byte, dsts [][]byte, multi bool, root int, src []byte, n int, f gsync.Flags, nb bool) (engine.Handle, error) {
	var a callArgs
	im.args(&a, plan.Scatter, t, root, n, f, nb, multi)
	a.take(a.Dst, "dst", dst, dsts, multi, im.n)
	a.take(a.Src, "src", src, nil, false, im.n)
	lo, hi := a.members()
	for k := lo; k < hi && a.err == nil; k++ {
		isRoot := a.tn.Mem[k] == root
		a.need("dst", k, a.Dst[k], n, true)
		a.need("src", k, a.Src[k], n*a.P, isRoot)
		if a.err == nil && isRoot {
			d, s := a.Dst[k][:n], a.Src[k][:n*a.P]
			a.disjoint(d, s, true, false)
			if a.err != nil && alg.Identical(d, s[root*n:(root+1)*n]) {
				a.err = nil // the root's own block may be its destination
			}
		}
	}
	return im.run(&a)
}

func (im *Image) Gather(t *images.Team, root int, dst, src []byte, srcs [][]byte, multi bool, n int, f gsync.Flags, nb bool) (engine.Handle, error) {
	var a callArgs
	im.args(&a, plan.Gather, t, root, n, f, nb, multi)
	a.take(a.Dst, "dst", dst, nil, false, im.n)
	a.take(a.Src, "src", src, srcs, multi, im.n)
	lo, hi := a.members()
	for k := lo; k < hi && a.err == nil; k++ {
		isRoot := a.tn.Mem[k] == root
		a.need("dst", k, a.Dst[k], n*a.P, isRoot)
		a.need("src", k, a.Src[k], n, true)
		if a.err == nil && isRoot {
			d, s := a.Dst[k][:n*a.P], a.Src[k][:n]
			a.disjoint(d, s, true, false)
			if a.err != nil && alg.Identical(s, d[root*n:(root+1)*n]) {
				a.err = nil // the root's own block may be its source
			}
		}
	}
	return im.run(&a)
}

func (im *Image) GatherAll(t *images.Team, dst []byte, dsts [][]byte, src []byte, srcs [][]byte, multi bool, n int, f gsync.Flags, nb bool) (engine.Handle, error) {
	var a callArgs
	im.args(&a, plan.GatherAll, t, 0, n, f, nb, multi)
	a.take(a.Dst, "dst", dst, dsts, multi, im.n)
	a.take(a.Src, "src", src, srcs, multi, im.n)
	lo, hi := a.members()
	for k := lo; k < hi && a.err == nil; k++ {
		r := a.tn.Mem[k]
		a.need("dst", k, a.Dst[k], n*a.P, true)
		a.need("src", k, a.Src[k], n, true)
		if a.err == nil {
			d, s := a.Dst[k][:n*a.P], a.Src[k][:n]
			a.disjoint(d, s, true, false)
			if a.err != nil && alg.Identical(s, d[r*n:(r+1)*n]) {
				a.err = nil // an image's own block may be its source
			}
		}
	}
	return im.run(&a)
}

func (im *Image) Exchange(t *images.Team, dst []byte, dsts [][]byte, src []byte, srcs [][]byte, multi bool, n int, f gsync.Flags, nb bool) (engine.Handle, error) {
	var a callArgs
	im.args(&a, plan.Exchange, t, 0, n, f, nb, multi)
	a.take(a.Dst, "dst", dst, dsts, multi, im.n)
	a.take(a.Src, "src", src, srcs, multi, im.n)
	lo, hi := a.members()
	for k := lo; k < hi && a.err == nil; k++ {
		a.need("dst", k, a.Dst[k], n*a.P, true)
		a.need("src", k, a.Src[k], n*a.P, true)
		if a.err == nil {
			a.disjoint(a.Dst[k][:n*a.P], a.Src[k][:n*a.P], true, false) // exchange has no exception
		}
	}
	return im.run(&a)
}

func (im *Image) Reduce(t *images.Team, dstImage int, dst, src []byte, srcs [][]byte, multi bool, sl alg.Layout, es, count, fn, arg int, f gsync.Flags, nb bool) (engine.Handle, error) {
	var a callArgs
	sd := im.compArgs(&a, plan.Reduce, t, dstImage, sl, alg.Layout{}, es, count, fn, arg, f, nb, multi, dst, src)
	a.take(a.Dst, "dst", dst, nil, false, im.n)
	a.take(a.Src, "src", src, srcs, multi, im.n)
	if !a.repeat {
		lo, hi := a.members()
		for k := lo; k < hi && a.err == nil; k++ {
			a.source(k, sd)
			a.buffer("dst", k, a.Dst[k], es, a.tn.Mem[k] == dstImage)
			a.notPartly(k)
		}
		a.passed(dst, src)
	}
	return im.run(&a)
}

func (im *Image) ReduceAll(t *images.Team, dst []byte, dsts [][]byte, src []byte, srcs [][]byte, multi bool, sl alg.Layout, es, count, fn, arg int, f gsync.Flags, nb bool) (engine.Handle, error) {
	var a callArgs
	sd := im.compArgs(&a, plan.ReduceAll, t, 0, sl, alg.Layout{}, es, count, fn, arg, f, nb, multi, dst, src)
	a.take(a.Dst, "dst", dst, dsts, multi, im.n)
	a.take(a.Src, "src", src, srcs, multi, im.n)
	if !a.repeat {
		lo, hi := a.members()
		for k := lo; k < hi && a.err == nil; k++ {
			a.source(k, sd)
			a.buffer("dst", k, a.Dst[k], es, true)
			a.notPartly(k)
		}
		a.passed(dst, src)
	}
	return im.run(&a)
}

func (im *Image) Prefix(t *images.Team, dst []byte, dsts [][]byte, dl alg.Layout, src []byte, srcs [][]byte, multi bool, sl alg.Layout, es, count, fn, arg int, f gsync.Flags, nb, exclusive bool) (engine.Handle, error) {
	k := plan.Prefix
	if exclusive {
		k = plan.ExclusivePrefix
	}
	var a callArgs
	sd := im.compArgs(&a, k, t, 0, sl, dl, es, count, fn, arg, f, nb, multi, dst, src)
	a.take(a.Dst, "dst", dst, dsts, multi, im.n)
	a.take(a.Src, "src", src, srcs, multi, im.n)
	if !a.repeat {
		dd := alg.Dist{Layout: dl, P: a.P, Count: count}
		if a.err == nil {
			a.err = dd.Check("dst")
		}
		lo, hi := a.members()
		for m := lo; m < hi && a.err == nil; m++ {
			a.source(m, sd)
			n := dd.LocalLen(a.tn.Mem[m])
			a.buffer("dst", m, a.Dst[m], n*es, n > 0)
			a.notPartly(m)
		}
		a.passed(dst, src)
	}
	return im.run(&a)
}

// compArgs validates what the computational collectives share and returns
// the source's distribution (dl is the destination's layout, where it has
// one). When the call repeats the team's last one on the same buffers dst
// and src (the single-address forms' buffers), it takes the image's last call
// of it, sets a.repeat and checks nothing more: the caller then skips its
// own buffer checks too (lastcall.go).
func (im *Image) compArgs(a *callArgs, k plan.Kind, t *images.Team, root int, sl, dl alg.Layout, es, count, fn, arg int, f gsync.Flags, nb, multi bool, dst, src []byte) alg.Dist {
	if !multi && im.again(a, k, t, root, sl, dl, es, count, fn, arg, f, nb, dst, src) {
		return alg.Dist{Layout: sl, P: a.P, Count: count}
	}
	im.args(a, k, t, root, 0, f, nb, multi)
	a.Key.ElemSize, a.Key.Count, a.Key.Fn, a.Key.Arg, a.Key.SrcLayout, a.Key.DstLayout = es, count, fn, arg, sl, dl
	a.es = es
	sd := alg.Dist{Layout: sl, P: a.P, Count: count}
	if a.err != nil {
		return sd
	}
	e, _ := im.n.entry(fn)
	switch {
	case e.Fn == nil:
		a.err = fmt.Errorf("%w: %d, table of %d", ErrFunction, fn, len(im.n.fns))
	case es <= 0:
		a.err = fmt.Errorf("%w: %d", ErrElemSize, es)
	case e.Scalar > 0 && es%e.Scalar != 0:
		a.err = fmt.Errorf("%w: %d bytes is not a whole number of the function's %d-byte scalars", ErrElemSize, es, e.Scalar)
	case count <= 0:
		a.err = fmt.Errorf("%w: %d", ErrElemCount, count)
	default:
		a.err = sd.Check("src")
	}
	return sd
}

// source checks member k's source: its local part of the array.
func (a *callArgs) source(k int, sd alg.Dist) {
	n := sd.LocalLen(a.tn.Mem[k])
	a.buffer("src", k, a.Src[k], n*a.es, n > 0)
}

// buffer checks an element buffer: present where it applies (or under
// Single), a whole number of elements, and long enough.
func (a *callArgs) buffer(name string, k int, b []byte, n int, applies bool) {
	if a.err == nil && b != nil && a.es > 0 && len(b)%a.es != 0 {
		a.err = fmt.Errorf("%w: %s%s has %d bytes, elements of %d", ErrBufferLength, name, a.whose(k), len(b), a.es)
	}
	if a.err == nil && (applies || (a.single && b != nil)) {
		a.need(name, k, b, n, true)
	}
}

// Wait is a blocking form's end: the wait for the handle of the
// collective it started, if the initiation did not complete it.
func Wait(h engine.Handle, err error) error {
	if err != nil || !h.Valid() { // completed during initiation: nothing to wait for
		return err
	}
	return h.Wait(context.Background())
}
