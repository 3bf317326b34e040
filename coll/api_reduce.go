package coll

import (
	"fmt"

	"github.com/gocoll/gocoll/coll/internal/alg"
	"github.com/gocoll/gocoll/coll/internal/plan"
	"github.com/gocoll/gocoll/images"
	"github.com/gocoll/gocoll/internal/engine"
	gsync "github.com/gocoll/gocoll/sync"
)

// The computational collectives. The array of elemCount elements of
// elemSize bytes is laid out over the team's images by a Layout (the spec's
// blksz and offset); src is this image's local part of it (nil where the
// image holds none, under Local addressing). fn is an index into the
// function table given to Init and arg its argument, both the same on every
// image. Results are deterministic: the same inputs, images table, team and
// layout give bitwise the same results, run after run, also for floating
// point. The ...M forms take an address per image, as the data-movement
// ones do (see api.go). A destination may be its source's own buffer (the
// same first byte: in place, as MPI_IN_PLACE), with the results of separate
// buffers; any other overlap of a destination with its source is
// ErrOverlap (inplace.go).

// Reduce folds the array in element order with function fn into dst
// (elemSize bytes) on the image of team rank dstImage.
func (im *Image) Reduce(t *images.Team, dstImage int, dst, src []byte, srcLayout Layout, elemSize, elemCount, fn, arg int, f gsync.Flags) error {
	return wait(im.reduce(t, dstImage, dst, src, nil, false, alg.Layout(srcLayout), elemSize, elemCount, fn, arg, f, false))
}

// ReduceNB is the non-blocking Reduce.
func (im *Image) ReduceNB(t *images.Team, dstImage int, dst, src []byte, srcLayout Layout, elemSize, elemCount, fn, arg int, f gsync.Flags) (gsync.Handle, error) {
	return public(im.reduce(t, dstImage, dst, src, nil, false, alg.Layout(srcLayout), elemSize, elemCount, fn, arg, f, true))
}

// ReduceM is Reduce with a source per image.
func (im *Image) ReduceM(t *images.Team, dstImage int, dst []byte, srcs [][]byte, srcLayout Layout, elemSize, elemCount, fn, arg int, f gsync.Flags) error {
	return wait(im.reduce(t, dstImage, dst, nil, srcs, true, alg.Layout(srcLayout), elemSize, elemCount, fn, arg, f, false))
}

// ReduceMNB is the non-blocking ReduceM.
func (im *Image) ReduceMNB(t *images.Team, dstImage int, dst []byte, srcs [][]byte, srcLayout Layout, elemSize, elemCount, fn, arg int, f gsync.Flags) (gsync.Handle, error) {
	return public(im.reduce(t, dstImage, dst, nil, srcs, true, alg.Layout(srcLayout), elemSize, elemCount, fn, arg, f, true))
}

