package colltest

import (
	"errors"
	"fmt"
	"time"

	"github.com/gocoll/gocoll/coll"
)

// Errors of the one-sided transfers; test for them with errors.Is.
var (
	// ErrNoSegment: PutNotify or Get before AllocSegment succeeded.
	ErrNoSegment = errors.New("colltest: no segment allocated")
	// ErrSegmentAllocated: AllocSegment called a second time.
	ErrSegmentAllocated = errors.New("colltest: segment already allocated")
	// ErrSegmentRange: bytes outside a node's segment, or a negative size.
	ErrSegmentRange = errors.New("colltest: outside the segment")
)

var _ coll.OneSided = (*Conduit)(nil)

// segments is the World's record of AllocSegment, the collective.
type segments struct {
	arrived int   // nodes that called AllocSegment
	bad     []int // nodes that asked for a negative size
}

// AllocSegment implements coll.OneSided: the segment is a Go []byte. As
// the collective it is, it returns once every node has called it; a
// negative size on any node is an error on every node.
func (c *Conduit) AllocSegment(size int) ([]byte, error) {
	w := c.w
	w.segMu.Lock()
	defer w.segMu.Unlock()
	if c.segCalled {
		return nil, fmt.Errorf("%w: node %d called AllocSegment twice", ErrSegmentAllocated, c.node)
	}
	c.segCalled = true
	if size < 0 {
		w.segs.bad = append(w.segs.bad, c.node)
	} else {
		c.seg = make([]byte, size)
	}
	w.segs.arrived++
	if w.segs.arrived == len(w.nodes) {
		w.segCond.Broadcast()
	}
	for w.segs.arrived < len(w.nodes) {
		w.segCond.Wait()
	}
	if len(w.segs.bad) > 0 {
		c.seg = nil
		return nil, fmt.Errorf("%w: nodes %v asked for a negative size", ErrSegmentRange, w.segs.bad)
	}
	c.segReady = true
	return c.seg, nil
}

// checkSegment refuses a one-sided transfer of n bytes at off of node
// peer's segment that the segments cannot take.
func (c *Conduit) checkSegment(op string, peer, off, n int) (*Conduit, error) {
	if peer < 0 || peer >= len(c.w.nodes) {
		return nil, fmt.Errorf("%w: %s: %d", ErrPeer, op, peer)
	}
	c.w.segMu.Lock()
	ready := c.segReady
	c.w.segMu.Unlock()
	if !ready {
		return nil, fmt.Errorf("%w: %s on node %d", ErrNoSegment, op, c.node)
	}
	// Every segment is set once AllocSegment returned on any node.
	p := c.w.nodes[peer]
	if size := len(p.seg); off < 0 || off > size || n > size-off {
		return nil, fmt.Errorf("%w: %s: %d bytes at offset %d of node %d's segment of %d", ErrSegmentRange, op, n, off, peer, size)
	}
	return p, nil
}

// PutNotify implements coll.OneSided: it copies b into node dst's segment
// when the notification is delivered, just before, as a network would;
// the notification travels as any message (delays included).
func (c *Conduit) PutNotify(dst, off, tag int, b []byte, token uint64) (bool, error) {
	p, err := c.checkSegment("PutNotify", dst, off, len(b))
	if err != nil {
		return false, err
	}
	c.w.puts.Add(1)
	return c.send(dst, tag, nil, token, func() { copy(p.seg[off:], b) })
}

// Get implements coll.OneSided: it copies from node src's segment, after
// a delay as a message would take.
func (c *Conduit) Get(src, off int, b []byte, token uint64) (bool, error) {
	p, err := c.checkSegment("Get", src, off, len(b))
	if err != nil {
		return false, err
	}
	c.w.gets.Add(1)
	read := func() { copy(b, p.seg[off:off+len(b)]) }
	d := c.w.delay()
	if d == 0 {
		read()
		return true, nil
	}
	c.w.wg.Add(1)
	go func() {
		defer c.w.wg.Done()
		time.Sleep(d)
		read()
		c.complete(token)
	}()
	return false, nil
}
