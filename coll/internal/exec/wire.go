package exec

import (
	"encoding/binary"
	"fmt"

	"github.com/gocoll/gocoll/coll/internal/alg"
	"github.com/gocoll/gocoll/coll/internal/plan"
)

// Message headers (the default mode's check). Every non-empty
// message of a schedule carries hdrSize bytes: the operation's full
// sequence number on the team, and the hash of its agreed arguments with
// the payload's length. The receiving end checks them before a byte of
// payload reaches the caller's memory:
//
//   - A message of up to inlineMax bytes travels with its header in front,
//     through a buffer of the schedule (wireX.w): the sender copies its
//     payload behind the header, the receiver copies it out once the header
//     matched. Small messages are latency-bound: two copies of at most
//     inlineMax bytes hide in the noise of a message.
//   - A larger message is preceded by its header as a message of its own
//     with the same tag and peer; MPI's order (no overtaking on one tag
//     between two processes) makes it match first. The receiver posts the
//     payload's receive, into its final place, only once the header
//     matched: no copy of the payload, one small message more, and a
//     receive posted late (large messages wait for their receive anyway).
//     This needs the message to be the only one of its schedule on its
//     peer and sub-tag in its direction; a schedule where it is not sends
//     it inline instead (never the case in today's schedules: where an
//     aggregate's members do not fuse, each message has its member's tag).
//
// A header that does not match (another call's arguments, another length,
// a stale message of the same tag 2^seqBits operations older) fails the
// operation with plan.ErrMismatch; a larger payload than the receive expects is
// the conduit's truncation error. Either way nothing reaches the caller's
// memory. Barrier messages (empty) carry no header; on the one-sided path
// of segments (segment.go) the control message that precedes a write or
// a read carries it.
const (
	hdrSize   = 16
	inlineMax = 4 << 10
	// hdrIdx marks, in a token's index, the header message of a large
	// transfer (below auxIdx: the one-sided path's; see segment.go). The
	// marks are the index's top bits: below them, an aggregate numbers the
	// transfers of its schedules one after another (aggregate.go).
	hdrIdx = 1 << 29
)

// wireX is a transfer's header state.
type wireX struct {
	w      []byte // inline: header and payload; else the header alone (nil: no header)
	inline bool
	send   bool
	peer   int
	sub    int
	buf    []byte
}

// setupWire gives every non-empty transfer its header buffer; the items
// are those of reset (receives, then sends, in round order).
func (o *Sched) setupWire() {
	o.sigHash = plan.SigOf(&o.key).Hash()
	o.wire = make([]wireX, 0, len(o.items))
	o.eachXfer(func(x alg.Xfer, send bool) {
		o.wire = append(o.wire, wireX{peer: x.Peer, sub: x.Sub, buf: x.Buf, send: send})
	})
	var seen map[wireWay]int // a large schedule's ways counted (sharesTag)
	if len(o.wire) > 16 {
		seen = make(map[wireWay]int, len(o.wire))
		for i := range o.wire {
			seen[o.wire[i].way()]++
		}
	}
	for i := range o.wire {
		wx := &o.wire[i]
		switch n := len(wx.buf); {
		case n == 0:
		case n <= inlineMax || o.sharesTag(i, seen):
			wx.inline, wx.w = true, make([]byte, hdrSize+n)
		default:
			wx.w = make([]byte, hdrSize)
		}
	}
}

// wireWay is the way a transfer goes: its peer, its sub-tag, and whether
// it is a send.
type wireWay struct {
	peer, sub int
	send      bool
}

func (x *wireX) way() wireWay { return wireWay{x.peer, x.sub, x.send} }

// sharesTag reports whether another transfer of the schedule goes the same
// way as transfer i: a large transfer's header message then cannot go
// ahead of its payload on its own (the receiver could not tell whose
// payload follows), so it goes inline. A small schedule is searched, a
// large one's ways are counted in seen.
func (o *Sched) sharesTag(i int, seen map[wireWay]int) bool {
	w := o.wire[i].way()
	if seen != nil {
		return seen[w] > 1
	}
	for j := range o.wire {
		if j != i && o.wire[j].way() == w {
			return true
		}
	}
	return false
}

// wireBytes is the size of the header buffers.
func (o *Sched) wireBytes() int {
	n := 0
	for _, wx := range o.wire {
		n += len(wx.w)
	}
	return n
}

// eachXfer calls f on the schedule's transfers in the order of its items:
// the receives of every round, then the sends of every round.
func (o *Sched) eachXfer(f func(x alg.Xfer, send bool)) {
	for r := range o.rounds {
		for _, x := range o.rounds[r].Recvs {
			f(x, false)
		}
	}
	for r := range o.rounds {
		for _, x := range o.rounds[r].Sends {
			f(x, true)
		}
	}
}

// TagSeq is the full sequence number of the operation of tag base base
// (nextTagBase keeps its high bits above the tag's).
func TagSeq(base int) uint64 {
	return uint64(base)>>32<<SeqBits | uint64(base>>SubBits)&(1<<SeqBits-1)
}

// wireTag is the tag of sub-tag sub of the operation of tag base base.
func wireTag(base, sub int) int { return base&(1<<32-1) | sub }

func (o *Sched) putHdr(h []byte, base, n int) { putHdr(h, base, o.sigHash, n) }

