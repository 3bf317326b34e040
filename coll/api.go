package coll

import (
	"unsafe"

	"github.com/gocoll/gocoll/coll/internal/core"
	"github.com/gocoll/gocoll/images"
	"github.com/gocoll/gocoll/internal/engine"
	gsync "github.com/gocoll/gocoll/sync"
)

// The data-movement collectives. Each has a blocking form and a
// non-blocking ...NB form returning a handle, and a multiple-address ...M
// form (the spec's "m" interfaces); a blocking form is its NB form followed
// by Wait. Arguments follow the spec's prototypes:
//
//   - nbytes is the size of one block, > 0 and the same on every image.
//   - root is a team rank, the same on every image.
//   - With Local addressing an argument that does not apply to the caller
//     (src of Broadcast/Scatter off the root, dst of Gather off the root) is
//     ignored and may be nil. With Single every argument must be given.
//   - A slice always names the caller's own memory (Go has no global address
//     space); Single promises that the arguments agree across images.
//   - Without AllThreads one goroutine per node calls for all of the node's
//     members of the team. The single-address forms then need one image
//     per node; the M forms take one address per image: a list of NImages
//     entries indexed by image number with Single (entries of other nodes'
//     images are not used), of the node's images (entry k for its k-th
//     image) with Local. With AllThreads every member image calls for itself
//     with its own addresses; the M forms then take Single lists only.

// Broadcast copies nbytes of src on the root to dst on every image.
func (im *Image) Broadcast(t *images.Team, dst []byte, root int, src []byte, nbytes int, f gsync.Flags) error {
	return core.Wait(im.core().Broadcast(t, dst, nil, false, root, src, nbytes, f, false))
}

// BroadcastNB is the non-blocking Broadcast.
func (im *Image) BroadcastNB(t *images.Team, dst []byte, root int, src []byte, nbytes int, f gsync.Flags) (gsync.Handle, error) {
	return public(im.core().Broadcast(t, dst, nil, false, root, src, nbytes, f, true))
}

// BroadcastM is Broadcast with a destination per image.
func (im *Image) BroadcastM(t *images.Team, dsts [][]byte, root int, src []byte, nbytes int, f gsync.Flags) error {
	return core.Wait(im.core().Broadcast(t, nil, dsts, true, root, src, nbytes, f, false))
}

// BroadcastMNB is the non-blocking BroadcastM.
func (im *Image) BroadcastMNB(t *images.Team, dsts [][]byte, root int, src []byte, nbytes int, f gsync.Flags) (gsync.Handle, error) {
	return public(im.core().Broadcast(t, nil, dsts, true, root, src, nbytes, f, true))
}

// Scatter sends block i of src (P blocks of nbytes) on the root to dst on
// the image of team rank i.
func (im *Image) Scatter(t *images.Team, dst []byte, root int, src []byte, nbytes int, f gsync.Flags) error {
	return core.Wait(im.core().Scatter(t, dst, nil, false, root, src, nbytes, f, false))
}

// ScatterNB is the non-blocking Scatter.
func (im *Image) ScatterNB(t *images.Team, dst []byte, root int, src []byte, nbytes int, f gsync.Flags) (gsync.Handle, error) {
	return public(im.core().Scatter(t, dst, nil, false, root, src, nbytes, f, true))
}

// ScatterM is Scatter with a destination per image.
func (im *Image) ScatterM(t *images.Team, dsts [][]byte, root int, src []byte, nbytes int, f gsync.Flags) error {
	return core.Wait(im.core().Scatter(t, nil, dsts, true, root, src, nbytes, f, false))
}

// ScatterMNB is the non-blocking ScatterM.
func (im *Image) ScatterMNB(t *images.Team, dsts [][]byte, root int, src []byte, nbytes int, f gsync.Flags) (gsync.Handle, error) {
	return public(im.core().Scatter(t, nil, dsts, true, root, src, nbytes, f, true))
}

