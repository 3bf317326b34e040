package coll

import (
	"fmt"

	"github.com/gocoll/gocoll/coll/internal/core"
	"github.com/gocoll/gocoll/images"
	"github.com/gocoll/gocoll/internal/engine"
	gsync "github.com/gocoll/gocoll/sync"
)

// The neighbour exchanges (MPI_Neighbor_alltoall and MPI_Neighbor_alltoallv
// on a Cartesian communicator): every image of grid g's team exchanges a
// block with each of its neighbours at once, in the order of
// g.Neighbors: block i of src goes to neighbour i, and block i of dst
// comes from neighbour i. What an image sends its neighbour below in a
// dimension, that neighbour receives from the one above it, and the
// other way round; in a periodic dimension of two both neighbours are the
// same image, and of one the image itself. The blocks of a direction with
// no neighbour (images.NoNeighbor) are not touched.
//
// Messages go only between the nodes of neighbours: one each way per pair
// of such nodes, whatever the number of blocks. Every image of the team
// calls with the same grid (its dims and periodicities; ErrMismatch
// otherwise). The sync modes are every collective's: with InMySync and
// OutMySync an image waits only on its neighbours, which is what a halo
// exchange needs. The single-address forms only: each image's lists are
// its own (with several images per node, each calls with AllThreads).

// NeighborExchange sends block i of src (g.NumNeighbors() blocks of
// nbytes) to neighbour i and receives neighbour i's block for this image
// in block i of dst.
func (im *Image) NeighborExchange(g *images.Grid, dst, src []byte, nbytes int, f gsync.Flags) error {
	return core.Wait(im.neighborEqual(g, dst, src, nbytes, 1, f, false))
}

// NeighborExchangeNB is the non-blocking NeighborExchange.
func (im *Image) NeighborExchangeNB(g *images.Grid, dst, src []byte, nbytes int, f gsync.Flags) (gsync.Handle, error) {
	return public(im.neighborEqual(g, dst, src, nbytes, 1, f, true))
}

// NeighborExchangeV sends block i of src (sendCounts[i] bytes at
// sendDispls[i]) to neighbour i and receives neighbour i's block for this
// image at recvDispls[i] of dst, recvCounts[i] bytes: what an image
// sends, its neighbour receives in the opposite direction (ErrMismatch
// where the lengths differ and a message or the node sees it). Lists have
// one entry per neighbour, entries of directions without one included
// (their blocks are checked but not touched). dst and src may be the same
// array, as long as no block received overlaps a block sent: a halo
// exchange in place.
func (im *Image) NeighborExchangeV(g *images.Grid, dst []byte, recvCounts, recvDispls []int, src []byte, sendCounts, sendDispls []int, f gsync.Flags) error {
	return core.Wait(im.core().NeighborExchange(g, dst, recvCounts, recvDispls, src, sendCounts, sendDispls, 1, f, false))
}

// NeighborExchangeVNB is the non-blocking NeighborExchangeV.
func (im *Image) NeighborExchangeVNB(g *images.Grid, dst []byte, recvCounts, recvDispls []int, src []byte, sendCounts, sendDispls []int, f gsync.Flags) (gsync.Handle, error) {
	return public(im.core().NeighborExchange(g, dst, recvCounts, recvDispls, src, sendCounts, sendDispls, 1, f, true))
}

// NeighborExchangeOf is NeighborExchange over []T, count elements per
// block.
func NeighborExchangeOf[T any](im *Image, g *images.Grid, dst, src []T, count int, f gsync.Flags) error {
	es, err := elemSize[T]()
	if err != nil {
		return err
	}
	return core.Wait(im.neighborEqual(g, bytesView(dst), bytesView(src), count, es, f, false))
}

// NeighborExchangeOfNB is the non-blocking NeighborExchangeOf.
func NeighborExchangeOfNB[T any](im *Image, g *images.Grid, dst, src []T, count int, f gsync.Flags) (gsync.Handle, error) {
	es, err := elemSize[T]()
	if err != nil {
		return gsync.Handle{}, err
	}
	return public(im.neighborEqual(g, bytesView(dst), bytesView(src), count, es, f, true))
}

// NeighborExchangeVOf is NeighborExchangeV over []T, counts and
// displacements in elements.
func NeighborExchangeVOf[T any](im *Image, g *images.Grid, dst []T, recvCounts, recvDispls []int, src []T, sendCounts, sendDispls []int, f gsync.Flags) error {
	es, err := elemSize[T]()
	if err != nil {
		return err
	}
	return core.Wait(im.core().NeighborExchange(g, bytesView(dst), recvCounts, recvDispls, bytesView(src), sendCounts, sendDispls, es, f, false))
}

// NeighborExchangeVOfNB is the non-blocking NeighborExchangeVOf.
func NeighborExchangeVOfNB[T any](im *Image, g *images.Grid, dst []T, recvCounts, recvDispls []int, src []T, sendCounts, sendDispls []int, f gsync.Flags) (gsync.Handle, error) {
	es, err := elemSize[T]()
	if err != nil {
		return gsync.Handle{}, err
	}
	return public(im.core().NeighborExchange(g, bytesView(dst), recvCounts, recvDispls, bytesView(src), sendCounts, sendDispls, es, f, true))
}

// neighborEqual is the neighbour exchange of blocks of n units each, one
// after another in src and dst.
func (im *Image) neighborEqual(g *images.Grid, dst, src []byte, n, unit int, f gsync.Flags, nb bool) (engine.Handle, error) {
	switch {
	case im == nil:
		return engine.Handle{}, ErrNotInitialized
	case g == nil:
		return engine.Handle{}, fmt.Errorf("%w: nil grid", images.ErrGrid)
	case n <= 0:
		return engine.Handle{}, fmt.Errorf("%w: got %d", ErrNBytes, n)
	}
	counts, displs := im.equalBlocks(g.NumNeighbors(), n)
	return im.core().NeighborExchange(g, dst, counts, displs, src, counts, displs, unit, f, nb)
}
