package coll

import (
	"context"
	"encoding/binary"
	"fmt"
	stdsync "sync"

	"github.com/gocoll/gocoll/images"
	"github.com/gocoll/gocoll/reducefn"
	gsync "github.com/gocoll/gocoll/sync"
)

// Options choose algorithms; the zero value picks them by the rules in the
// package documentation.
type Options struct {
	// Tree shapes broadcast, scatter and gather (default Binomial).
	Tree Tree
	// GatherAll forces an algorithm for gather_all (default GatherAllAuto).
	GatherAll GatherAllAlgo
	// A is L/max(o,g) of the LogP model in whole units, used to choose the
	// gather_all algorithm; 0 means DefaultA.
	A int
}

// GatherAllAlgo names a gather_all algorithm.
type GatherAllAlgo int

const (
	// GatherAllAuto chooses by P and A (see the package documentation).
	GatherAllAuto GatherAllAlgo = iota
	// GatherAllDissemination: ceil(lg P) rounds, doubling the data each round.
	GatherAllDissemination
	// GatherAllExchange: P-1 steps, node p sends its block to (p+i) mod P.
	GatherAllExchange
)

// DefaultA is the LogP ratio L/max(o,g) assumed when Options.A is 0; it
// fits shared-memory and loopback MPI on the development machines.
const DefaultA = 4

// InitFlags are the flags of Init; the spec reserves them and requires 0.
type InitFlags uint32

// Image is an image's handle on gocoll's collectives, returned by Init. Its
// zero value is not initialized: every collective on it returns
// ErrNotInitialized.
type Image struct {
	cd    Conduit
	table *images.Table
	fns   []reducefn.Entry
	eng   *gsync.Engine
	all   *images.Team
	opts  Options
	image int

	seq     uint64 // initiations on TeamAll so far (under the engine's lock)
	plans   planCache
	seqBits int
	nodes   int // nodes in the job (one image each for now)
	me      int
}

// inited records the conduits that Init has used, since Init may run only
// once per conduit.
var inited stdsync.Map

// Init initializes gocoll's collectives over conduit c. It is collective and
// blocking: every node calls it with the same images table (nil for one image
// per node), the same function table size and flags 0; it returns the image
// through which this node calls collectives.
func Init(c Conduit, table *images.Table, fns []reducefn.Entry, flags InitFlags, opts Options) (*Image, error) {
	if c == nil {
		return nil, fmt.Errorf("%w: nil conduit", ErrConduit)
	}
	if flags != 0 {
		return nil, fmt.Errorf("%w: got %#x", ErrInitFlags, uint32(flags))
	}
	if table == nil {
		table = images.OnePerNode(c.Nodes())
	}
	if table.Nodes() != c.Nodes() {
		return nil, fmt.Errorf("%w: images table has %d nodes, conduit %d", ErrConduit, table.Nodes(), c.Nodes())
	}
	for n := 0; n < table.Nodes(); n++ {
		if table.On(n) != 1 {
			return nil, fmt.Errorf("%w: several images per node are not available yet", ErrConduit)
		}
	}
	seqBits := bitsOf(c.MaxTag()) - subBits
	if seqBits < 17 { // 2^16-1 outstanding operations must stay distinct
		return nil, fmt.Errorf("%w: MaxTag %d leaves %d bits for sequence numbers, need 17", ErrConduit, c.MaxTag(), seqBits)
	}
	if _, dup := inited.LoadOrStore(c, true); dup {
		return nil, ErrInitTwice
	}
	var idle func()
	if i, ok := c.(Idler); ok {
		idle = i.Idle
	}
	im := &Image{cd: c, table: table, fns: fns, eng: gsync.NewEngine(c.Poll, idle), all: table.All(),
		opts: opts, image: table.First(c.Node()), seqBits: min(seqBits, 20), nodes: c.Nodes(), me: c.Node()}
	if err := im.agree(len(fns)); err != nil {
		inited.Delete(c)
		return nil, err
	}
	return im, nil
}

func bitsOf(x int) int {
	n := 0
	for ; x > 0; x >>= 1 {
		n++
	}
	return n
}

// agree checks, with an all-synchronizing gather_all, that every node
// passed the same images table and function count.
func (im *Image) agree(nfns int) error {
	mine := make([]byte, 16)
	binary.LittleEndian.PutUint64(mine, uint64(nfns))
	binary.LittleEndian.PutUint64(mine[8:], uint64(im.table.Images()))
	all := make([]byte, 16*im.nodes)
	if err := im.GatherAll(im.all, all, mine, 16, gsync.InAllSync|gsync.OutAllSync|gsync.Local); err != nil {
		return err
	}
	for n := 0; n < im.nodes; n++ {
		if string(all[16*n:16*n+16]) != string(mine) {
			return fmt.Errorf("%w: node %d", ErrInitMismatch, n)
		}
	}
	return nil
}

// TeamAll is the team of every image (GASNET_TEAM_ALL).
func (im *Image) TeamAll() *images.Team {
	if im == nil {
		return nil
	}
	return im.all
}

// ImageNum is this image's number; Images is the number of images.
func (im *Image) ImageNum() int { return im.image }

// Images is the number of images in the job.
func (im *Image) Images() int { return im.table.Images() }

// Poll makes progress on every outstanding collective of this node.
func (im *Image) Poll() error {
	if err := im.check(); err != nil {
		return err
	}
	return im.eng.Poll()
}

// Live is the number of collectives still in progress on this node,
// including synced OUT_NOSYNC ones whose last sends are in flight.
func (im *Image) Live() int { return im.eng.Live() }

func (im *Image) check() error {
	if im == nil || im.eng == nil {
		return ErrNotInitialized
	}
	return nil
}

// Barrier is a collective barrier over the team (dissemination). Waiting in
// it makes progress on every outstanding collective, so a batch of
// OUT_NOSYNC collectives between two Barriers completes.
func (im *Image) Barrier(t *images.Team) error {
	const f = gsync.InAllSync | gsync.OutAllSync | gsync.Local
	if err := im.check(); err != nil {
		return err
	}
	if err := im.checkTeamFlags(t, f, false); err != nil {
		return err
	}
	h, err := im.start(planKey{kind: kBarrier, team: t, f: f}, func(g geom) []round {
		return barrierRounds(g, subBar)
	})
	if err != nil {
		return err
	}
	return h.Wait(context.Background())
}

// start initiates the schedule of k, cached or built by build; the caller
// has validated every argument.
func (im *Image) start(k planKey, build func(geom) []round) (gsync.Handle, error) {
	op := im.plans.take(&k)
	if op == nil {
		g := geom{P: im.nodes, me: im.me, n: k.n, node: func(r int) int { return r }, sc: &scratch{}}
		op = newSchedOp(im, k, withSync(g, k.f, build(g)), g.sc)
		im.plans.keep(op)
	}
	return im.eng.Start(op)
}

// nextTagBase is the tag base of the next operation on TeamAll; the engine
// calls it (through Bind) under its lock, in initiation order.
func (im *Image) nextTagBase() int {
	t := int(im.seq&(1<<im.seqBits-1)) << subBits
	im.seq++
	return t
}

func (im *Image) checkTeamFlags(t *images.Team, f gsync.Flags, nb bool) error {
	if t == nil || t != im.all {
		return ErrTeam
	}
	if err := f.Validate(); err != nil {
		return err
	}
	if f&gsync.Aggregate != 0 {
		if !nb {
			return gsync.ErrAggregateBlocking
		}
		return ErrAggregate
	}
	return nil
}
