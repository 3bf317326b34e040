// Package halo exchanges the edges of a block of a distributed grid with the
// neighbouring blocks, over gocoll's collectives only: it is the halo
// exchange of the examples (heat2d, cg).
//
// gocoll, like the GASNet collectives it follows, has no point-to-point
// transfer. Two neighbours form a team of two, in which Exchange swaps one
// block each way: that is the halo exchange of one edge. A Line is a team
// seen as a line of images, each with a neighbour below (team rank r-1) and
// above (r+1); its pair teams come from splitting the team twice, into the
// pairs (0,1), (2,3), ... and (1,2), (3,4), ...; an image at an end of the
// line is alone in one of the splits and joins no team there.
//
// The exchanges are non-blocking, so that the two lines of a 2-D process
// grid (a row team and a column team) exchange at once, and a reduction in
// flight progresses while they wait. Their sync modes are IN_MYSYNC (the
// edges were written locally, by the sweep before) and OUT_MYSYNC (the halos
// are read locally only): no barrier is needed on either side.
package halo

import (
	"context"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/images"
	gsync "github.com/gocoll/gocoll/sync"
)

// Side names a neighbour on a line.
type Side int

const (
	// Below is the neighbour of team rank r-1.
	Below Side = iota
	// Above is the neighbour of team rank r+1.
	Above
)

// Flags are the sync and addressing modes of the exchanges. AllThreads lets
// a node host several images, each calling for itself (one image per node
// works the same).
const Flags = gsync.InMySync | gsync.OutMySync | gsync.Local | gsync.AllThreads

// pair is the team of this image and one neighbour, with the two blocks
// Exchange moves: block 1-me of send goes to the neighbour, whose block for
// this image lands in block 1-me of recv. Block me of each (this image to
// itself) is scratch space that the exchange copies.
type pair struct {
	team       *images.Team
	me         int
	send, recv []float64
}

// Line is one image's view of a line of images: its pair teams with the
// neighbours and the buffers of one edge each way.
type Line struct {
	im      *coll.Image
	n       int
	pairs   [2]pair // indexed by Side; team nil where there is no neighbour
	handles []gsync.Handle
}

// NewLine makes image im's Line over team t, with edges of n values. It is
// collective over t: every member calls it, in the same order as its other
// collectives on t.
func NewLine(im *coll.Image, t *images.Team, n int) (*Line, error) {
	l := &Line{im: im, n: n, handles: make([]gsync.Handle, 0, 2)}
	r := t.Rank(im.ImageNum())
	for q := range 2 { // q = 0: pairs (0,1), (2,3)...; q = 1: (1,2), (3,4)...
		partner, side := r+1, Above
		if (r-q)%2 != 0 {
			partner, side = r-1, Below
		}
		color := (r + 2 - q) / 2 // the same for both members of a pair
		if partner < 0 || partner >= t.Size() {
			color = images.NoColor
		}
		team, err := im.Split(t, color, r)
		if err != nil {
			return nil, err
		}
		if team == nil {
			continue
		}
		me := team.Rank(im.ImageNum())
		l.pairs[side] = pair{team: team, me: me, send: make([]float64, 2*n), recv: make([]float64, 2*n)}
	}
	return l, nil
}

// Has reports whether there is a neighbour on side s.
func (l *Line) Has(s Side) bool { return l.pairs[s].team != nil }

// Edge is where the caller puts the n values for the neighbour on side s
// before Start (nil when there is none).
func (l *Line) Edge(s Side) []float64 { return l.theirs(s, false) }

// Halo is where the neighbour's n values for this image are after Wait (nil
// when there is none).
func (l *Line) Halo(s Side) []float64 { return l.theirs(s, true) }

// theirs is the neighbour's block of the pair on side s, of recv or send.
func (l *Line) theirs(s Side, recv bool) []float64 {
	p := &l.pairs[s]
	if p.team == nil {
		return nil
	}
	b := p.send
	if recv {
		b = p.recv
	}
	o := (1 - p.me) * l.n
	return b[o : o+l.n]
}

// Start starts the exchanges with both neighbours; Wait ends them. Edges
// must not change, nor halos be read, in between.
func (l *Line) Start() error {
	for s := range l.pairs {
		p := &l.pairs[s]
		if p.team == nil {
			continue
		}
		h, err := coll.ExchangeOfNB(l.im, p.team, p.recv, p.send, l.n, Flags)
		if err != nil {
			return err
		}
		l.handles = append(l.handles, h)
	}
	return nil
}

// Wait waits for the exchanges that Start started.
func (l *Line) Wait(ctx context.Context) error {
	err := gsync.WaitAll(ctx, l.handles)
	l.handles = l.handles[:0]
	return err
}

// Close destroys the pair teams (not collective: each image for itself).
func (l *Line) Close() error {
	for s := range l.pairs {
		if t := l.pairs[s].team; t != nil {
			if err := l.im.Destroy(t); err != nil {
				return err
			}
			l.pairs[s].team = nil
		}
	}
	return nil
}
