package core

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	stdsync "sync"
	"sync/atomic"
	"time"

	"github.com/gocoll/gocoll/coll/internal/exec"
	"github.com/gocoll/gocoll/coll/internal/local"
	"github.com/gocoll/gocoll/images"
	"github.com/gocoll/gocoll/internal/engine"
	"github.com/gocoll/gocoll/reducefn"
	gsync "github.com/gocoll/gocoll/sync"
)

// A node is one conduit endpoint (an MPI process) and everything its
// images share: the engine of live operations, the cached schedules, the
// per-team state and the team contexts in use. Its images are goroutines
// that each hold their own *Image; collectives run once per node.

type node struct {
	exec.Node
	table   *images.Table
	fns     []reducefn.Entry
	std     Table  // the standard table, from StdBase on
	own     []bool // by function: a ready-made entry (reducefn.Entry.Own)
	opts    Config
	eng     *engine.Engine
	choices choices // the cost model's tree choices (select.go)
	// paths it may not take (a test's: select.go)
	forbidden path
	first     int  // its first image
	count     int  // its images
	multi     bool // some node hosts several images
	// contexts: 1<<ctxBits of them (at most 64); bit c of ctxUsed is set
	// while a team with context c lives on this node (or a creation holds it)
	ctxBits int
	ctxMu   stdsync.Mutex
	ctxUsed uint64

	all   *teamNode                  // TeamAll
	teams map[*images.Team]*teamNode // the others (under mu)

	// images that are gone (ImageGone, stall.go)
	goneMu  stdsync.Mutex
	gone    map[int]gone
	anyGone atomic.Bool

	// Init's rendezvous of the node's images
	mu       stdsync.Mutex
	joined   []bool // by local image
	arrived  int
	ready    chan struct{} // closed once Init finished on the node (err says how)
	initErr  error
	creating map[createKey]*creation // team creations in progress (teams.go)
	closed   int                     // images that called Close
}

// teamNode is a node's state for one team it hosts members of.
type teamNode struct {
	exec.TeamNode
	n   *node
	loc *local.Team // a team that lives on the node: its node-local path (internal/local)
	// AllThreads initiations waiting for the rest of the node's members
	// (on a team with members on other nodes)
	arrivals  local.Arrivals            // AllThreads arrivals, on a team with members on other nodes
	agree     atomic.Pointer[agreement] // checked mode's cached agreement (check.go)
	destroyed atomic.Int32              // members that destroyed the team
}

// nodes records the node of every conduit that Init has used.
var nodes stdsync.Map // Conduit -> *node

// Conduit is what the node needs of coll.Conduit (whose documentation
// gives the rules).
type Conduit interface {
	Node() int
	Nodes() int
	MaxTag() int
	Isend(dst, tag int, b []byte, token uint64) (done bool, err error)
	Irecv(src, tag int, b []byte, token uint64) (done bool, err error)
	Poll(done []uint64) ([]uint64, error)
}

// The conduit's optional interfaces (coll.Idler, coll.ThreadSafe and
// coll.OneSided's allocation).
type (
	idler      interface{ Idle() }
	threadSafe interface{ ThreadMultiple() bool }
	segments   interface {
		AllocSegment(size int) ([]byte, error)
	}
)

func newNode(c Conduit, table *images.Table, fns []reducefn.Entry, opts Config, ctxBits int, std Table) *node {
	if opts.InitTimeout <= 0 {
		opts.InitTimeout = DefaultInitTimeout
	}
	var idle func()
	if i, ok := c.(idler); ok {
		idle = i.Idle
	}
	me := c.Node()
	// The table is the node's own copy (what Init registered), and which
	// of its entries are gocoll's own operators is known once.
	fns = slices.Clone(fns)
	own := make([]bool, len(fns))
	for i, e := range fns {
		own[i] = e.Own()
	}
	n := &node{Node: exec.Node{Cd: c, Me: me, OneSidedMin: opts.OneSidedMin}, table: table, fns: fns, std: std, own: own, opts: opts, eng: engine.NewEngine(c.Poll, idle),
		first: table.First(me), count: table.On(me), ctxBits: min(ctxBits, 6), ctxUsed: 1, // context 0 is TeamAll's
		joined: make([]bool, table.On(me)), ready: make(chan struct{}), creating: map[createKey]*creation{}}
	if n.count > 1 {
		n.eng.Shared(n.count)
	}
	n.eng.SetStallTimeout(stallTimeout(opts))
	if h := opts.Paths; h != nil && h.forbid != nil {
		n.forbidden = h.forbid(me)
	}
	n.Node.Builder = n
	n.multi = table.Images() > table.Nodes()
	n.all = n.newTeamNode(table.All())
	n.all.All = true
	return n
}

// sameArgs checks that a later image of the node passed what the first did.
func (n *node) sameArgs(table *images.Table, fns []reducefn.Entry, opts Config) error {
	if opts.InitTimeout <= 0 {
		opts.InitTimeout = DefaultInitTimeout
	}
	switch {
	case !table.Equal(n.table):
		return fmt.Errorf("%w: images table %v, another image of the node gave %v", ErrInitMismatch, table.PerNode(), n.table.PerNode())
	case len(fns) != len(n.fns):
		return fmt.Errorf("%w: %d functions, another image of the node gave %d", ErrInitMismatch, len(fns), len(n.fns))
	case opts != n.opts:
		return fmt.Errorf("%w: options %+v, another image of the node gave %+v", ErrInitMismatch, opts, n.opts)
	}
	for i := range fns {
		if fns[i].Flags != n.fns[i].Flags || fns[i].Scalar != n.fns[i].Scalar {
			return fmt.Errorf("%w: function %d has other flags than another image of the node gave", ErrInitMismatch, i)
		}
	}
	return nil
}

