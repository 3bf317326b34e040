// Package colltest is an in-process conduit for gocoll's collectives:
// goroutines play the nodes, as GASNet's smp conduit does with threads. It
// can delay and reorder messages at random, so that a missing
// synchronization shows up as a wrong value (or as a data race under
// -race). Use it to unit-test collective code with `go test`, no mpirun.
//
// Its nodes have segments too (coll.OneSided, segment.go): Go slices that
// PutNotify and Get copy into and out of, with the delays of messages.
// CheckOneSided (onesided.go) is the conformance check of any conduit's
// segments, run here in-process and in coll/mpitest over MPI.
//
// Model (model.go) runs a random legal program of collectives against a
// sequential model of their results, and Soak (soak.go) many small
// collectives with the heap and goroutine count bounded; both run on any
// conduit (coll's TestModel and TestSoak in process, coll/mpitest under
// mpirun, scripts/model.sh and scripts/soak.sh in full).
package colltest

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/images"
	"github.com/gocoll/gocoll/reducefn"
)

// Options of a World.
type Options struct {
	// MaxDelay delays each message by a random time in [0, MaxDelay); zero
	// delivers at once. Delayed messages may overtake each other when their
	// tags or destinations differ, never otherwise (MPI's rule).
	// PutNotify's copy is made when its notification is delivered, just
	// before it; Get's copy after a delay of its own.
	MaxDelay time.Duration
	// Seed seeds the delays (0: a fixed default).
	Seed uint64
}

// World is a set of in-process nodes that exchange messages.
type World struct {
	opts  Options
	nodes []*Conduit
	rngMu sync.Mutex
	rng   *rand.Rand
	wg    sync.WaitGroup // messages in flight
	sent  atomic.Int64   // messages sent, for tests that count them
	puts  atomic.Int64   // PutNotify calls
	gets  atomic.Int64   // Get calls

	segMu   sync.Mutex // guards segs and every node's segment fields
	segCond *sync.Cond
	segs    segments
}

// Sent is the number of messages sent so far by all nodes (each Isend is
// one), so that a test can count what a collective costs on the wire.
func (w *World) Sent() int64 { return w.sent.Load() }

// OneSided is the number of PutNotify and Get calls so far by all nodes,
// so that a test can tell which path a collective's data took.
func (w *World) OneSided() (puts, gets int64) { return w.puts.Load(), w.gets.Load() }

// NewWorld makes n connected nodes.
func NewWorld(n int, opts Options) *World {
	seed := opts.Seed
	if seed == 0 {
		seed = 0x9e3779b97f4a7c15
	}
	w := &World{opts: opts, rng: rand.New(rand.NewPCG(seed, uint64(n)))}
	w.segCond = sync.NewCond(&w.segMu)
	for i := range n {
		w.nodes = append(w.nodes, &Conduit{w: w, node: i})
	}
	return w
}

// Conduit is node i's end; it implements coll.Conduit.
func (w *World) Conduit(i int) *Conduit { return w.nodes[i] }

// Nodes is the number of nodes.
func (w *World) Nodes() int { return len(w.nodes) }

// Quiesce waits until no message is in flight.
func (w *World) Quiesce() { w.wg.Wait() }

func (w *World) delay() time.Duration {
	if w.opts.MaxDelay <= 0 {
		return 0
	}
	w.rngMu.Lock()
	defer w.rngMu.Unlock()
	return time.Duration(w.rng.Int64N(int64(w.opts.MaxDelay)))
}

// Conduit is one in-process node.
type Conduit struct {
	w    *World
	node int

	mu         sync.Mutex
	inFlight   map[route]chan struct{} // the last delayed message of each route, closed once delivered
	posted     []recv
	unexpected []message
	spare      [][]byte // unexpected messages' buffers, for reuse: an undelayed run allocates nothing
	done       []uint64
	err        error

	seg       []byte // the segment (coll.OneSided)
	segCalled bool   // AllocSegment was called
	segReady  bool   // AllocSegment succeeded
}

// route is a destination and a tag: the messages of one route arrive in
// the order they were sent.
type route struct{ dst, tag int }

type recv struct {
	src, tag int
	buf      []byte
	token    uint64
}

type message struct {
	src, tag int
	data     []byte
}

var _ coll.Conduit = (*Conduit)(nil)

// Node implements coll.Conduit.
func (c *Conduit) Node() int { return c.node }

// Nodes implements coll.Conduit.
func (c *Conduit) Nodes() int { return len(c.w.nodes) }

// MaxTag implements coll.Conduit.
func (c *Conduit) MaxTag() int { return math.MaxInt32 }

// ErrPeer reports a transfer to or from a node that does not exist.
var ErrPeer = errors.New("colltest: no such node")

