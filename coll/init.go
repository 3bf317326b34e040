package coll

import (
	"github.com/gocoll/gocoll/coll/internal/core"
	"github.com/gocoll/gocoll/images"
	"github.com/gocoll/gocoll/reducefn"
)

// DefaultInitTimeout bounds how long Init waits for the other images of
// the node and for the other nodes when Options.InitTimeout is 0.
const DefaultInitTimeout = core.DefaultInitTimeout

// DefaultStallTimeout is how long a wait may see no progress before it
// fails with ErrStalled, when neither Options.StallTimeout nor GOCOLL_STALL
// says otherwise. Progress is counted only while the node waits, so the
// time is spent by the node's peers: a peer that computes or writes a
// checkpoint for longer before it enters the collective trips it. Ten
// minutes is far beyond the seconds that phases between collectives take
// in the codes gocoll serves, and well inside the hours a batch
// allocation lasts, so that a skipped call, an image that returned early
// or a dead peer ends the job with an error naming the peers it waits for
// instead of burning the allocation in a hang. Codes with longer phases on
// one image raise it or turn it off (GOCOLL_STALL=off).
const DefaultStallTimeout = core.DefaultStallTimeout

// Init initializes gocoll's collectives over conduit c for one image. It is
// collective and blocking, like gasnet_coll_init: every image of every
// node calls it once, from its own goroutine, with the same images table
// (nil for one image per node, then myImage is ignored), the same function
// table size and flags, flags 0 and the same options. myImage is the
// calling image's number, one of the node's images in the table's
// node-major numbering. It returns that image's object, through which the
// image (or, for the node's images together, a representative) calls
// collectives. The node keeps its own copy of the function table fns (the
// first image's): changing fns afterwards changes nothing.
//
// Init waits up to Options.InitTimeout (DefaultInitTimeout when 0) for the
// node's other images and for the other nodes; then it fails with
// ErrInitTimeout, on every image of the node, rather than hang.
func Init(c Conduit, table *images.Table, myImage int, fns []reducefn.Entry, flags InitFlags, opts Options) (*Image, error) {
	ci, err := core.Init(c, table, myImage, fns, uint32(flags), opts.config(), core.Table{Entries: std.entries, Own: std.own})
	if err != nil {
		return nil, err
	}
	return &Image{c: ci}, nil
}
