package coll

import (
	"github.com/gocoll/gocoll/coll/internal/core"
	"github.com/gocoll/gocoll/images"
	gsync "github.com/gocoll/gocoll/sync"
)

// The v-variants (MPI_Gatherv, MPI_Scatterv, MPI_Allgatherv,
// MPI_Alltoallv): a block per team rank of its own length. counts[r] is
// the length of rank r's block and displs[r] where it lies in the buffer
// that holds a block per rank (the root's dst of GatherV, its src of
// ScatterV, every image's dst of GatherAllV); an image's own block is the
// first counts[rank] bytes of its other buffer. Counts may be zero, and
// displacements may leave gaps (left untouched) and put blocks in any
// order; the blocks of a destination may not overlap (ErrOverlap).
//
//   - counts has one entry per rank and is the same on every image of the
//     team (as the message headers and checked mode check: ErrMismatch);
//     displacements are each image's own, and apply only where the buffer
//     does (displs may be nil off the root of GatherV and ScatterV, unless
//     f has Single).
//   - ExchangeV takes each image's own send counts and displacements
//     (into src) and receive counts and displacements (into dst), as
//     MPI_Alltoallv: what image i sends image j is what j receives from i
//     (a length that differs is ErrMismatch where a message carries it).
//   - Bad counts or displacements (a negative one, a list of the wrong
//     length, a block outside its buffer) are ErrCounts.
//
// With several images per node, each calls with AllThreads, or one calls
// for the node's images by the m forms of GatherV, ScatterV and GatherAllV
// (a buffer per image where each image has its own, one list of counts
// and displacements for all: ExchangeV's, each image's own, have no m
// form). Counts and displacements, like the buffers, must not change
// until the call is synced. The typed forms (GatherVOf, ...) count in
// elements.

// GatherV gathers every image's block (src[:counts[rank]]) into dst on
// the root, at displs (MPI_Gatherv).
func (im *Image) GatherV(t *images.Team, root int, dst []byte, counts, displs []int, src []byte, f gsync.Flags) error {
	return core.Wait(im.core().GatherV(t, root, dst, counts, displs, src, nil, false, 1, f, false))
}

// GatherVNB is the non-blocking GatherV.
func (im *Image) GatherVNB(t *images.Team, root int, dst []byte, counts, displs []int, src []byte, f gsync.Flags) (gsync.Handle, error) {
	return public(im.core().GatherV(t, root, dst, counts, displs, src, nil, false, 1, f, true))
}

// ScatterV gives every image its block of the root's src (at displs) in
// dst[:counts[rank]] (MPI_Scatterv).
func (im *Image) ScatterV(t *images.Team, dst []byte, root int, src []byte, counts, displs []int, f gsync.Flags) error {
	return core.Wait(im.core().ScatterV(t, dst, nil, false, root, src, counts, displs, 1, f, false))
}

// ScatterVNB is the non-blocking ScatterV.
func (im *Image) ScatterVNB(t *images.Team, dst []byte, root int, src []byte, counts, displs []int, f gsync.Flags) (gsync.Handle, error) {
	return public(im.core().ScatterV(t, dst, nil, false, root, src, counts, displs, 1, f, true))
}

// GatherAllV gathers every image's block (src[:counts[rank]]) into dst on
// every image, at its displs (MPI_Allgatherv).
func (im *Image) GatherAllV(t *images.Team, dst []byte, counts, displs []int, src []byte, f gsync.Flags) error {
	return core.Wait(im.core().GatherAllV(t, dst, nil, counts, displs, src, nil, false, 1, f, false))
}

// GatherAllVNB is the non-blocking GatherAllV.
func (im *Image) GatherAllVNB(t *images.Team, dst []byte, counts, displs []int, src []byte, f gsync.Flags) (gsync.Handle, error) {
	return public(im.core().GatherAllV(t, dst, nil, counts, displs, src, nil, false, 1, f, true))
}

// GatherVM is GatherV with a source per image.
func (im *Image) GatherVM(t *images.Team, root int, dst []byte, counts, displs []int, srcs [][]byte, f gsync.Flags) error {
	return core.Wait(im.core().GatherV(t, root, dst, counts, displs, nil, srcs, true, 1, f, false))
}

// GatherVMNB is the non-blocking GatherVM.
func (im *Image) GatherVMNB(t *images.Team, root int, dst []byte, counts, displs []int, srcs [][]byte, f gsync.Flags) (gsync.Handle, error) {
	return public(im.core().GatherV(t, root, dst, counts, displs, nil, srcs, true, 1, f, true))
}

// ScatterVM is ScatterV with a destination per image.
func (im *Image) ScatterVM(t *images.Team, dsts [][]byte, root int, src []byte, counts, displs []int, f gsync.Flags) error {
	return core.Wait(im.core().ScatterV(t, nil, dsts, true, root, src, counts, displs, 1, f, false))
}

// ScatterVMNB is the non-blocking ScatterVM.
func (im *Image) ScatterVMNB(t *images.Team, dsts [][]byte, root int, src []byte, counts, displs []int, f gsync.Flags) (gsync.Handle, error) {
	return public(im.core().ScatterV(t, nil, dsts, true, root, src, counts, displs, 1, f, true))
}

