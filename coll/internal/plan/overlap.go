package plan

import (
	"errors"
	"fmt"

	"github.com/gocoll/gocoll/coll/internal/alg"
	"github.com/gocoll/gocoll/images"
)

// Area is member k's (team rank mem[k] of t) destination and source data areas in c, nil where an
// argument does not apply to it; the arguments have been validated.
func Area(c *Call, k int, t *images.Team, mem []int) (d, s []byte) {
	key := &c.Key
	r, P, n := mem[k], t.Size(), key.N
	isRoot := r == key.Root
	dst, src := c.Dst[k], c.Src[k]
	if key.Kind.IsV() {
		return vArea(c, k, r)
	}
	if dst == nil && (key.Kind == Broadcast || key.Kind == Scatter) {
		return nil, nil // a root that served itself (staging: package local): none of its memory is touched
	}
	part := func(b []byte, size int, applies bool) []byte {
		if !applies || size == 0 {
			return nil
		}
		return b[:size]
	}
	switch key.Kind {
	case Broadcast:
		return dst[:n], part(src, n, isRoot)
	case Scatter:
		return dst[:n], part(src, n*P, isRoot)
	case Gather:
		return part(dst, n*P, isRoot), src[:n]
	case GatherAll:
		return dst[:n*P], src[:n]
	case Exchange:
		return dst[:n*P], src[:n*P]
	case Barrier:
		return nil, nil
	}
	sd := alg.Dist{Layout: key.SrcLayout, P: P, Count: key.Count}
	s = part(src, sd.LocalLen(r)*key.ElemSize, true)
	switch key.Kind {
	case Reduce:
		return part(dst, key.ElemSize, isRoot), s
	case ReduceAll:
		return dst[:key.ElemSize], s
	case ReduceScatter:
		counts := c.V[k].Counts
		return part(dst, counts[r]*key.ElemSize/Total(counts), true), s
	}
	dd := alg.Dist{Layout: key.DstLayout, P: P, Count: key.Count}
	return part(dst, dd.LocalLen(r)*key.ElemSize, true), s
}

// CrossOverlap checks the data areas of different members of the node
// (mem, team ranks of t): a
// destination must not overlap another member's destination or source (the
// spec leaves overlapping blocks of images on one node undefined; sources
// only read are let be), except that a broadcast's source may be identical
// to one destination.
func CrossOverlap(c *Call, t *images.Team, mem []int) error {
	switch c.Key.Kind {
	case ExchangeV:
		if err := exchangePairs(c, t, mem); err != nil {
			return err
		}
	case NeighborExchange:
		if err := neighborPairs(c, t, mem); err != nil {
			return err
		}
	}
	return OverlapAmong(c, t, mem, func(k int) (d, s []byte) { return Area(c, k, t, mem) })
}

// OverlapAmong is CrossOverlap with member k's data areas given by area
// (a direct fold knows them without the general computation).
func OverlapAmong(c *Call, t *images.Team, mem []int, area func(k int) (d, s []byte)) error {
	if len(c.Dst) < 2 {
		return nil
	}
	bcast := c.Key.Kind == Broadcast
	for k := range c.Dst {
		dk, _ := area(k)
		if len(dk) == 0 {
			continue
		}
		for j := range c.Dst {
			if j == k {
				continue
			}
			dj, sj := area(j)
			if j > k && alg.Overlap(dk, dj) {
				return fmt.Errorf("%w: destinations of images %d and %d of the node", ErrOverlap, t.Image(mem[k]), t.Image(mem[j]))
			}
			if alg.Overlap(dk, sj) && !(bcast && alg.Identical(dk, sj)) {
				return fmt.Errorf("%w: destination of image %d and source of image %d", ErrOverlap, t.Image(mem[k]), t.Image(mem[j]))
			}
		}
	}
	return nil
}

// ArgsDiffer is ErrArgsDiffer saying, in the caller's words, how the
// images' calls differ.
func ArgsDiffer(format string, args ...any) error {
	return fmt.Errorf("%w: the node's images called different collectives or with different arguments (%s)",
		ErrArgsDiffer, fmt.Sprintf(format, args...))
}

var (
	// ErrOverlap reports data areas that overlap where they must not.
	ErrOverlap = errors.New("gocoll: source and destination overlap")
	// ErrArgsDiffer reports images of one node that called a collective
	// with different arguments.
	ErrArgsDiffer = errors.New("gocoll: a node's images called a collective with different arguments")
)
