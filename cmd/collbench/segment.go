package main

import (
	"slices"
	"strings"

	gsync "github.com/gocoll/gocoll/sync"
)

// Rows of the one-sided path: gocoll.Seg.* are gocoll.Broadcast and
// gocoll.Exchange with every buffer in the image's segment and the flags
// SrcInSegment|DstInSegment (the data moves by put into the peer's segment
// and a notification, no matching receive), against the same native MPI
// calls as the out-of-segment rows, so that the two ratios side by side
// are the segment's gain.

// segPrefix names the in-segment rows.
const segPrefix = "gocoll.Seg."

// inSeg is the sync mode of the in-segment rows: that of the
// out-of-segment rows, plus the segment flags.
const inSeg = myMy | gsync.SrcInSegment | gsync.DstInSegment

func segmentEntries(b *bench) []entry {
	es := []entry{
		{name: segPrefix + "Broadcast", sized: true, rooted: true, goLoop: b.sBroadcast, cLoop: b.cBcast},
		{name: segPrefix + "Exchange", sized: true, goLoop: b.sExchange, cLoop: b.cAlltoall},
	}
	for i := range es {
		es[i].drain = b.drain
	}
	return es
}

// segmentSize is the segment the in-segment rows need (an Exchange's
// source and destination of np blocks of maxSize), or 0 when cfg selects
// none of them.
func segmentSize(cfg config, np int) int {
	if !slices.ContainsFunc(cfg.ops, func(op string) bool { return strings.HasPrefix(op, segPrefix) }) {
		return 0
	}
	return 2 * np * cfg.maxSize
}

func (b *bench) sBroadcast(size, iters int) error {
	im, t, seg := b.im, b.im.TeamAll(), b.im.Segment()
	dst, src := seg[:size], seg[:size] // the root's destination is its source, as in bcastBufs
	if b.rank != root {
		src = nil
	}
	return b.blocking(iters, func() error { return im.Broadcast(t, dst, root, src, size, inSeg) })
}

func (b *bench) sExchange(size, iters int) error {
	im, t, seg := b.im, b.im.TeamAll(), b.im.Segment()
	half := len(seg) / 2
	s, r := seg[:size*b.np], seg[half:half+size*b.np]
	return b.blocking(iters, func() error { return im.Exchange(t, r, s, size, inSeg) })
}
