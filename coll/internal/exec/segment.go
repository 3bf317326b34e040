package exec

import (
	"encoding/binary"
	"unsafe"

	"github.com/gocoll/gocoll/coll/internal/alg"
	"github.com/gocoll/gocoll/internal/engine"
)

// Segments and the one-sided path (the spec's SrcInSegment and
// DstInSegment). With Options.SegmentSize every image gets a segment of
// that many bytes (Image.Segment), a part of its node's segment, which the
// conduit allocates collectively (OneSided.AllocSegment: for MPI, a
// window). The flags assert that the destinations (sources) lie in the
// segment; a data area that does not is ErrNotInSegment, never a silent
// fallback.
//
// In the data-movement collectives, a transfer into a destination in the
// segment has no matching receive and no receiver-side copy: the receiver
// tells the sender where its destination lies (a control message of 8
// bytes, the offset in its node's segment, sent as soon as it has entered,
// for every transfer it expects), and the sender writes there with
// OneSided.PutNotify, whose zero-byte notification completes the
// receiver's transfer. With SrcInSegment alone the receiver reads: the
// sender tells where its source lies, the receiver reads it with
// OneSided.Get and answers with a zero-byte message that completes the
// sender's transfer. A control message carries the message header of
// wire.go behind the offset (the call's sequence number, its arguments'
// hash and the transfer's length), checked before the write or the read:
// a call that disagrees fails with ErrMismatch, and no byte lands in a
// segment. A transfer whose end is not one run of client memory
// in the segment (an internal buffer of a tree's inner node, blocks packed
// from several places) sends the offset -1 and moves as a message. The
// control messages use the sub-tag of their transfer plus subCtl, the done
// messages plus subDone: two nodes may move data both ways under one
// sub-tag, and a done message must never match the other way's offset.
//
// Transfers smaller than Options.OneSidedMin move as messages: both ends
// know a transfer's size, so they agree on its path without a word.
//
// The reductions' transfers are partials in internal buffers: their flags
// are checked, their data moves as messages. So does an aggregate's.

// subCtl and subDone mark the control and done messages' sub-tags (or'ed
// in): transfers on the one-sided path have sub-tags below segSubs.
const (
	segSubs = 32
	subCtl  = 64
	subDone = 96
)

// Modes of a schedule's one-sided path.
const (
	SegPut = 1 + iota // DstInSegment: the sender writes
	SegGet            // SrcInSegment alone: the receiver reads
)

// Token indices of control messages: auxIdx plus the transfer's index in
// segState.xs; done messages (nobody waits for them) have ignoreIdx too.
const (
	auxIdx    = 1 << 30
	ignoreIdx = 1 << 31
)

// segState is a schedule's one-sided path.
type segState struct {
	mode int
	xs   []segXfer
}

// segXfer is a transfer on the one-sided path.
type segXfer struct {
	item      uint32 // its item (the data transfer, or what stands for it)
	peer, tag int
	buf       []byte
	send      bool
	ctl       [8 + hdrSize]byte // the control message: an offset, or -1, and a header
	ctlIn     bool              // the control message is one this end receives
	ctlDone   bool
	started   bool // send side: its round started
	acted     bool // the transfer (put, get or message) is issued
	doneOwed  bool // get side: the read is over, the done message to send
}

// SegOffset is b's offset in the node's segment, or -1.
func (n *Node) SegOffset(b []byte) int64 {
	if len(b) == 0 || len(n.Seg) == 0 {
		return -1
	}
	p, s := uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(unsafe.Pointer(unsafe.SliceData(n.Seg)))
	if p < s || p+uintptr(len(b)) > s+uintptr(len(n.Seg)) {
		return -1
	}
	return int64(p - s)
}

// resetSeg lists the schedule's transfers on the one-sided path (every data
// transfer; not the barriers'), after reset listed the items.
func (o *Sched) resetSeg() {
	s := o.seg
	s.xs = s.xs[:0]
	i := uint32(0)
	o.eachXfer(func(x alg.Xfer, send bool) {
		if x.Sub < segSubs && len(x.Buf) >= o.n.OneSidedMin {
			s.xs = append(s.xs, segXfer{item: i, peer: x.Peer, tag: x.Sub, buf: x.Buf, send: send})
			o.items[i].seg = int32(len(s.xs))
			o.left++ // the control message
		}
		i++
	})
	for j := range s.xs {
		x := &s.xs[j]
		x.ctlIn = x.send == (s.mode == SegPut)
	}
}