// Isend implements coll.Conduit. The data is read when the message is
// delivered, not now, as a network reading the buffer late would; a send
// without delay is delivered, and complete, during the call.
func (c *Conduit) Isend(dst, tag int, b []byte, token uint64) (bool, error) {
	return c.send(dst, tag, b, token, nil)
}

// send is Isend that runs put (if not nil) just before it delivers the
// message, in the same goroutine: PutNotify's copy.
func (c *Conduit) send(dst, tag int, b []byte, token uint64, put func()) (bool, error) {
	if dst < 0 || dst >= len(c.w.nodes) {
		return false, fmt.Errorf("%w: %d", ErrPeer, dst)
	}
	to := c.w.nodes[dst]
	c.w.sent.Add(1)
	d := c.w.delay()
	// Messages with one tag to one node keep their order (MPI's rule): a
	// delayed one waits for the one before it.
	k := route{dst, tag}
	c.mu.Lock()
	before := c.inFlight[k]
	if d == 0 && before == nil {
		c.mu.Unlock()
		to.deliverAfter(put, c, tag, b)
		return true, nil
	}
	delivered := make(chan struct{})
	if c.inFlight == nil {
		c.inFlight = map[route]chan struct{}{}
	}
	c.inFlight[k] = delivered
	c.mu.Unlock()
	c.w.wg.Add(1)
	go func() {
		defer c.w.wg.Done()
		time.Sleep(d)
		if before != nil {
			<-before
		}
		to.deliverAfter(put, c, tag, b)
		c.mu.Lock()
		if c.inFlight[k] == delivered {
			delete(c.inFlight, k)
		}
		c.mu.Unlock()
		close(delivered)
		c.complete(token)
	}()
	return false, nil
}

// deliverAfter runs put, if not nil, then delivers the message.
func (c *Conduit) deliverAfter(put func(), from *Conduit, tag int, b []byte) {
	if put != nil {
		put()
	}
	c.deliver(from, tag, b)
}

// deliver matches a message from `from` against the receives posted here.
func (c *Conduit) deliver(from *Conduit, tag int, b []byte) {
	c.mu.Lock()
	for i, r := range c.posted {
		if r.src == from.node && r.tag == tag {
			c.posted = slices.Delete(c.posted, i, i+1)
			if len(r.buf) != len(b) {
				c.err = fmt.Errorf("colltest: node %d got %d bytes from %d with tag %d, expected %d", c.node, len(b), from.node, tag, len(r.buf))
			}
			copy(r.buf, b)
			c.done = append(c.done, r.token)
			c.mu.Unlock()
			return
		}
	}
	var data []byte
	if k := len(c.spare) - 1; k >= 0 && cap(c.spare[k]) >= len(b) {
		data, c.spare = c.spare[k][:len(b)], c.spare[:k]
		copy(data, b)
	} else {
		data = slices.Clone(b)
	}
	c.unexpected = append(c.unexpected, message{src: from.node, tag: tag, data: data})
	c.mu.Unlock()
}

func (c *Conduit) complete(token uint64) {
	c.mu.Lock()
	c.done = append(c.done, token)
	c.mu.Unlock()
}

