package coll

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/gocoll/gocoll/coll/internal/alg"
	"github.com/gocoll/gocoll/coll/internal/local"
	"github.com/gocoll/gocoll/coll/internal/plan"
	"github.com/gocoll/gocoll/images"
	"github.com/gocoll/gocoll/internal/engine"
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
	paths *pathHook
}

// DefaultOneSidedMin is Options.OneSidedMin when 0: just above 8 KiB,
// where collbench's gocoll.Seg.Broadcast overtakes gocoll.Broadcast at
// np 2 on one host (BENCHMARKS.md).
const DefaultOneSidedMin = 8<<10 + 1

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
	n       *node
	image   int
	allTeam *imageTeam
	teams   map[*images.Team]*imageTeam // the other teams it is a member of
	lists   [2][][]byte                 // a call's buffer lists (dst, src), reused
	closed  bool
	typed   typedEntry // its last typed reduction's entry found by entryFor (typed_reduce.go)
}

// imageTeam is an image's own state for a team it is a member of.
type imageTeam struct {
	tn        *teamNode
	rank      int       // the image's team rank
	member    int       // its index among the node's members (tn.mem)
	creations uint64    // teams made from the team so far
	aggOpen   bool      // its last collective on the team had the Aggregate flag (internal/exec/aggregate.go)
	plan      imagePlan // its last computational call that passed the checks (plans.go)
	// its AllThreads calls on the team; on a team that lives on the node,
	// its state on the node-local path (internal/local)
	local.Member
}

// newImageTeam is the state of the image of team rank rank in team tn.
func newImageTeam(tn *teamNode, rank int) *imageTeam {
	m, _ := slices.BinarySearch(tn.Mem, rank)
	it := &imageTeam{tn: tn, rank: rank, member: m}
	it.Join(tn.loc)
	return it
}

// TeamAll is the team of every image (GASNET_TEAM_ALL).
func (im *Image) TeamAll() *images.Team {
	if im == nil || im.n == nil {
		return nil
	}
	return im.n.all.Team
}

// ImageNum is this image's number.
func (im *Image) ImageNum() int { return im.image }

// Images is the number of images in the job (NImages).
func (im *Image) Images() int { return im.n.table.Images() }

// Node is the node (conduit endpoint, MPI rank) hosting this image.
func (im *Image) Node() int { return im.n.Me }

// Segment is the image's segment (Options.SegmentSize bytes; nil without
// one): data areas in it may be named with SrcInSegment and DstInSegment,
// and then move one-sided (see package documentation).
func (im *Image) Segment() []byte {
	if im.n.Seg == nil {
		return nil
	}
	s := im.n.opts.SegmentSize
	k := im.image - im.n.first
	return im.n.Seg[k*s : (k+1)*s : (k+1)*s]
}

// Table is the images table given to Init.
func (im *Image) Table() *images.Table { return im.n.table }

// Poll makes progress on every outstanding collective of this node.
func (im *Image) Poll() error {
	if err := im.check(); err != nil {
		return err
	}
	return im.n.eng.Poll()
}

// Live is the number of collectives still in progress on this node,
// including synced OUT_NOSYNC ones whose last sends are in flight.
func (im *Image) Live() int { return im.n.eng.Live() }

func (im *Image) check() error {
	switch {
	case im == nil || im.n == nil:
		return ErrNotInitialized
	case im.closed:
		return ErrClosed
	}
	return engine.Reentrant() // not from a reduction function
}

// Close ends the image's use of gocoll: later calls return ErrClosed. It
// is not collective: each image closes for itself (a node's images may
// finish at different times, and nothing between nodes needs to agree on
// when). When the node's last image closes, Close makes progress until
// the node's collectives are finished, which is what the node still owes
// its peers (forwarding, relaxed sends), and then ends the progress agent,
// if any. Handles not synced before Close are left as they are.
func (im *Image) Close() error {
	if err := im.check(); err != nil {
		return err
	}
	for _, it := range im.teams {
		if it.aggOpen {
			return fmt.Errorf("%w: on team %d", ErrAggregateOpen, it.tn.Team.ID())
		}
	}
	if im.allTeam.aggOpen {
		return fmt.Errorf("%w: on TeamAll", ErrAggregateOpen)
	}
	im.closed = true
	n := im.n
	n.mu.Lock()
	n.closed++
	last := n.closed == n.count
	n.mu.Unlock()
	if !last {
		return nil
	}
	if n.opts.Progress != gsync.Polling {
		return n.eng.StopAgent(context.Background())
	}
	return n.eng.Drain(context.Background())
}

// team finds the image's state for t: t must be a live team the image is a
// member of.
func (im *Image) team(t *images.Team) (*imageTeam, error) {
	switch {
	case t == nil:
		return nil, fmt.Errorf("%w: nil", ErrTeam)
	case t == im.allTeam.tn.Team:
		return im.allTeam, nil
	}
	if it := im.teams[t]; it != nil {
		return it, nil
	}
	switch {
	case t.Table() != im.n.table:
		return nil, fmt.Errorf("%w: the team belongs to another job", ErrTeam)
	case !t.Contains(im.image):
		return nil, fmt.Errorf("%w: image %d", ErrNotMember, im.image)
	}
	// A member gets its teams from the calls that make them, so a team that
	// holds this image but is unknown to it is one it destroyed.
	return nil, fmt.Errorf("%w: image %d", ErrTeamDestroyed, im.image)
}

// Barrier is a collective barrier over the team (dissemination between
// nodes), called by every image of the team, like a collective with
// AllThreads. Waiting in it makes progress on every outstanding collective,
// so a batch of OUT_NOSYNC collectives between two Barriers completes.
func (im *Image) Barrier(t *images.Team) error {
	return im.barrier(t, gsync.AllThreads)
}

// NodeBarrier is Barrier called once per node, by one of the node's
// images that is a member of the team, for all of them (for a program
// whose images make their collectives through a representative).
func (im *Image) NodeBarrier(t *images.Team) error {
	return im.barrier(t, 0)
}

func (im *Image) barrier(t *images.Team, threads gsync.Flags) error {
	if err := im.noAggregate(t); err != nil {
		return err
	}
	var a callArgs
	im.args(&a, plan.Barrier, t, 0, 1, gsync.InAllSync|gsync.OutAllSync|gsync.Local|threads, false, threads == 0)
	h, err := im.run(&a)
	if err != nil {
		return err
	}
	return h.Wait(context.Background())
}

// noAggregate fails when the image left an aggregate open on t: what
// follows must not end it (the spec forbids barriers between an
// aggregate's first and last members; a team's creation or destruction
// would run inside it).
func (im *Image) noAggregate(t *images.Team) error {
	if im.check() != nil {
		return nil // the caller reports it
	}
	if it, err := im.team(t); err == nil && it.aggOpen {
		return ErrAggregateOpen
	}
	return nil
}