// postSeg starts, at initiation, what the one-sided path needs before any
// round: the control messages this end sends for its receives (put), with
// the receive of the notification (or of the message, at offset -1), and
// the receives of the control messages it gets. Step posts no receive of
// its own for a transfer on the path: that is done here or by stepSeg.
func (o *Sched) postSeg() error {
	s := o.seg
	for j := range s.xs {
		x := &s.xs[j]
		x.tag = wireTag(o.TagBase, x.tag)
		tok := engine.Token(o.slot, o.idxBase+auxIdx+uint32(j))
		ctlTag := x.tag | subCtl
		var done bool
		var err error
		switch {
		case x.ctlIn:
			done, err = o.cd.Irecv(x.peer, ctlTag, x.ctl[:], tok)
		case !x.send: // put: this receive's destination, told to the sender
			off := int64(-1)
			if o.items[x.item].client {
				off = o.n.SegOffset(x.buf)
			}
			o.putCtl(x, off)
			if done, err = o.cd.Isend(x.peer, ctlTag, x.ctl[:], tok); err == nil {
				// the sender's notification, or its message
				x.acted = true
				b := x.buf
				if off >= 0 {
					b = b[:0]
				}
				var d bool
				if d, err = o.cd.Irecv(x.peer, x.tag, b, o.token(x.item)); d {
					o.complete(x.item)
				}
			}
		default:
			continue // a get's send: at its round
		}
		if err != nil {
			return err
		}
		if done {
			o.completeCtl(uint32(j))
		}
	}
	return nil
}

// putCtl fills x's control message: offset off and the header.
func (o *Sched) putCtl(x *segXfer, off int64) {
	binary.LittleEndian.PutUint64(x.ctl[:], uint64(off))
	o.putHdr(x.ctl[8:], o.TagBase, len(x.buf))
}

// token is item i's token.
func (o *Sched) token(i uint32) uint64 { return engine.Token(o.slot, o.idxBase+i) }

// completeCtl records control message j complete.
func (o *Sched) completeCtl(j uint32) {
	x := &o.seg.xs[j]
	if !x.ctlDone {
		x.ctlDone = true
		o.left--
	}
}

// startSeg is startRound's send of item idx on the one-sided path.
func (o *Sched) startSeg(idx uint32) error {
	x := &o.seg.xs[o.items[idx].seg-1]
	x.started = true
	if o.seg.mode != SegGet {
		return o.stepSeg()
	}
	// get: tell the receiver where the source lies
	off := int64(-1)
	if o.items[idx].client {
		off = o.n.SegOffset(x.buf)
	}
	o.putCtl(x, off)
	j := uint32(o.items[idx].seg - 1)
	done, err := o.cd.Isend(x.peer, x.tag|subCtl, x.ctl[:], o.token(auxIdx+j))
	if err != nil {
		return err
	}
	if done {
		o.completeCtl(j)
	}
	x.acted = true
	if off >= 0 { // the reader's done message completes the send
		done, err = o.cd.Irecv(x.peer, x.tag|subDone, x.buf[:0], o.token(idx))
	} else {
		done, err = o.cd.Isend(x.peer, x.tag, x.buf, o.token(idx))
	}
	if done {
		o.complete(idx)
	}
	return err
}

// stepSeg issues the transfers whose control message has arrived: a
// put's write (or message) once its round started, a get's read (or
// receive); and a get's done message once its read is over.
func (o *Sched) stepSeg() error {
	for j := range o.seg.xs {
		x := &o.seg.xs[j]
		if err := o.sendDone(x); err != nil {
			return err
		}
		if x.acted || !x.ctlDone || !x.ctlIn || (x.send && !x.started) {
			continue
		}
		if !o.checkHdr(x.item, x.ctl[8:], len(x.buf), x.peer, o.TagBase) {
			if o.err != nil {
				return o.err
			}
			continue // late: fails once its round starts
		}
		x.acted = true
		off := int64(binary.LittleEndian.Uint64(x.ctl[:]))
		var done bool
		var err error
		oc := o.cd.(OneSided)
		switch {
		case x.send && off >= 0:
			done, err = oc.PutNotify(x.peer, int(off), x.tag, x.buf, o.token(x.item))
		case x.send:
			done, err = o.cd.Isend(x.peer, x.tag, x.buf, o.token(x.item))
		case off >= 0:
			done, err = oc.Get(x.peer, int(off), x.buf, o.token(x.item))
		default:
			done, err = o.cd.Irecv(x.peer, x.tag, x.buf, o.token(x.item))
		}
		if err != nil {
			return err
		}
		if done {
			o.complete(x.item)
		}
		if err := o.sendDone(x); err != nil { // a read that completed as it started
			return err
		}
	}
	return nil
}

// sendDone sends x's done message if owed (a get's read is over). An owed
// message counts in o.left, so that the schedule is not finished (and no
// longer stepped) before it leaves; nobody waits for its completion.
func (o *Sched) sendDone(x *segXfer) error {
	if !x.doneOwed {
		return nil
	}
	x.doneOwed = false
	o.left--
	_, err := o.cd.Isend(x.peer, x.tag|subDone, x.buf[:0], o.token(ignoreIdx))
	return err
}