// Irecv implements coll.Conduit. A message that has already arrived
// completes the receive during the call.
func (c *Conduit) Irecv(src, tag int, b []byte, token uint64) (bool, error) {
	if src < 0 || src >= len(c.w.nodes) {
		return false, fmt.Errorf("%w: %d", ErrPeer, src)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, m := range c.unexpected {
		if m.src == src && m.tag == tag {
			c.unexpected = slices.Delete(c.unexpected, i, i+1)
			if len(m.data) != len(b) {
				c.err = fmt.Errorf("colltest: node %d got %d bytes from %d with tag %d, expected %d", c.node, len(m.data), src, tag, len(b))
			}
			copy(b, m.data)
			c.spare = append(c.spare, m.data)
			return true, nil
		}
	}
	c.posted = append(c.posted, recv{src: src, tag: tag, buf: b, token: token})
	return false, nil
}

// Poll implements coll.Conduit.
func (c *Conduit) Poll(done []uint64) ([]uint64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	done = append(done, c.done...)
	c.done = c.done[:0]
	return done, c.err
}

// Run starts n in-process nodes, initializes gocoll on each, and calls fn on
// every node's image concurrently. It returns the errors of all nodes
// joined, or an error after timeout (a hang). As on any conduit, a node must
// go on making gocoll calls while collectives it took part in may still
// need it: end fn with a Barrier when it leaves non-blocking or relaxed
// (OUT_MYSYNC, OUT_NOSYNC) collectives behind.
func Run(n int, o Options, copts coll.Options, timeout time.Duration, fn func(im *coll.Image) error) error {
	return RunWithMemory(n, 0, o, copts, timeout, func(im *coll.Image, _ Memory) error { return fn(im) })
}

// RunWithMemory is Run with memSize bytes of shared Memory per node.
func RunWithMemory(n, memSize int, o Options, copts coll.Options, timeout time.Duration, fn func(im *coll.Image, mem Memory) error) error {
	shared := newSharedMemory(n, memSize)
	per := make([]int, n)
	for i := range per {
		per[i] = 1
	}
	return run(per, o, copts, nil, timeout, func(im *coll.Image, _ *Node) error {
		return fn(im, nodeMemory{shared, im.Node()})
	})
}

// RunImages starts a node for each entry of perNode with that many images,
// calls coll.Init on every image's own goroutine (with the table perNode and
// the function table fns) and then fn on every image concurrently; nd is
// the image's node, shared with the node's other images.
func RunImages(perNode []int, o Options, copts coll.Options, fns []reducefn.Entry, timeout time.Duration, fn func(im *coll.Image, nd *Node) error) error {
	return run(perNode, o, copts, fns, timeout, fn)
}

func run(perNode []int, o Options, copts coll.Options, fns []reducefn.Entry, timeout time.Duration, fn func(im *coll.Image, nd *Node) error) error {
	return NewWorld(len(perNode), o).RunImages(perNode, copts, fns, timeout, fn)
}

// RunImages is the package's RunImages on the nodes of w (one per entry of
// perNode), for a test that looks at the world afterwards (Sent).
func (w *World) RunImages(perNode []int, copts coll.Options, fns []reducefn.Entry, timeout time.Duration, fn func(im *coll.Image, nd *Node) error) error {
	return w.RunNodes(perNode, copts, func(int) []reducefn.Entry { return fns }, timeout, fn)
}

// RunNodes is RunImages with a function table of each node's own, from
// tables (a node keeps the table its first image gave coll.Init: the
// node's images share its functions, and their state).
func (w *World) RunNodes(perNode []int, copts coll.Options, tables func(node int) []reducefn.Entry, timeout time.Duration, fn func(im *coll.Image, nd *Node) error) error {
	if len(perNode) != w.Nodes() {
		return fmt.Errorf("colltest: %d nodes in the table, %d in the world", len(perNode), w.Nodes())
	}
	table, err := images.New(perNode)
	if err != nil {
		return err
	}
	errs := make([]error, table.Images())
	var mu sync.Mutex // errs is read on a timeout while images still run
	var wg sync.WaitGroup
	for n := range perNode {
		nd := NewNode(perNode[n])
		fns := tables(n)
		for k := range perNode[n] {
			img := table.First(n) + k
			wg.Go(func() {
				im, err := coll.Init(w.Conduit(n), table, img, fns, 0, copts)
				if err == nil {
					err = fn(im, nd)
				}
				if err != nil {
					mu.Lock()
					errs[img] = fmt.Errorf("image %d (node %d): %w", img, n, err)
					mu.Unlock()
				}
			})
		}
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	select {
	case <-finished:
		w.Quiesce()
		return errors.Join(errs...)
	case <-time.After(timeout):
		mu.Lock()
		defer mu.Unlock()
		// The images that failed first are the likely cause of the others' wait.
		hang := fmt.Errorf("colltest: images still running after %v (a hang)", timeout)
		if failed := errors.Join(errs...); failed != nil {
			return fmt.Errorf("%w; failed so far: %w", hang, failed)
		}
		return fmt.Errorf("%w; none failed so far", hang)
	}
}

// Node is what the images of one node share in a test: a rendezvous for
// the node's images that take turns with a representative, which calls
// collectives for all of them (see coll's m forms).
type Node struct {
	images int
	mu     sync.Mutex
	cond   *sync.Cond
	groups map[string]*rendezvous
	turn   sync.Mutex // representatives of different teams take turns (Model)
}

type rendezvous struct {
	arrived, gen int
}

// NewNode is the shared state of a node with the given number of images.
func NewNode(images int) *Node {
	nd := &Node{images: images, groups: map[string]*rendezvous{}}
	nd.cond = sync.NewCond(&nd.mu)
	return nd
}

// Images is the number of images on the node.
func (nd *Node) Images() int { return nd.images }

// Rendezvous waits until count images of the node called it with the same
// group name; it may be called again with that name for the next round.
func (nd *Node) Rendezvous(group string, count int) {
	nd.mu.Lock()
	defer nd.mu.Unlock()
	g := nd.groups[group]
	if g == nil {
		g = &rendezvous{}
		nd.groups[group] = g
	}
	gen := g.gen
	g.arrived++
	if g.arrived == count {
		g.arrived = 0
		g.gen++
		nd.cond.Broadcast()
		return
	}
	for g.gen == gen {
		nd.cond.Wait()
	}
}
