package coll

import (
	"time"

	"github.com/gocoll/gocoll/coll/internal/alg"
	"github.com/gocoll/gocoll/coll/internal/core"
	"github.com/gocoll/gocoll/loggp"
	gsync "github.com/gocoll/gocoll/sync"
)

// Options choose algorithms; the zero value picks them by the rules in the
// package documentation. Every image of every node passes the same Options.
type Options struct {
	// Tree forces the shape of broadcast, scatter, gather and the
	// tree-based reductions; TreeAuto (the default) lets the cost model
	// choose (select.go).
	Tree Tree
	// GatherAll forces an algorithm for gather_all (default GatherAllAuto).
	GatherAll GatherAllAlgo
	// A, when above 0, chooses the gather_all algorithm by the LogP rule
	// of the package documentation with A = L/max(o,g) in whole units,
	// instead of the cost model.
	A int
	// Model are the cost model's parameters, fitted to the machine (for
	// example by cmd/collbench --model); the zero value means
	// loggp.Default. The default choices of algorithm follow from them.
	Model loggp.Params
	// InitTimeout bounds Init's wait for the node's other images and the
	// other nodes; 0 means DefaultInitTimeout.
	InitTimeout time.Duration
	// Progress says who advances the node's collectives: sync.Polling
	// (the default: the node's own calls), sync.Goroutine or sync.Periodic
	// (an agent goroutine; see package sync), every ProgressInterval for
	// Periodic (0: sync.DefaultInterval). The agent modes need a conduit
	// that may be called from any thread (MPI_THREAD_MULTIPLE).
	Progress         gsync.ProgressMode
	ProgressInterval time.Duration
	// SegmentSize is the size in bytes of every image's segment
	// (Image.Segment): memory that peers write and read one-sided, which
	// the SrcInSegment and DstInSegment flags name. 0: no segment. The
	// conduit must implement OneSided.
	SegmentSize int
	// OneSidedMin is the size in bytes from which a transfer between
	// in-segment data areas moves one-sided; smaller ones move as
	// messages, as off the segment: the one-sided path pays a control
	// message before the data (the receiver's offset), which costs more
	// than the copy a small message saves. 0: DefaultOneSidedMin; 1: every
	// transfer one-sided. The same on every node.
	OneSidedMin int
	// Check turns on checked mode: before a collective moves data, its
	// images agree on its arguments, and a disagreement is ErrMismatch on
	// every image of the team (check.go). GOCOLL_CHECK=1 in the
	// environment turns it on too (Init sets it before the nodes agree on
	// their options, so every node must have it alike).
	Check bool
	// StallTimeout is how long a wait (Wait, WaitAll, WaitSome, a blocking
	// collective, Close) may see no progress on what it waits for before
	// it fails with ErrStalled, naming the collective, its sequence number
	// on the team (counted from 0 at the team's creation, as on the wire:
	// on TeamAll, Init's agreement is #0; Split and TeamFromImages take
	// two on the parent; on a team within one node, which sends nothing,
	// its number among the team's AllThreads calls) and the images it
	// waits for. 0 means the environment's GOCOLL_STALL (a duration, or 0
	// or off for none) when set, else DefaultStallTimeout; negative means
	// none.
	StallTimeout time.Duration

	// paths is a test's hold on the selector (select.go); nil outside tests.
	paths *core.PathHook
}

// DefaultOneSidedMin is Options.OneSidedMin when 0: just above 8 KiB,
// where collbench's gocoll.Seg.Broadcast overtakes gocoll.Broadcast at
// np 2 on one host (BENCHMARKS.md).
const DefaultOneSidedMin = core.DefaultOneSidedMin

// GatherAllAlgo names a gather_all algorithm.
type GatherAllAlgo int

const (
	// GatherAllAuto chooses by P and A (see the package documentation).
	GatherAllAuto = GatherAllAlgo(alg.GatherAllAuto)
	// GatherAllDissemination: ceil(lg P) rounds, doubling the data each round.
	GatherAllDissemination = GatherAllAlgo(alg.GatherAllDissemination)
	// GatherAllExchange: P-1 steps, node p sends its block to (p+i) mod P.
	GatherAllExchange = GatherAllAlgo(alg.GatherAllExchange)
)

// InitFlags are the flags of Init; the spec reserves them and requires 0.
type InitFlags uint32

// Image is an image's handle on gocoll's collectives, returned by Init. An
// Image belongs to the goroutine that called Init for it: that goroutine
// (or one it hands the Image to, one at a time) makes its calls. Its zero
// value is not initialized: every collective on it returns
// ErrNotInitialized.
type Image struct {
	c      *core.Image
	typed  typedEntry                     // its last typed reduction's entry found by entryFor (typed_reduce.go)
	blocks struct{ counts, displs []int } // lists of equal blocks (equalBlocks, reducescatter.go)
}

// core is the image's state; a nil or zero Image has a zero one, on which
// every call fails with ErrNotInitialized.
func (im *Image) core() *core.Image {
	if im == nil || im.c == nil {
		return new(core.Image)
	}
	return im.c
}

// config is o in the types of the layers below.
func (o Options) config() core.Config {
	return core.Config{Tree: alg.Tree(o.Tree), GatherAll: alg.GatherAllAlgo(o.GatherAll), A: o.A, Model: o.Model,
		InitTimeout: o.InitTimeout, Progress: o.Progress, ProgressInterval: o.ProgressInterval,
		SegmentSize: o.SegmentSize, OneSidedMin: o.OneSidedMin, Check: o.Check, StallTimeout: o.StallTimeout, Paths: o.paths}
}

// TreeUse says what a tree's edges carry, for the cost of its shape.
type TreeUse int

const (
	// TreeBroadcast: every edge carries the message (broadcast).
	TreeBroadcast TreeUse = TreeUse(core.TreeBroadcast)
	// TreeBlocks: an edge carries the blocks of its subtree (scatter,
	// gather).
	TreeBlocks TreeUse = TreeUse(core.TreeBlocks)
	// TreeReduce: every edge carries a partial, folded at its end (reduce,
	// the tree-based prefix reductions).
	TreeReduce TreeUse = TreeUse(core.TreeReduce)
)

// TreeFor is the tree shape a collective of that use over P nodes moving
// k bytes per edge (per block for TreeBlocks) runs with these options:
// Options.Tree, or the model's pick among the shapes (Binomial on ties).
func (o Options) TreeFor(use TreeUse, P, k int) Tree {
	return Tree(o.config().TreeFor(core.TreeUse(use), P, k))
}

// GatherAllFor is gather_all's pattern for P nodes of k bytes each:
// Options.GatherAll when it forces one; with Options.A set, the LogP rule
// of the package documentation; else the model's cheaper pattern (the
// exchange on ties).
func (o Options) GatherAllFor(P, k int) GatherAllAlgo {
	return GatherAllAlgo(o.config().GatherAllFor(P, k))
}

// SplitsReduceAll reports whether ReduceAll of k bytes over P nodes splits
// the vector (reduce-scatter + gather_all, where the function and layout
// allow it) rather than exchanging it whole (recursive doubling): where
// the model predicts it faster. The split folds 1/P of the vector on each
// node and moves fewer bytes, at the price of more messages.
func (o Options) SplitsReduceAll(P, k int) bool { return o.config().SplitsReduceAll(P, k) }
