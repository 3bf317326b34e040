package colltest

import (
	"fmt"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/images"
	"github.com/gocoll/gocoll/reducefn"
	gsync "github.com/gocoll/gocoll/sync"
)

// GridShape is the dims and periodicities of a Cartesian grid.
type GridShape struct {
	Dims     []int
	Periodic []bool
}

// GridShapes are grids of P places to test the neighbour exchanges on: a
// line, open and periodic; a ring of rows of one (each its own neighbour
// in the periodic dimension); two dimensions where P factors, each
// periodic in one; three dimensions of two where 4 divides P (a periodic
// dimension of two: the same neighbour both ways).
func GridShapes(P int) []GridShape {
	gs := []GridShape{
		{[]int{P}, []bool{false}},
		{[]int{P}, []bool{true}},
		{[]int{1, P}, []bool{true, false}},
	}
	for a := 2; a < P; a++ {
		if P%a == 0 {
			gs = append(gs, GridShape{[]int{a, P / a}, []bool{true, false}}, GridShape{[]int{P / a, a}, []bool{false, true}})
			break
		}
	}
	if P%4 == 0 {
		gs = append(gs, GridShape{[]int{2, 2, P / 4}, []bool{true, false, true}})
	}
	return gs
}

// NeighborExchanges runs the neighbour exchanges steps times on every
// grid of GridShapes over team t: equal blocks and blocks of counts that
// change from step to step (zeros included, laid out in another order on
// every image, with gaps; in step 4 thousands of times larger), blocking
// and NB, typed (int32) and bytes in turn. Every block is checked against the serial model (block i holds
// what neighbour i sent in the opposite direction), and everything else,
// the blocks of a missing neighbour included, against being written. f is
// the calls' flags.
func NeighborExchanges(im *coll.Image, t *images.Team, f gsync.Flags, steps int) error {
	me := t.Rank(im.ImageNum())
	for _, s := range GridShapes(t.Size()) {
		g, err := images.NewGrid(t, s.Dims, s.Periodic)
		if err != nil {
			return err
		}
		for step := range steps {
			if err := neighborStep(im, g, f, me, step); err != nil {
				return fmt.Errorf("grid %v periodic %v, step %d: %w", s.Dims, s.Periodic, step, err)
			}
		}
	}
	return nil
}

// NeighborCount is the count image `from` sends its neighbour in
// direction dir in step: 0 to 3, some none.
func NeighborCount(from, dir, step int) int { return (from*3 + dir*5 + step) % 4 }

func neighborStep(im *coll.Image, g *images.Grid, f gsync.Flags, me, step int) error {
	nn := g.NumNeighbors()
	nb, typed, equal := step%2 == 1, step%4 < 2, step%3 == 0
	scale := 1
	if step%5 == 4 {
		scale = 3000 // blocks of up to 36 KB: a node's pieces to another travel as messages of their own
	}
	sc, rc, want := make([]int, nn), make([]int, nn), make([]int, nn)
	for i := range nn {
		n := g.Neighbor(me, i)
		switch {
		case equal:
			sc[i], rc[i] = step%5+1, step%5+1
		case n == images.NoNeighbor:
			sc[i], rc[i] = scale*NeighborCount(me, i, step), 1 // checked, not touched
		default:
			sc[i], rc[i] = scale*NeighborCount(me, i, step), scale*NeighborCount(n, i^1, step)
		}
		if n != images.NoNeighbor {
			want[i] = rc[i]
		}
	}
	var sd, rd []int
	var sn, rn int
	if equal {
		sd, sn = blocksInOrder(sc)
		rd, rn = blocksInOrder(rc)
		rn++ // an element after the blocks, not to be written
	} else {
		sd, sn = vPlace(sc, me)
		rd, rn = vPlace(rc, me+1)
	}
	src, dst := vBuffer(sn), vBuffer(rn)
	for i, c := range sc {
		for e := range c {
			src[sd[i]+e] = vVal(step, me, i, e)
		}
	}
	var err error
	switch c := sc[0]; {
	case equal && typed && nb:
		err = vWait(coll.NeighborExchangeOfNB(im, g, dst, src, c, f))
	case equal && typed:
		err = coll.NeighborExchangeOf(im, g, dst, src, c, f)
	case equal && nb:
		err = vWait(im.NeighborExchangeNB(g, reducefn.Bytes(dst), reducefn.Bytes(src), 4*c, f))
	case equal:
		err = im.NeighborExchange(g, reducefn.Bytes(dst), reducefn.Bytes(src), 4*c, f)
	case typed && nb:
		err = vWait(coll.NeighborExchangeVOfNB(im, g, dst, rc, rd, src, sc, sd, f))
	case typed:
		err = coll.NeighborExchangeVOf(im, g, dst, rc, rd, src, sc, sd, f)
	case nb:
		err = vWait(im.NeighborExchangeVNB(g, reducefn.Bytes(dst), scaled(rc), scaled(rd), reducefn.Bytes(src), scaled(sc), scaled(sd), f))
	default:
		err = im.NeighborExchangeV(g, reducefn.Bytes(dst), scaled(rc), scaled(rd), reducefn.Bytes(src), scaled(sc), scaled(sd), f)
	}
	if err != nil {
		return fmt.Errorf("NeighborExchange (equal %v, nb %v, typed %v): %w", equal, nb, typed, err)
	}
	return checkBlocks(fmt.Sprintf("NeighborExchange (equal %v, nb %v, typed %v) on rank %d", equal, nb, typed, me), dst, want, rd,
		func(i, e int) int32 { return vVal(step, g.Neighbor(me, i), i^1, e) })
}

// blocksInOrder lays blocks of counts out one after another.
func blocksInOrder(counts []int) (displs []int, n int) {
	displs = make([]int, len(counts))
	for i, c := range counts {
		displs[i] = n
		n += c
	}
	return displs, n
}