// GatherAllVM is GatherAllV with a destination and a source per image;
// every destination has the blocks at displs.
func (im *Image) GatherAllVM(t *images.Team, dsts [][]byte, counts, displs []int, srcs [][]byte, f gsync.Flags) error {
	return core.Wait(im.core().GatherAllV(t, nil, dsts, counts, displs, nil, srcs, true, 1, f, false))
}

// GatherAllVMNB is the non-blocking GatherAllVM.
func (im *Image) GatherAllVMNB(t *images.Team, dsts [][]byte, counts, displs []int, srcs [][]byte, f gsync.Flags) (gsync.Handle, error) {
	return public(im.core().GatherAllV(t, nil, dsts, counts, displs, nil, srcs, true, 1, f, true))
}

// ExchangeV sends every image j the block src[sendDispls[j]:][:sendCounts[j]]
// and receives from every image i the block dst[recvDispls[i]:][:recvCounts[i]]
// (MPI_Alltoallv).
func (im *Image) ExchangeV(t *images.Team, dst []byte, recvCounts, recvDispls []int, src []byte, sendCounts, sendDispls []int, f gsync.Flags) error {
	return core.Wait(im.core().ExchangeV(t, dst, recvCounts, recvDispls, src, sendCounts, sendDispls, 1, f, false))
}

// ExchangeVNB is the non-blocking ExchangeV.
func (im *Image) ExchangeVNB(t *images.Team, dst []byte, recvCounts, recvDispls []int, src []byte, sendCounts, sendDispls []int, f gsync.Flags) (gsync.Handle, error) {
	return public(im.core().ExchangeV(t, dst, recvCounts, recvDispls, src, sendCounts, sendDispls, 1, f, true))
}

// GatherVOf is GatherV over []T, counts and displacements in elements.
func GatherVOf[T any](im *Image, t *images.Team, root int, dst []T, counts, displs []int, src []T, f gsync.Flags) error {
	es, err := elemSize[T]()
	if err != nil {
		return err
	}
	return core.Wait(im.core().GatherV(t, root, bytesView(dst), counts, displs, bytesView(src), nil, false, es, f, false))
}

// GatherVOfNB is the non-blocking GatherVOf.
func GatherVOfNB[T any](im *Image, t *images.Team, root int, dst []T, counts, displs []int, src []T, f gsync.Flags) (gsync.Handle, error) {
	es, err := elemSize[T]()
	if err != nil {
		return gsync.Handle{}, err
	}
	return public(im.core().GatherV(t, root, bytesView(dst), counts, displs, bytesView(src), nil, false, es, f, true))
}

// ScatterVOf is ScatterV over []T, counts and displacements in elements.
func ScatterVOf[T any](im *Image, t *images.Team, dst []T, root int, src []T, counts, displs []int, f gsync.Flags) error {
	es, err := elemSize[T]()
	if err != nil {
		return err
	}
	return core.Wait(im.core().ScatterV(t, bytesView(dst), nil, false, root, bytesView(src), counts, displs, es, f, false))
}

// ScatterVOfNB is the non-blocking ScatterVOf.
func ScatterVOfNB[T any](im *Image, t *images.Team, dst []T, root int, src []T, counts, displs []int, f gsync.Flags) (gsync.Handle, error) {
	es, err := elemSize[T]()
	if err != nil {
		return gsync.Handle{}, err
	}
	return public(im.core().ScatterV(t, bytesView(dst), nil, false, root, bytesView(src), counts, displs, es, f, true))
}

// GatherAllVOf is GatherAllV over []T, counts and displacements in
// elements.
func GatherAllVOf[T any](im *Image, t *images.Team, dst []T, counts, displs []int, src []T, f gsync.Flags) error {
	es, err := elemSize[T]()
	if err != nil {
		return err
	}
	return core.Wait(im.core().GatherAllV(t, bytesView(dst), nil, counts, displs, bytesView(src), nil, false, es, f, false))
}

// GatherAllVOfNB is the non-blocking GatherAllVOf.
func GatherAllVOfNB[T any](im *Image, t *images.Team, dst []T, counts, displs []int, src []T, f gsync.Flags) (gsync.Handle, error) {
	es, err := elemSize[T]()
	if err != nil {
		return gsync.Handle{}, err
	}
	return public(im.core().GatherAllV(t, bytesView(dst), nil, counts, displs, bytesView(src), nil, false, es, f, true))
}

// ExchangeVOf is ExchangeV over []T, counts and displacements in elements.
func ExchangeVOf[T any](im *Image, t *images.Team, dst []T, recvCounts, recvDispls []int, src []T, sendCounts, sendDispls []int, f gsync.Flags) error {
	es, err := elemSize[T]()
	if err != nil {
		return err
	}
	return core.Wait(im.core().ExchangeV(t, bytesView(dst), recvCounts, recvDispls, bytesView(src), sendCounts, sendDispls, es, f, false))
}

// ExchangeVOfNB is the non-blocking ExchangeVOf.
func ExchangeVOfNB[T any](im *Image, t *images.Team, dst []T, recvCounts, recvDispls []int, src []T, sendCounts, sendDispls []int, f gsync.Flags) (gsync.Handle, error) {
	es, err := elemSize[T]()
	if err != nil {
		return gsync.Handle{}, err
	}
	return public(im.core().ExchangeV(t, bytesView(dst), recvCounts, recvDispls, bytesView(src), sendCounts, sendDispls, es, f, true))
}