// Gather collects src (nbytes) of every image into block i of dst (P
// blocks) on the root, i being the team rank of the source.
func (im *Image) Gather(t *images.Team, root int, dst, src []byte, nbytes int, f gsync.Flags) error {
	return core.Wait(im.core().Gather(t, root, dst, src, nil, false, nbytes, f, false))
}

// GatherNB is the non-blocking Gather.
func (im *Image) GatherNB(t *images.Team, root int, dst, src []byte, nbytes int, f gsync.Flags) (gsync.Handle, error) {
	return public(im.core().Gather(t, root, dst, src, nil, false, nbytes, f, true))
}

// GatherM is Gather with a source per image.
func (im *Image) GatherM(t *images.Team, root int, dst []byte, srcs [][]byte, nbytes int, f gsync.Flags) error {
	return core.Wait(im.core().Gather(t, root, dst, nil, srcs, true, nbytes, f, false))
}

// GatherMNB is the non-blocking GatherM.
func (im *Image) GatherMNB(t *images.Team, root int, dst []byte, srcs [][]byte, nbytes int, f gsync.Flags) (gsync.Handle, error) {
	return public(im.core().Gather(t, root, dst, nil, srcs, true, nbytes, f, true))
}

// GatherAll collects src (nbytes) of every image into block i of dst (P
// blocks) on every image.
func (im *Image) GatherAll(t *images.Team, dst, src []byte, nbytes int, f gsync.Flags) error {
	return core.Wait(im.core().GatherAll(t, dst, nil, src, nil, false, nbytes, f, false))
}

// GatherAllNB is the non-blocking GatherAll.
func (im *Image) GatherAllNB(t *images.Team, dst, src []byte, nbytes int, f gsync.Flags) (gsync.Handle, error) {
	return public(im.core().GatherAll(t, dst, nil, src, nil, false, nbytes, f, true))
}

// GatherAllM is GatherAll with a destination and a source per image.
func (im *Image) GatherAllM(t *images.Team, dsts, srcs [][]byte, nbytes int, f gsync.Flags) error {
	return core.Wait(im.core().GatherAll(t, nil, dsts, nil, srcs, true, nbytes, f, false))
}

// GatherAllMNB is the non-blocking GatherAllM.
func (im *Image) GatherAllMNB(t *images.Team, dsts, srcs [][]byte, nbytes int, f gsync.Flags) (gsync.Handle, error) {
	return public(im.core().GatherAll(t, nil, dsts, nil, srcs, true, nbytes, f, true))
}

// Exchange sends block j of src on the image of team rank i to block i of
// dst on the image of team rank j (P blocks of nbytes each side).
func (im *Image) Exchange(t *images.Team, dst, src []byte, nbytes int, f gsync.Flags) error {
	return core.Wait(im.core().Exchange(t, dst, nil, src, nil, false, nbytes, f, false))
}

// ExchangeNB is the non-blocking Exchange.
func (im *Image) ExchangeNB(t *images.Team, dst, src []byte, nbytes int, f gsync.Flags) (gsync.Handle, error) {
	return public(im.core().Exchange(t, dst, nil, src, nil, false, nbytes, f, true))
}

// ExchangeM is Exchange with a destination and a source per image.
func (im *Image) ExchangeM(t *images.Team, dsts, srcs [][]byte, nbytes int, f gsync.Flags) error {
	return core.Wait(im.core().Exchange(t, nil, dsts, nil, srcs, true, nbytes, f, false))
}

// ExchangeMNB is the non-blocking ExchangeM.
func (im *Image) ExchangeMNB(t *images.Team, dsts, srcs [][]byte, nbytes int, f gsync.Flags) (gsync.Handle, error) {
	return public(im.core().Exchange(t, nil, dsts, nil, srcs, true, nbytes, f, true))
}

// public is h as the handle a user holds: a sync.Handle is a struct of one
// engine.Handle (package sync wraps it to document its methods for users),
// so the two have one layout and the conversion costs nothing
// (TestHandleLayout).
func public(h engine.Handle, err error) (gsync.Handle, error) {
	return *(*gsync.Handle)(unsafe.Pointer(&h)), err
}
