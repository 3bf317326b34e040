package coll

import (
	"fmt"

	"github.com/gocoll/gocoll/coll/internal/core"
	"github.com/gocoll/gocoll/images"
	gsync "github.com/gocoll/gocoll/sync"
)

// The reduce-scatters (MPI_Reduce_scatter, MPI_Reduce_scatter_block):
// every image of team t brings a vector src of the counts' total elements,
// the same length everywhere; the vectors are folded lane by lane in rank
// order (as ReduceAllOf folds them), and the image of team rank r gets
// lanes [counts[0]+...+counts[r-1], ...+counts[r]) of the fold in
// dst[:counts[r]]. counts is the same on every image (as for the
// v-variants: see GatherV); zero counts are fine, a zero total is
// ErrCounts. dst may not overlap src. Each image's part is folded once, by
// its node, and moves once.

// ReduceScatter is the reduce-scatter of elements of elemSize bytes by
// function fn of the registered table, with argument arg; counts are in
// elements. The function must combine scalars one by one (its entry's
// Scalar > 0, elemSize a whole number of them): the vectors are split.
func (im *Image) ReduceScatter(t *images.Team, dst, src []byte, counts []int, elemSize, fn, arg int, f gsync.Flags) error {
	return core.Wait(im.core().ReduceScatter(t, dst, nil, src, nil, false, counts, elemSize, fn, arg, f, false, false))
}

// ReduceScatterNB is the non-blocking ReduceScatter.
func (im *Image) ReduceScatterNB(t *images.Team, dst, src []byte, counts []int, elemSize, fn, arg int, f gsync.Flags) (gsync.Handle, error) {
	return public(im.core().ReduceScatter(t, dst, nil, src, nil, false, counts, elemSize, fn, arg, f, true, false))
}

// ReduceScatterM is ReduceScatter with a destination and a source per
// image.
func (im *Image) ReduceScatterM(t *images.Team, dsts, srcs [][]byte, counts []int, elemSize, fn, arg int, f gsync.Flags) error {
	return core.Wait(im.core().ReduceScatter(t, nil, dsts, nil, srcs, true, counts, elemSize, fn, arg, f, false, false))
}

// ReduceScatterMNB is the non-blocking ReduceScatterM.
func (im *Image) ReduceScatterMNB(t *images.Team, dsts, srcs [][]byte, counts []int, elemSize, fn, arg int, f gsync.Flags) (gsync.Handle, error) {
	return public(im.core().ReduceScatter(t, nil, dsts, nil, srcs, true, counts, elemSize, fn, arg, f, true, false))
}

// ReduceScatterOf is the reduce-scatter of []T by op (MPI_Reduce_scatter).
func ReduceScatterOf[T any](im *Image, t *images.Team, dst, src []T, counts []int, op Op, f gsync.Flags) error {
	es, fn, arg, err := laneOp[T](im, op)
	if err != nil {
		return err
	}
	return core.Wait(im.core().ReduceScatter(t, bytesView(dst), nil, bytesView(src), nil, false, counts, es, fn, arg, f, false, true))
}

// ReduceScatterOfNB is the non-blocking ReduceScatterOf.
func ReduceScatterOfNB[T any](im *Image, t *images.Team, dst, src []T, counts []int, op Op, f gsync.Flags) (gsync.Handle, error) {
	es, fn, arg, err := laneOp[T](im, op)
	if err != nil {
		return gsync.Handle{}, err
	}
	return public(im.core().ReduceScatter(t, bytesView(dst), nil, bytesView(src), nil, false, counts, es, fn, arg, f, true, true))
}

// ReduceScatterBlockOf is ReduceScatterOf with len(dst) elements for every
// image (MPI_Reduce_scatter_block): src has len(dst) times the team's size.
func ReduceScatterBlockOf[T any](im *Image, t *images.Team, dst, src []T, op Op, f gsync.Flags) error {
	counts, err := im.blockCounts(t, len(dst))
	if err != nil {
		return err
	}
	return ReduceScatterOf(im, t, dst, src, counts, op, f)
}

// ReduceScatterBlockOfNB is the non-blocking ReduceScatterBlockOf.
func ReduceScatterBlockOfNB[T any](im *Image, t *images.Team, dst, src []T, op Op, f gsync.Flags) (gsync.Handle, error) {
	counts, err := im.blockCounts(t, len(dst))
	if err != nil {
		return gsync.Handle{}, err
	}
	return ReduceScatterOfNB(im, t, dst, src, counts, op, f)
}

// laneOp is op on T for a reduce-scatter: the element size and the
// standard table's entry.
func laneOp[T any](im *Image, op Op) (es, fn, arg int, err error) {
	if es, err = elemSize[T](); err != nil {
		return 0, 0, 0, err
	}
	fn, arg, err = opFor[T](im, op)
	return es, fn, arg, err
}

// blockCounts is a count of n for each of t's ranks (equalBlocks).
func (im *Image) blockCounts(t *images.Team, n int) ([]int, error) {
	if t == nil {
		return nil, fmt.Errorf("%w: nil", ErrTeam)
	}
	if im == nil {
		return nil, ErrNotInitialized
	}
	counts, _ := im.equalBlocks(t.Size(), n)
	return counts, nil
}

// equalBlocks are the counts and displacements of m blocks of n, one
// after another. The lists are the image's, made again only when m or n
// changes, and never written after: an NB call's record may still read
// them after the call returned.
func (im *Image) equalBlocks(m, n int) (counts, displs []int) {
	b := &im.blocks
	if len(b.counts) != m || (m > 0 && b.counts[0] != n) {
		b.counts, b.displs = make([]int, m), make([]int, m)
		for i := range m {
			b.counts[i], b.displs[i] = n, i*n
		}
	}
	return b.counts, b.displs
}
