package coll

import (
	"fmt"

	"github.com/gocoll/gocoll/images"
	gsync "github.com/gocoll/gocoll/sync"
)

// The computational collectives. The array of elemCount elements of
// elemSize bytes is laid out over the team's images by a Layout (the spec's
// blksz and offset); src is this image's local part of it (nil where the
// image holds none, under Local addressing). fn is an index into the
// function table given to Init and arg its argument, both the same on every
// image. Results are deterministic: the same inputs, team and layout give
// bitwise the same results, run after run, also for floating point.

// Reduce folds the array in element order with function fn into dst
// (elemSize bytes) on the image of team rank dstImage.
func (im *Image) Reduce(t *images.Team, dstImage int, dst, src []byte, srcLayout Layout, elemSize, elemCount, fn, arg int, f gsync.Flags) error {
	return wait(im.reduce(t, dstImage, dst, src, srcLayout, elemSize, elemCount, fn, arg, f, false))
}

// ReduceNB is the non-blocking Reduce.
func (im *Image) ReduceNB(t *images.Team, dstImage int, dst, src []byte, srcLayout Layout, elemSize, elemCount, fn, arg int, f gsync.Flags) (gsync.Handle, error) {
	return im.reduce(t, dstImage, dst, src, srcLayout, elemSize, elemCount, fn, arg, f, true)
}

func (im *Image) reduce(t *images.Team, dstImage int, dst, src []byte, sl Layout, es, count, fn, arg int, f gsync.Flags, nb bool) (gsync.Handle, error) {
	a, rd, sd := im.compArgs(kReduce, t, dstImage, dst, src, sl, es, count, fn, arg, f, nb)
	a.buffer("dst", dst, es, a.isRoot)
	return im.run(&a, func(g geom) []round { return reduceSched(g, im.opts.Tree, rd, sd, dstImage, dst, src) })
}

// ReduceAll is Reduce with the result in dst on every image.
func (im *Image) ReduceAll(t *images.Team, dst, src []byte, srcLayout Layout, elemSize, elemCount, fn, arg int, f gsync.Flags) error {
	return wait(im.reduceAll(t, dst, src, srcLayout, elemSize, elemCount, fn, arg, f, false))
}

// ReduceAllNB is the non-blocking ReduceAll.
func (im *Image) ReduceAllNB(t *images.Team, dst, src []byte, srcLayout Layout, elemSize, elemCount, fn, arg int, f gsync.Flags) (gsync.Handle, error) {
	return im.reduceAll(t, dst, src, srcLayout, elemSize, elemCount, fn, arg, f, true)
}

func (im *Image) reduceAll(t *images.Team, dst, src []byte, sl Layout, es, count, fn, arg int, f gsync.Flags, nb bool) (gsync.Handle, error) {
	a, rd, sd := im.compArgs(kReduceAll, t, 0, dst, src, sl, es, count, fn, arg, f, nb)
	a.buffer("dst", dst, es, true)
	return im.run(&a, func(g geom) []round { return reduceAllSched(g, rd, sd, dst, src) })
}

// PrefixReduce sets element j of the destination array (laid out by
// dstLayout, which may differ from srcLayout) to the fold of source elements
// 0..j (an inclusive scan).
func (im *Image) PrefixReduce(t *images.Team, dst []byte, dstLayout Layout, src []byte, srcLayout Layout, elemSize, elemCount, fn, arg int, f gsync.Flags) error {
	return wait(im.prefix(t, dst, dstLayout, src, srcLayout, elemSize, elemCount, fn, arg, f, false, false))
}

// PrefixReduceNB is the non-blocking PrefixReduce.
func (im *Image) PrefixReduceNB(t *images.Team, dst []byte, dstLayout Layout, src []byte, srcLayout Layout, elemSize, elemCount, fn, arg int, f gsync.Flags) (gsync.Handle, error) {
	return im.prefix(t, dst, dstLayout, src, srcLayout, elemSize, elemCount, fn, arg, f, true, false)
}

