package exec

import (
	"errors"
	"sync/atomic"

	"github.com/gocoll/gocoll/coll/internal/alg"
	"github.com/gocoll/gocoll/coll/internal/plan"
	"github.com/gocoll/gocoll/images"
)

// Conduit is what the executor needs of a conduit (coll.Conduit, whose
// documentation gives the rules): tagged nonblocking transfers, whose
// tokens come back through the engine's poll.
type Conduit interface {
	Isend(dst, tag int, b []byte, token uint64) (done bool, err error)
	Irecv(src, tag int, b []byte, token uint64) (done bool, err error)
}

// OneSided is what the one-sided path needs of a conduit with a segment
// (coll.OneSided).
type OneSided interface {
	PutNotify(dst, off, tag int, b []byte, token uint64) (done bool, err error)
	Get(src, off int, b []byte, token uint64) (done bool, err error)
}

// ErrAggregate reports an aggregate of more collectives than it may hold.
var ErrAggregate = errors.New("gocoll: aggregate too large")

// Geom is the node's place in team tn's geometry.
func (tn *TeamNode) Geom(blockSize int) alg.Geom {
	t := tn.Team
	return alg.Geom{P: t.Nodes(), Me: t.NodeRank(tn.N.Me), Block: blockSize, Scratch: &alg.Scratch{}, Team: t, Mem: tn.Mem}
}

// Node is the executor's part of a node.
type Node struct {
	Cd    Conduit
	Me    int    // this node
	Seg   []byte // the node's segment (its images' in a row), nil without one (segment.go)
	Plans Cache
	// transfers on the one-sided path are at least this long (Options.OneSidedMin)
	OneSidedMin int
	Builder     Builder
}

// Builder is what the executor asks of the layer that picks algorithms
// (core's select.go): an aggregate's members' schedules, the algorithm each one's
// size picks (members fuse only where it is the same), and whether a
// reduction's function may run on the progress agent.
type Builder interface {
	Build(g alg.Geom, c *plan.Call) []alg.Round
	SizeChoice(k *plan.Key, P int) int
	AgentSafe(fn int) bool
}

// TeamNode is the executor's part of a node's state for one team.
type TeamNode struct {
	Team  *images.Team
	N     *Node
	Mem   []int // team ranks of the node's members, ascending
	Ctx   int
	Local bool // the team lives on this node: its collectives need no transfer
	// node operations so far: taken in initiation order, under the
	// engine's lock by a representative's Bind, under amu by AllThreads
	// arrivals (the two never overlap on a team: the spec's rule)
	Seq atomic.Uint64
	Agg Aggregate // the open aggregate (aggregate.go)
	// lifetime (not counted for TeamAll, which lives as long as the node)
	All        bool
	Unfinished atomic.Int64 // operations started and not finished
}

// NextTagBase is the tag base of the team's next operation, taken in
// initiation order. Its bits from 32 up hold the rest of the sequence
// number, for the message headers (TagSeq); wireTag leaves them
// out of the tags.
func (tn *TeamNode) NextTagBase() int {
	seq := tn.Seq.Add(1) - 1
	return int(seq>>SeqBits)<<32 | max(tn.Ctx, 0)<<(SeqBits+SubBits) | int(seq&(1<<SeqBits-1))<<SubBits
}

// Count adds d to the team's unfinished operations, which Destroy waits
// for; TeamAll is never destroyed and counts none.
func (tn *TeamNode) Count(d int64) {
	if !tn.All {
		tn.Unfinished.Add(d)
	}
}

// Tags: a message's tag is the team's context, the collective's sequence
// number on the team and a suffix that tells the messages of one
// collective apart, from the high bits down.
const (
	SubBits = 8
	SeqBits = 17 // engine.MaxLive < 2^17: live operations of a team never share a tag
)