// putHdr writes into h the header of a message of n bytes of the
// operation of tag base tagBase whose arguments hash to sig.
func putHdr(h []byte, tagBase int, sig uint32, n int) {
	binary.LittleEndian.PutUint64(h, TagSeq(tagBase))
	binary.LittleEndian.PutUint64(h[8:], uint64(sig)<<32|uint64(uint32(n)))
}

// checkHdr fails the operation unless header h of receive item idx is the
// one this end would have sent for n bytes from peer on tag base base. A
// receive of a round not started yet fails the operation only once it
// starts (late): its sends go first, so that a peer this node exchanges
// with in that round gets a message and learns of the mismatch too.
func (o *Sched) checkHdr(idx uint32, h []byte, n, peer, base int) bool {
	err := o.n.hdrErr(h, n, peer, &o.key, base, o.sigHash)
	if err == nil {
		return true
	}
	switch r := o.items[idx].round; {
	case r < o.next:
		o.err = err
	case o.late == nil || r < o.lateRound:
		o.late, o.lateRound = err, r
	}
	return false
}

// wireBase is the tag base and sub-tag of a transfer of sub-tag sub: the
// operation's, or, for a sub-tag at or above 1<<subBits, that of the
// aggregate's member sub>>subBits - 1 (aggregate.go: its own message in a
// fused schedule) with the sub-tag below.
func (o *Sched) wireBase(sub int) (base, s int) {
	if m := sub >> SubBits; m > 0 {
		return o.mbases[m-1], sub & (1<<SubBits - 1)
	}
	return o.TagBase, sub
}

// hdrErr is nil when header h is the one this node would have sent for n
// bytes from peer in the operation of key k, tag base tagBase and
// arguments hash sig; else the error that says how they differ.
func (n *Node) hdrErr(h []byte, nb, peer int, k *plan.Key, tagBase int, sig uint32) error {
	seq, w := binary.LittleEndian.Uint64(h), binary.LittleEndian.Uint64(h[8:])
	mySeq := TagSeq(tagBase)
	if seq == mySeq && uint32(w>>32) == sig && int(uint32(w)) == nb {
		return nil
	}
	s := plan.SigOf(k)
	s.Seq = mySeq
	return fmt.Errorf("%w: node %d sent for call %d a message of %d bytes with arguments hash %08x; this node (node %d) called %v, hash %08x, expecting %d bytes",
		plan.ErrMismatch, peer, seq, uint32(w), uint32(w>>32), n.Me, s, sig, nb)
}

// isend starts send item idx (x) with its header.
func (o *Sched) isend(idx uint32, x *alg.Xfer) (bool, error) {
	base, sub := o.wireBase(x.Sub)
	tag := wireTag(base, sub)
	wx := &o.wire[idx]
	switch {
	case wx.w == nil:
	case wx.inline:
		o.putHdr(wx.w, base, len(x.Buf))
		copy(wx.w[hdrSize:], x.Buf)
		return o.cd.Isend(x.Peer, tag, wx.w, o.token(idx))
	default:
		o.putHdr(wx.w, base, len(x.Buf))
		o.left++ // until the header's send completes
		done, err := o.cd.Isend(x.Peer, tag, wx.w, o.token(hdrIdx|idx))
		if err != nil {
			return false, err
		}
		if done {
			o.left--
		}
	}
	return o.cd.Isend(x.Peer, tag, x.Buf, o.token(idx))
}

// irecv posts receive item idx (x): the payload's own, or its header's.
func (o *Sched) irecv(idx uint32, x *alg.Xfer) (bool, error) {
	tag := wireTag(o.wireBase(x.Sub))
	wx := &o.wire[idx]
	switch {
	case wx.w == nil:
		return o.cd.Irecv(x.Peer, tag, x.Buf, o.token(idx))
	case wx.inline:
		return o.cd.Irecv(x.Peer, tag, wx.w, o.token(idx))
	}
	done, err := o.cd.Irecv(x.Peer, tag, wx.w, o.token(hdrIdx|idx))
	if err != nil || !done {
		return false, err
	}
	return o.hdrArrived(idx)
}

// hdrArrived posts the payload's receive of item idx once its header
// matched; done reports the payload there already.
func (o *Sched) hdrArrived(idx uint32) (bool, error) {
	wx := &o.wire[idx]
	base, sub := o.wireBase(wx.sub)
	if !o.checkHdr(idx, wx.w, len(wx.buf), wx.peer, base) {
		return false, o.err
	}
	return o.cd.Irecv(wx.peer, wireTag(base, sub), wx.buf, o.token(idx))
}

// completeHdr records the header message of item idx complete: a send's,
// or a receive's, whose payload's receive it then posts.
func (o *Sched) completeHdr(idx uint32) {
	if o.items[idx].send {
		o.left--
		return
	}
	done, err := o.hdrArrived(idx)
	switch {
	case err != nil:
		o.err = err
	case done:
		o.complete(idx)
	}
}

// unwrap checks an inline receive's header and copies its payload out;
// false: the operation failed and the payload stays where it is.
func (o *Sched) unwrap(idx uint32) bool {
	wx := &o.wire[idx]
	if !wx.inline || o.items[idx].send || o.items[idx].seg != 0 {
		return true
	}
	base, _ := o.wireBase(wx.sub)
	if !o.checkHdr(idx, wx.w, len(wx.buf), wx.peer, base) {
		return false
	}
	copy(wx.buf, wx.w[hdrSize:])
	return true
}