// ExclusivePrefixReduce sets element j of the destination to the fold of
// source elements 0..j-1; element 0 gets no defined value (it is not written).
func (im *Image) ExclusivePrefixReduce(t *images.Team, dst []byte, dstLayout Layout, src []byte, srcLayout Layout, elemSize, elemCount, fn, arg int, f gsync.Flags) error {
	return wait(im.prefix(t, dst, dstLayout, src, srcLayout, elemSize, elemCount, fn, arg, f, false, true))
}

// ExclusivePrefixReduceNB is the non-blocking ExclusivePrefixReduce.
func (im *Image) ExclusivePrefixReduceNB(t *images.Team, dst []byte, dstLayout Layout, src []byte, srcLayout Layout, elemSize, elemCount, fn, arg int, f gsync.Flags) (gsync.Handle, error) {
	return im.prefix(t, dst, dstLayout, src, srcLayout, elemSize, elemCount, fn, arg, f, true, true)
}

func (im *Image) prefix(t *images.Team, dst []byte, dl Layout, src []byte, sl Layout, es, count, fn, arg int, f gsync.Flags, nb, exclusive bool) (gsync.Handle, error) {
	k := kPrefix
	if exclusive {
		k = kExclusivePrefix
	}
	a, rd, sd := im.compArgs(k, t, 0, dst, src, sl, es, count, fn, arg, f, nb)
	a.key.dl = dl
	dd := dist{Layout: dl, P: im.nodes, count: count}
	if a.err == nil {
		a.err = dd.check("dst")
	}
	if a.err == nil {
		a.buffer("dst", dst, dd.localLen(im.me)*es, dd.localLen(im.me) > 0)
	}
	return im.run(&a, func(g geom) []round { return prefixSched(g, im.opts.Tree, rd, sd, dd, dst, src, exclusive) })
}

// compArgs validates what the computational collectives share.
func (im *Image) compArgs(k kind, t *images.Team, root int, dst, src []byte, sl Layout, es, count, fn, arg int, f gsync.Flags, nb bool) (callArgs, reducer, dist) {
	a := im.args(k, t, root, max(es, 1), f, nb, dst, src)
	a.n, a.key.n = 0, 0 // schedules of reductions do not use block sizes
	a.key.es, a.key.count, a.key.fn, a.key.arg, a.key.sl = es, count, fn, arg, sl
	sd := dist{Layout: sl, P: im.nodes, count: count}
	var rd reducer
	if a.err != nil {
		return a, rd, sd
	}
	switch {
	case fn < 0 || fn >= len(im.fns) || im.fns[fn].Fn == nil:
		a.err = fmt.Errorf("%w: %d, table of %d", ErrFunction, fn, len(im.fns))
	case es <= 0:
		a.err = fmt.Errorf("%w: %d", ErrElemSize, es)
	case im.fns[fn].Scalar > 0 && es%im.fns[fn].Scalar != 0:
		a.err = fmt.Errorf("%w: %d bytes is not a whole number of the function's %d-byte scalars", ErrElemSize, es, im.fns[fn].Scalar)
	case count <= 0:
		a.err = fmt.Errorf("%w: %d", ErrElemCount, count)
	default:
		a.err = sd.check("src")
	}
	if a.err != nil {
		return a, rd, sd
	}
	e := im.fns[fn]
	rd = reducer{fn: e.Fn, flags: e.Flags, arg: arg, es: es, scalar: e.Scalar}
	a.es = es
	n := sd.localLen(im.me)
	a.buffer("src", src, n*es, n > 0)
	return a, rd, sd
}

// buffer checks an element buffer: present where it applies (or under
// Single), a whole number of elements, and long enough.
func (a *callArgs) buffer(name string, b []byte, n int, applies bool) {
	if a.err == nil && b != nil && a.es > 0 && len(b)%a.es != 0 {
		a.err = fmt.Errorf("%w: %s has %d bytes, elements of %d", ErrBufferLength, name, len(b), a.es)
	}
	if a.err == nil && (applies || (a.single && b != nil)) {
		a.need(name, b, n, true)
	}
}
