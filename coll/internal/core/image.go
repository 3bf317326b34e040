package core

import (
	"context"
	"fmt"
	"slices"

	"github.com/gocoll/gocoll/coll/internal/local"
	"github.com/gocoll/gocoll/coll/internal/plan"
	"github.com/gocoll/gocoll/images"
	"github.com/gocoll/gocoll/internal/engine"
	gsync "github.com/gocoll/gocoll/sync"
)

// Image is an image's state: what coll.Image holds (its documentation says
// how an image is used). A nil or zero Image is not initialized.
type Image struct {
	n       *node
	image   int
	allTeam *imageTeam
	teams   map[*images.Team]*imageTeam // the other teams it is a member of
	lists   [2][][]byte                 // a call's buffer lists (dst, src), reused
	vlist   []plan.VArgs                // a v-call's extents by member, reused
	closed  bool
	rec     *Plan // the plan being made: its call is recorded, not run (persistent.go)
}

// imageTeam is an image's own state for a team it is a member of.
type imageTeam struct {
	tn        *teamNode
	rank      int      // the image's team rank
	member    int      // its index among the node's members (tn.mem)
	creations uint64   // teams made from the team so far
	aggOpen   bool     // its last collective on the team had the Aggregate flag (internal/exec/aggregate.go)
	last      lastCall // its last computational call that passed the checks (lastcall.go)
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

// TeamAll is coll.Image.TeamAll.
func (im *Image) TeamAll() *images.Team {
	if im == nil || im.n == nil {
		return nil
	}
	return im.n.all.Team
}

// ImageNum is coll.Image.ImageNum.
func (im *Image) ImageNum() int { return im.image }

// Images is coll.Image.Images.
func (im *Image) Images() int { return im.n.table.Images() }

// Node is coll.Image.Node.
func (im *Image) Node() int { return im.n.Me }

// Segment is coll.Image.Segment.
func (im *Image) Segment() []byte {
	if im.n.Seg == nil {
		return nil
	}
	s := im.n.opts.SegmentSize
	k := im.image - im.n.first
	return im.n.Seg[k*s : (k+1)*s : (k+1)*s]
}

// Table is coll.Image.Table.
func (im *Image) Table() *images.Table { return im.n.table }

// Poll is coll.Image.Poll.
func (im *Image) Poll() error {
	if err := im.check(); err != nil {
		return err
	}
	return im.n.eng.Poll()
}

// Live is coll.Image.Live.
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

// checkNotPlanning is check for what a plan cannot record: teams' creation
// and destruction, and Close.
func (im *Image) checkNotPlanning() error {
	if err := im.check(); err != nil {
		return err
	}
	if im.rec != nil {
		return fmt.Errorf("%w: only a collective, not a team's creation, destruction or Close", ErrPlan)
	}
	return nil
}

// Close is coll.Image.Close.
func (im *Image) Close() error {
	if err := im.checkNotPlanning(); err != nil {
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

// Barrier is coll.Image.Barrier.
func (im *Image) Barrier(t *images.Team) error {
	return im.barrier(t, gsync.AllThreads)
}

// NodeBarrier is coll.Image.NodeBarrier.
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