// entry is the function-table entry of index fn (Init's table, or the
// standard table from stdBase on), the zero Entry for none; own reports
// a ready-made one (reducefn.Entry.Own).
func (n *node) entry(fn int) (e reducefn.Entry, own bool) {
	switch {
	case fn >= 0 && fn < len(n.fns):
		return n.fns[fn], n.own[fn]
	case fn >= StdBase && fn-StdBase < len(n.std.Entries):
		return n.std.Entries[fn-StdBase], n.std.Own[fn-StdBase]
	}
	return reducefn.Entry{}, false
}

// join registers image img; last reports that it completed the node.
func (n *node) join(img int) (*Image, bool, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	k := img - n.first
	switch {
	case n.initErr != nil:
		return nil, false, n.initErr
	case n.joined[k]:
		return nil, false, fmt.Errorf("%w: image %d", ErrInitTwice, img)
	}
	n.joined[k] = true
	n.arrived++
	im := &Image{n: n, image: img}
	im.allTeam = newImageTeam(n.all, img)
	return im, n.arrived == n.count, nil
}

// finishInit runs, on the node's last image to arrive, the agreement
// between nodes (an all-synchronizing gather_all of what every node must
// agree on), and starts the progress agent.
func (n *node) finishInit(im *Image, nfns int) {
	err := n.agree(im, nfns)
	if err == nil && n.opts.SegmentSize > 0 {
		err = n.allocSegment()
	}
	if err == nil && n.opts.Progress != gsync.Polling {
		err = n.eng.StartAgent(engine.ProgressMode(n.opts.Progress), n.opts.ProgressInterval)
	}
	n.mu.Lock()
	if n.initErr == nil {
		n.initErr = err
		close(n.ready)
	}
	n.mu.Unlock()
}

// awaitInit waits for the node's Init to finish, or times out for the
// whole node.
func (n *node) awaitInit() error {
	t := time.NewTimer(n.opts.InitTimeout)
	defer t.Stop()
	select {
	case <-n.ready:
	case <-t.C:
		n.mu.Lock()
		if n.initErr == nil {
			n.initErr = fmt.Errorf("%w: %d of node %d's %d images called Init within %v",
				ErrInitTimeout, n.arrived, n.Me, n.count, n.opts.InitTimeout)
			close(n.ready)
		}
		n.mu.Unlock()
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.initErr
}

// agree checks that every node passed the same images table, function
// table (size and flags) and options.
func (n *node) agree(im *Image, nfns int) error {
	h := fnv.New64a()
	for _, k := range n.table.PerNode() {
		_ = binary.Write(h, binary.LittleEndian, int64(k))
	}
	for _, e := range n.fns {
		_ = binary.Write(h, binary.LittleEndian, [2]int64{int64(e.Flags), int64(e.Scalar)})
	}
	_, _ = fmt.Fprintf(h, "%+v", n.opts)
	mine := make([]byte, 16)
	binary.LittleEndian.PutUint64(mine, uint64(nfns))
	binary.LittleEndian.PutUint64(mine[8:], h.Sum64())
	P := n.table.Images()
	dsts := make([][]byte, n.count)
	srcs := make([][]byte, n.count)
	for k := range dsts {
		dsts[k], srcs[k] = make([]byte, 16*P), mine
	}
	ctx, cancel := context.WithTimeout(context.Background(), n.opts.InitTimeout)
	defer cancel()
	hd, err := im.GatherAll(n.all.Team, nil, dsts, nil, srcs, true, 16, gsync.InAllSync|gsync.OutAllSync|gsync.Local, true)
	if err == nil {
		err = hd.Wait(ctx)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%w: the other nodes did not all finish Init within %v", ErrInitTimeout, n.opts.InitTimeout)
	}
	if err != nil {
		return err
	}
	for i := range P {
		if string(dsts[0][16*i:16*i+16]) != string(mine) {
			return fmt.Errorf("%w: image %d (node %d) passed another function table, images table or options",
				ErrInitMismatch, i, n.table.NodeOf(i))
		}
	}
	return nil
}

// newTeamNode makes the node's state for team t.
func (n *node) newTeamNode(t *images.Team) *teamNode {
	tn := &teamNode{TeamNode: exec.TeamNode{Team: t, N: &n.Node, Ctx: t.Context(), Local: t.Nodes() == 1}, n: n}
	if q := t.NodeRank(n.Me); q >= 0 {
		tn.Mem = t.Members(q)
	}
	if tn.Local {
		tn.loc = local.NewTeam(&tn.TeamNode, n.eng, tn, tn.tookLocal())
	} else {
		tn.arrivals.Init(&tn.TeamNode, n.eng, tn)
	}
	return tn
}

func bitsOf(x int) int {
	n := 0
	for ; x > 0; x >>= 1 {
		n++
	}
	return n
}
