package coll

import (
	"github.com/gocoll/gocoll/coll/internal/alg"
	"github.com/gocoll/gocoll/coll/internal/core"
	"github.com/gocoll/gocoll/images"
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
	return core.Wait(im.core().Reduce(t, dstImage, dst, src, nil, false, alg.Layout(srcLayout), elemSize, elemCount, fn, arg, f, false))
}

// ReduceNB is the non-blocking Reduce.
func (im *Image) ReduceNB(t *images.Team, dstImage int, dst, src []byte, srcLayout Layout, elemSize, elemCount, fn, arg int, f gsync.Flags) (gsync.Handle, error) {
	return public(im.core().Reduce(t, dstImage, dst, src, nil, false, alg.Layout(srcLayout), elemSize, elemCount, fn, arg, f, true))
}

// ReduceM is Reduce with a source per image.
func (im *Image) ReduceM(t *images.Team, dstImage int, dst []byte, srcs [][]byte, srcLayout Layout, elemSize, elemCount, fn, arg int, f gsync.Flags) error {
	return core.Wait(im.core().Reduce(t, dstImage, dst, nil, srcs, true, alg.Layout(srcLayout), elemSize, elemCount, fn, arg, f, false))
}

// ReduceMNB is the non-blocking ReduceM.
func (im *Image) ReduceMNB(t *images.Team, dstImage int, dst []byte, srcs [][]byte, srcLayout Layout, elemSize, elemCount, fn, arg int, f gsync.Flags) (gsync.Handle, error) {
	return public(im.core().Reduce(t, dstImage, dst, nil, srcs, true, alg.Layout(srcLayout), elemSize, elemCount, fn, arg, f, true))
}

// ReduceAll is Reduce with the result in dst on every image.
func (im *Image) ReduceAll(t *images.Team, dst, src []byte, srcLayout Layout, elemSize, elemCount, fn, arg int, f gsync.Flags) error {
	return core.Wait(im.core().ReduceAll(t, dst, nil, src, nil, false, alg.Layout(srcLayout), elemSize, elemCount, fn, arg, f, false))
}

// ReduceAllNB is the non-blocking ReduceAll.
func (im *Image) ReduceAllNB(t *images.Team, dst, src []byte, srcLayout Layout, elemSize, elemCount, fn, arg int, f gsync.Flags) (gsync.Handle, error) {
	return public(im.core().ReduceAll(t, dst, nil, src, nil, false, alg.Layout(srcLayout), elemSize, elemCount, fn, arg, f, true))
}

// ReduceAllM is ReduceAll with a destination and a source per image.
func (im *Image) ReduceAllM(t *images.Team, dsts, srcs [][]byte, srcLayout Layout, elemSize, elemCount, fn, arg int, f gsync.Flags) error {
	return core.Wait(im.core().ReduceAll(t, nil, dsts, nil, srcs, true, alg.Layout(srcLayout), elemSize, elemCount, fn, arg, f, false))
}

// ReduceAllMNB is the non-blocking ReduceAllM.
func (im *Image) ReduceAllMNB(t *images.Team, dsts, srcs [][]byte, srcLayout Layout, elemSize, elemCount, fn, arg int, f gsync.Flags) (gsync.Handle, error) {
	return public(im.core().ReduceAll(t, nil, dsts, nil, srcs, true, alg.Layout(srcLayout), elemSize, elemCount, fn, arg, f, true))
}

// PrefixReduce sets element j of the destination array (laid out by
// dstLayout, which may differ from srcLayout) to the fold of source elements
// 0..j (an inclusive scan).
func (im *Image) PrefixReduce(t *images.Team, dst []byte, dstLayout Layout, src []byte, srcLayout Layout, elemSize, elemCount, fn, arg int, f gsync.Flags) error {
	return core.Wait(im.core().Prefix(t, dst, nil, alg.Layout(dstLayout), src, nil, false, alg.Layout(srcLayout), elemSize, elemCount, fn, arg, f, false, false))
}

// PrefixReduceNB is the non-blocking PrefixReduce.
func (im *Image) PrefixReduceNB(t *images.Team, dst []byte, dstLayout Layout, src []byte, srcLayout Layout, elemSize, elemCount, fn, arg int, f gsync.Flags) (gsync.Handle, error) {
	return public(im.core().Prefix(t, dst, nil, alg.Layout(dstLayout), src, nil, false, alg.Layout(srcLayout), elemSize, elemCount, fn, arg, f, true, false))
}

// PrefixReduceM is PrefixReduce with a destination and a source per image.
func (im *Image) PrefixReduceM(t *images.Team, dsts [][]byte, dstLayout Layout, srcs [][]byte, srcLayout Layout, elemSize, elemCount, fn, arg int, f gsync.Flags) error {
	return core.Wait(im.core().Prefix(t, nil, dsts, alg.Layout(dstLayout), nil, srcs, true, alg.Layout(srcLayout), elemSize, elemCount, fn, arg, f, false, false))
}

// PrefixReduceMNB is the non-blocking PrefixReduceM.
func (im *Image) PrefixReduceMNB(t *images.Team, dsts [][]byte, dstLayout Layout, srcs [][]byte, srcLayout Layout, elemSize, elemCount, fn, arg int, f gsync.Flags) (gsync.Handle, error) {
	return public(im.core().Prefix(t, nil, dsts, alg.Layout(dstLayout), nil, srcs, true, alg.Layout(srcLayout), elemSize, elemCount, fn, arg, f, true, false))
}

// ExclusivePrefixReduce sets element j of the destination to the fold of
// source elements 0..j-1; element 0 gets no defined value (it is not written).
func (im *Image) ExclusivePrefixReduce(t *images.Team, dst []byte, dstLayout Layout, src []byte, srcLayout Layout, elemSize, elemCount, fn, arg int, f gsync.Flags) error {
	return core.Wait(im.core().Prefix(t, dst, nil, alg.Layout(dstLayout), src, nil, false, alg.Layout(srcLayout), elemSize, elemCount, fn, arg, f, false, true))
}

// ExclusivePrefixReduceNB is the non-blocking ExclusivePrefixReduce.
func (im *Image) ExclusivePrefixReduceNB(t *images.Team, dst []byte, dstLayout Layout, src []byte, srcLayout Layout, elemSize, elemCount, fn, arg int, f gsync.Flags) (gsync.Handle, error) {
	return public(im.core().Prefix(t, dst, nil, alg.Layout(dstLayout), src, nil, false, alg.Layout(srcLayout), elemSize, elemCount, fn, arg, f, true, true))
}

// ExclusivePrefixReduceM is ExclusivePrefixReduce with a destination and a
// source per image.
func (im *Image) ExclusivePrefixReduceM(t *images.Team, dsts [][]byte, dstLayout Layout, srcs [][]byte, srcLayout Layout, elemSize, elemCount, fn, arg int, f gsync.Flags) error {
	return core.Wait(im.core().Prefix(t, nil, dsts, alg.Layout(dstLayout), nil, srcs, true, alg.Layout(srcLayout), elemSize, elemCount, fn, arg, f, false, true))
}

// ExclusivePrefixReduceMNB is the non-blocking ExclusivePrefixReduceM.
func (im *Image) ExclusivePrefixReduceMNB(t *images.Team, dsts [][]byte, dstLayout Layout, srcs [][]byte, srcLayout Layout, elemSize, elemCount, fn, arg int, f gsync.Flags) (gsync.Handle, error) {
	return public(im.core().Prefix(t, nil, dsts, alg.Layout(dstLayout), nil, srcs, true, alg.Layout(srcLayout), elemSize, elemCount, fn, arg, f, true, true))
}
