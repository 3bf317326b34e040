package core

import (
	"fmt"
	"os"
	"time"

	gsync "github.com/gocoll/gocoll/sync"

	"github.com/gocoll/gocoll/coll/internal/exec"
	"github.com/gocoll/gocoll/images"
	"github.com/gocoll/gocoll/reducefn"
)

// DefaultInitTimeout is coll.DefaultInitTimeout.
const DefaultInitTimeout = time.Minute

// DefaultOneSidedMin is coll.DefaultOneSidedMin.
const DefaultOneSidedMin = 8<<10 + 1

// Table is the standard table of reduction functions (coll's operators),
// at index base StdBase of every node's table.
type Table struct {
	Entries []reducefn.Entry
	Own     []bool // by entry: a ready-made one (reducefn.Entry.Own)
}

// StdBase is the index of the standard table's first entry.
const StdBase = 1 << 24

// Init is coll.Init, with the standard table std.
func Init(c Conduit, table *images.Table, myImage int, fns []reducefn.Entry, flags uint32, opts Config, std Table) (*Image, error) {
	if c == nil {
		return nil, fmt.Errorf("%w: nil conduit", ErrConduit)
	}
	if _, err := envStall(); err != nil {
		return nil, err
	}
	if flags != 0 {
		return nil, fmt.Errorf("%w: got %#x", ErrInitFlags, flags)
	}
	if os.Getenv("GOCOLL_CHECK") == "1" {
		opts.Check = true
	}
	if table == nil {
		table = images.OnePerNode(c.Nodes())
		myImage = table.First(c.Node())
	}
	if table.Nodes() != c.Nodes() {
		return nil, fmt.Errorf("%w: images table has %d nodes, conduit %d", ErrConduit, table.Nodes(), c.Nodes())
	}
	if myImage < 0 || myImage >= table.Images() || table.NodeOf(myImage) != c.Node() {
		return nil, fmt.Errorf("%w: image %d is not one of node %d's images %d..%d", ErrImage,
			myImage, c.Node(), table.First(c.Node()), table.First(c.Node())+table.On(c.Node())-1)
	}
	if opts.SegmentSize < 0 || opts.OneSidedMin < 0 {
		return nil, fmt.Errorf("%w: SegmentSize %d, OneSidedMin %d: must be >= 0", ErrOptions, opts.SegmentSize, opts.OneSidedMin)
	}
	if opts.OneSidedMin == 0 {
		opts.OneSidedMin = DefaultOneSidedMin
	}
	if opts.Progress != gsync.Polling {
		if ts, ok := c.(threadSafe); ok && !ts.ThreadMultiple() {
			return nil, fmt.Errorf("%w: progress mode %v needs a conduit callable from any thread (MPI_THREAD_MULTIPLE)", ErrProgress, opts.Progress)
		}
		if opts.Progress != gsync.Goroutine && opts.Progress != gsync.Periodic {
			return nil, fmt.Errorf("%w: unknown mode %v", ErrProgress, opts.Progress)
		}
	}
	ctxBits := bitsOf(c.MaxTag()) - exec.SeqBits - exec.SubBits
	if ctxBits < 0 {
		return nil, fmt.Errorf("%w: MaxTag %d leaves no room for %d-bit sequence numbers and %d-bit sub-tags",
			ErrConduit, c.MaxTag(), exec.SeqBits, exec.SubBits)
	}
	// The node's first image makes the node; the others find it (a node
	// holds an engine and an image map of TeamAll: not one per image).
	v, loaded := nodes.Load(c)
	if !loaded {
		v, loaded = nodes.LoadOrStore(c, newNode(c, table, fns, opts, ctxBits, std))
	}
	n := v.(*node)
	if loaded {
		if err := n.sameArgs(table, fns, opts); err != nil {
			return nil, err
		}
	}
	im, last, err := n.join(myImage)
	if err != nil {
		return nil, err
	}
	if last {
		n.finishInit(im, len(fns))
	}
	if err := n.awaitInit(); err != nil {
		return nil, err
	}
	return im, nil
}