func (im *Image) reduce(t *images.Team, dstImage int, dst, src []byte, srcs [][]byte, multi bool, sl alg.Layout, es, count, fn, arg int, f gsync.Flags, nb bool) (engine.Handle, error) {
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

// ReduceAll is Reduce with the result in dst on every image.
func (im *Image) ReduceAll(t *images.Team, dst, src []byte, srcLayout Layout, elemSize, elemCount, fn, arg int, f gsync.Flags) error {
	return wait(im.reduceAll(t, dst, nil, src, nil, false, alg.Layout(srcLayout), elemSize, elemCount, fn, arg, f, false))
}

// ReduceAllNB is the non-blocking ReduceAll.
func (im *Image) ReduceAllNB(t *images.Team, dst, src []byte, srcLayout Layout, elemSize, elemCount, fn, arg int, f gsync.Flags) (gsync.Handle, error) {
	return public(im.reduceAll(t, dst, nil, src, nil, false, alg.Layout(srcLayout), elemSize, elemCount, fn, arg, f, true))
}

// ReduceAllM is ReduceAll with a destination and a source per image.
func (im *Image) ReduceAllM(t *images.Team, dsts, srcs [][]byte, srcLayout Layout, elemSize, elemCount, fn, arg int, f gsync.Flags) error {
	return wait(im.reduceAll(t, nil, dsts, nil, srcs, true, alg.Layout(srcLayout), elemSize, elemCount, fn, arg, f, false))
}

// ReduceAllMNB is the non-blocking ReduceAllM.
func (im *Image) ReduceAllMNB(t *images.Team, dsts, srcs [][]byte, srcLayout Layout, elemSize, elemCount, fn, arg int, f gsync.Flags) (gsync.Handle, error) {
	return public(im.reduceAll(t, nil, dsts, nil, srcs, true, alg.Layout(srcLayout), elemSize, elemCount, fn, arg, f, true))
}

func (im *Image) reduceAll(t *images.Team, dst []byte, dsts [][]byte, src []byte, srcs [][]byte, multi bool, sl alg.Layout, es, count, fn, arg int, f gsync.Flags, nb bool) (engine.Handle, error) {
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

// PrefixReduce sets element j of the destination array (laid out by
// dstLayout, which may differ from srcLayout) to the fold of source elements
// 0..j (an inclusive scan).
func (im *Image) PrefixReduce(t *images.Team, dst []byte, dstLayout Layout, src []byte, srcLayout Layout, elemSize, elemCount, fn, arg int, f gsync.Flags) error {
	return wait(im.prefix(t, dst, nil, alg.Layout(dstLayout), src, nil, false, alg.Layout(srcLayout), elemSize, elemCount, fn, arg, f, false, false))
}

// PrefixReduceNB is the non-blocking PrefixReduce.
func (im *Image) PrefixReduceNB(t *images.Team, dst []byte, dstLayout Layout, src []byte, srcLayout Layout, elemSize, elemCount, fn, arg int, f gsync.Flags) (gsync.Handle, error) {
	return public(im.prefix(t, dst, nil, alg.Layout(dstLayout), src, nil, false, alg.Layout(srcLayout), elemSize, elemCount, fn, arg, f, true, false))
}

// PrefixReduceM is PrefixReduce with a destination and a source per image.
func (im *Image) PrefixReduceM(t *images.Team, dsts [][]byte, dstLayout Layout, srcs [][]byte, srcLayout Layout, elemSize, elemCount, fn, arg int, f gsync.Flags) error {
	return wait(im.prefix(t, nil, dsts, alg.Layout(dstLayout), nil, srcs, true, alg.Layout(srcLayout), elemSize, elemCount, fn, arg, f, false, false))
}

// PrefixReduceMNB is the non-blocking PrefixReduceM.
func (im *Image) PrefixReduceMNB(t *images.Team, dsts [][]byte, dstLayout Layout, srcs [][]byte, srcLayout Layout, elemSize, elemCount, fn, arg int, f gsync.Flags) (gsync.Handle, error) {
	return public(im.prefix(t, nil, dsts, alg.Layout(dstLayout), nil, srcs, true, alg.Layout(srcLayout), elemSize, elemCount, fn, arg, f, true, false))
}

// ExclusivePrefixReduce sets element j of the destination to the fold of
// source elements 0..j-1; element 0 gets no defined value (it is not written).
func (im *Image) ExclusivePrefixReduce(t *images.Team, dst []byte, dstLayout Layout, src []byte, srcLayout Layout, elemSize, elemCount, fn, arg int, f gsync.Flags) error {
	return wait(im.prefix(t, dst, nil, alg.Layout(dstLayout), src, nil, false, alg.Layout(srcLayout), elemSize, elemCount, fn, arg, f, false, true))
}

// ExclusivePrefixReduceNB is the non-blocking ExclusivePrefixReduce.
func (im *Image) ExclusivePrefixReduceNB(t *images.Team, dst []byte, dstLayout Layout, src []byte, srcLayout Layout, elemSize, elemCount, fn, arg int, f gsync.Flags) (gsync.Handle, error) {
	return public(im.prefix(t, dst, nil, alg.Layout(dstLayout), src, nil, false, alg.Layout(srcLayout), elemSize, elemCount, fn, arg, f, true, true))
}

// ExclusivePrefixReduceM is ExclusivePrefixReduce with a destination and a
// source per image.
func (im *Image) ExclusivePrefixReduceM(t *images.Team, dsts [][]byte, dstLayout Layout, srcs [][]byte, srcLayout Layout, elemSize, elemCount, fn, arg int, f gsync.Flags) error {
	return wait(im.prefix(t, nil, dsts, alg.Layout(dstLayout), nil, srcs, true, alg.Layout(srcLayout), elemSize, elemCount, fn, arg, f, false, true))
}

// ExclusivePrefixReduceMNB is the non-blocking ExclusivePrefixReduceM.
func (im *Image) ExclusivePrefixReduceMNB(t *images.Team, dsts [][]byte, dstLayout Layout, srcs [][]byte, srcLayout Layout, elemSize, elemCount, fn, arg int, f gsync.Flags) (gsync.Handle, error) {
	return public(im.prefix(t, nil, dsts, alg.Layout(dstLayout), nil, srcs, true, alg.Layout(srcLayout), elemSize, elemCount, fn, arg, f, true, true))
}

func (im *Image) prefix(t *images.Team, dst []byte, dsts [][]byte, dl alg.Layout, src []byte, srcs [][]byte, multi bool, sl alg.Layout, es, count, fn, arg int, f gsync.Flags, nb, exclusive bool) (engine.Handle, error) {
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
// and src (the single-address forms' buffers), it takes the image's plan
// of it, sets a.repeat and checks nothing more: the caller then skips its
// own buffer checks too (plans.go).
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
