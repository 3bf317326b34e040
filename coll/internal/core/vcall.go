package core

import (
	"fmt"
	"math"
	"slices"

	"github.com/gocoll/gocoll/coll/internal/alg"
	"github.com/gocoll/gocoll/coll/internal/plan"
	"github.com/gocoll/gocoll/images"
	"github.com/gocoll/gocoll/internal/engine"
	gsync "github.com/gocoll/gocoll/sync"
)

// The v-variants' checks. Counts and displacements are in units of unit
// bytes (the element's size in the typed forms). The counts of GatherV,
// ScatterV and GatherAllV are every image's alike (their hash is in the
// key, so that checked mode and the message headers see a disagreement);
// displacements are each image's own, as are ExchangeV's counts, whose
// pairs the message headers check (a length that differs is ErrMismatch).

// GatherV, ScatterV and GatherAllV: in the m forms (multi), the node's
// images' own buffers are listed (srcs of GatherV and GatherAllV, dsts of
// ScatterV and GatherAllV); counts and displacements are the node's, as
// every image's are alike where they apply.

func (im *Image) GatherV(t *images.Team, root int, dst []byte, counts, displs []int, src []byte, srcs [][]byte, multi bool, unit int, f gsync.Flags, nb bool) (engine.Handle, error) {
	var a callArgs
	im.vArgs(&a, plan.GatherV, t, root, unit, counts, f, nb, multi)
	a.take(a.Dst, "dst", dst, nil, false, im.n)
	a.take(a.Src, "src", src, srcs, multi, im.n)
	lo, hi := a.members()
	for k := lo; k < hi && a.err == nil; k++ {
		a.vBlocks(k, a.Src[k], a.Dst[k], "src", "dst", counts, displs, unit, a.tn.Mem[k] == root, true)
	}
	return im.run(&a)
}

func (im *Image) ScatterV(t *images.Team, dst []byte, dsts [][]byte, multi bool, root int, src []byte, counts, displs []int, unit int, f gsync.Flags, nb bool) (engine.Handle, error) {
	var a callArgs
	im.vArgs(&a, plan.ScatterV, t, root, unit, counts, f, nb, multi)
	a.take(a.Dst, "dst", dst, dsts, multi, im.n)
	a.take(a.Src, "src", src, nil, false, im.n)
	lo, hi := a.members()
	for k := lo; k < hi && a.err == nil; k++ {
		a.vBlocks(k, a.Dst[k], a.Src[k], "dst", "src", counts, displs, unit, a.tn.Mem[k] == root, false)
	}
	return im.run(&a)
}

func (im *Image) GatherAllV(t *images.Team, dst []byte, dsts [][]byte, counts, displs []int, src []byte, srcs [][]byte, multi bool, unit int, f gsync.Flags, nb bool) (engine.Handle, error) {
	var a callArgs
	im.vArgs(&a, plan.GatherAllV, t, 0, unit, counts, f, nb, multi)
	a.take(a.Dst, "dst", dst, dsts, multi, im.n)
	a.take(a.Src, "src", src, srcs, multi, im.n)
	lo, hi := a.members()
	for k := lo; k < hi && a.err == nil; k++ {
		a.vBlocks(k, a.Src[k], a.Dst[k], "src", "dst", counts, displs, unit, true, true)
	}
	return im.run(&a)
}

// vBlocks checks member k's buffers in a GatherV, ScatterV or GatherAllV:
// own, whose first counts[rank] units are its block, and, where applies
// (the root, or everyone), blocks, which holds a block per rank at displs
// (a destination when dest). own may not overlap those blocks, unless it
// is the member's own block among them.
func (a *callArgs) vBlocks(k int, own, blocks []byte, ownName, blocksName string, counts, displs []int, unit int, applies, dest bool) {
	r := a.tn.Mem[k]
	a.V[k] = plan.VArgs{Counts: counts, Displs: displs}
	a.need(ownName, k, own, counts[r]*unit, counts[r] > 0)
	if !applies && !a.single {
		return
	}
	a.extents(blocksName, blocks, counts, displs, unit, dest)
	if a.err != nil || !applies || counts[r] == 0 {
		return
	}
	mine, its := own[:counts[r]*unit], blocks[displs[r]*unit:(displs[r]+counts[r])*unit]
	if !alg.Identical(mine, its) {
		a.disjoint(mine, plan.VSpan(blocks, counts, displs, unit), true, false)
	}
}

func (im *Image) ExchangeV(t *images.Team, dst []byte, rcounts, rdispls []int, src []byte, scounts, sdispls []int, unit int, f gsync.Flags, nb bool) (engine.Handle, error) {
	var a callArgs
	im.vArgs(&a, plan.ExchangeV, t, 0, unit, nil, f, nb, false)
	lo, hi := a.members()
	for k := lo; k < hi && a.err == nil; k++ {
		a.V[k] = plan.VArgs{Counts: scounts, Displs: sdispls, RCounts: rcounts, RDispls: rdispls}
		a.Dst[k], a.Src[k] = dst, src
		a.listLen("send counts", scounts, a.P)
		a.listLen("receive counts", rcounts, a.P)
		a.extents("src", src, scounts, sdispls, unit, false)
		a.extents("dst", dst, rcounts, rdispls, unit, true)
		if a.err == nil {
			a.disjoint(plan.VSpan(dst, rcounts, rdispls, unit), plan.VSpan(src, scounts, sdispls, unit), true, false)
		}
	}
	return im.run(&a)
}

// NeighborExchange is ExchangeV with the neighbours of each image on grid
// g in place of the team's ranks: block i of src (at sdispls[i], of
// scounts[i] units) goes to neighbour i, whose block from this image, in
// the opposite direction (i^1), lands at rdispls[i^1] of its dst. Blocks
// of a direction with no neighbour are not touched.
func (im *Image) NeighborExchange(g *images.Grid, dst []byte, rcounts, rdispls []int, src []byte, scounts, sdispls []int, unit int, f gsync.Flags, nb bool) (engine.Handle, error) {
	var a callArgs
	if g == nil {
		a.err = fmt.Errorf("%w: nil grid", images.ErrGrid)
		return im.run(&a)
	}
	im.vArgs(&a, plan.NeighborExchange, g.Team(), 0, unit, nil, f, nb, false)
	if a.err == nil {
		a.Key.VC = plan.GridHash(g, unit)
	}
	n := g.NumNeighbors()
	lo, hi := a.members()
	for k := lo; k < hi && a.err == nil; k++ {
		a.V[k] = plan.VArgs{Counts: scounts, Displs: sdispls, RCounts: rcounts, RDispls: rdispls, Grid: g}
		a.Dst[k], a.Src[k] = dst, src
		a.listLen("send counts", scounts, n)
		a.listLen("receive counts", rcounts, n)
		a.extents("src", src, scounts, sdispls, unit, false)
		a.extents("dst", dst, rcounts, rdispls, unit, true)
		a.blocksApart(dst, rcounts, rdispls, src, scounts, sdispls, unit)
		for i := 0; i < n && a.err == nil; i++ { // to itself (a periodic dimension of 1 or 2): no header sees it
			if r := a.tn.Mem[k]; g.Neighbor(r, i) == r && scounts[i] != rcounts[i^1] {
				a.err = fmt.Errorf("%w: image %d sends %d to itself as neighbour %d and receives %d as neighbour %d", ErrCounts, im.ImageNum(), scounts[i], i, rcounts[i^1], i^1)
			}
		}
	}
	return im.run(&a)
}

// blocksApart checks that no block received (of dst, by rcounts and
// rdispls) overlaps a block sent (of src): block by block, so that a halo
// exchange may send from and receive into one array. For the few blocks
// of a neighbour exchange.
func (a *callArgs) blocksApart(dst []byte, rcounts, rdispls []int, src []byte, scounts, sdispls []int, unit int) {
	for j, rc := range rcounts {
		if a.err != nil || rc == 0 {
			continue
		}
		d := dst[rdispls[j]*unit : (rdispls[j]+rc)*unit]
		for i, sc := range scounts {
			if sc > 0 && alg.Overlap(d, src[sdispls[i]*unit:(sdispls[i]+sc)*unit]) {
				a.err = fmt.Errorf("%w: block %d received and block %d sent", plan.ErrOverlap, j, i)
				return
			}
		}
	}
}

// vArgs starts the checks of a v-call of kind k (an m form if multi);
// counts are the ones every image passes alike (nil for ExchangeV). It
// returns their total.
func (im *Image) vArgs(a *callArgs, k plan.Kind, t *images.Team, root, unit int, counts []int, f gsync.Flags, nb, multi bool) int {
	im.args(a, k, t, root, 1, f, nb, multi)
	a.Key.N, a.Key.ElemSize = 0, unit
	if a.err != nil {
		return 0
	}
	if unit <= 0 {
		a.err = fmt.Errorf("%w: unit %d", ErrElemSize, unit)
		return 0
	}
	m := len(a.tn.Mem)
	if cap(im.vlist) < m {
		im.vlist = make([]plan.VArgs, m)
	}
	a.V = im.vlist[:m]
	if counts == nil {
		return 0
	}
	a.listLen("counts", counts, a.P)
	total := 0
	for r, c := range counts {
		if a.err != nil {
			break
		}
		if c < 0 || c > math.MaxInt/unit-total {
			a.err = fmt.Errorf("%w: count %d of rank %d (counts total more than %d bytes, or negative)", ErrCounts, c, r, math.MaxInt)
		}
		total += c
	}
	a.Key.N, a.Key.VC = total*unit, plan.HashInts(uint64(unit), counts)
	return total
}

// listLen checks that a list of counts has n entries: one per team rank
// (n is the team's size), or per neighbour.
func (a *callArgs) listLen(name string, l []int, n int) {
	if a.err == nil && len(l) != n {
		a.err = fmt.Errorf("%w: %s has %d entries, want %d (%s)", ErrCounts, name, len(l), n, a.listOf(n))
	}
}

// listOf says what a list of n entries has one entry for.
func (a *callArgs) listOf(n int) string {
	if a.Key.Kind == plan.NeighborExchange {
		return fmt.Sprintf("%d neighbours", n)
	}
	return fmt.Sprintf("team size %d", n)
}

// extents checks a buffer of a block per rank (or neighbour; counts have
// been checked to have one each): displacements, one per block, none
// negative, every block inside b; the blocks of a destination may not
// overlap.
func (a *callArgs) extents(name string, b []byte, counts, displs []int, unit int, dest bool) {
	if a.err != nil {
		return
	}
	if len(displs) != len(counts) {
		a.err = fmt.Errorf("%w: %s displacements have %d entries, want %d (%s)", ErrCounts, name, len(displs), len(counts), a.listOf(len(counts)))
		return
	}
	lim := len(b) / unit
	for r, d := range displs {
		if c := counts[r]; c < 0 || d < 0 || d > lim || c > lim-d {
			a.err = fmt.Errorf("%w: %s block of rank %d (%d at %d) outside %d units", ErrCounts, name, r, c, d, lim)
			return
		}
	}
	if !dest {
		return
	}
	if p, q := overlapping(counts, displs); p >= 0 {
		a.err = fmt.Errorf("%w: %s blocks of ranks %d and %d", plan.ErrOverlap, name, p, q)
	}
}

// overlapping returns two ranks whose blocks (those with a positive
// count) overlap, or -1, -1. Blocks in rank order, the common layout, are
// seen in one pass; others are sorted by displacement.
func overlapping(counts, displs []int) (p, q int) {
	prev, sorted := -1, true
	for r, c := range counts {
		if c == 0 {
			continue
		}
		if prev >= 0 && displs[prev]+counts[prev] > displs[r] {
			sorted = false
			break
		}
		prev = r
	}
	if sorted {
		return -1, -1
	}
	o := make([]int, 0, len(counts))
	for r, c := range counts {
		if c > 0 {
			o = append(o, r)
		}
	}
	slices.SortFunc(o, func(p, q int) int { return displs[p] - displs[q] })
	for i := 1; i < len(o); i++ {
		if p, q := o[i-1], o[i]; displs[p]+counts[p] > displs[q] {
			return p, q
		}
	}
	return -1, -1
}

// ReduceScatter checks a reduce-scatter: every image's src is a vector of
// the counts' total elements of es bytes, folded lane by lane by function
// fn (one element of the whole vector per image, Cyclic, as the typed
// reductions' shape), and rank r gets counts[r] elements of the fold. The
// schedules split the vectors between images, so fn must combine elements
// one by one: lanes says the typed layer's elements are (its operations
// fold lane by lane), else fn's entry must combine scalars one by one (its
// Scalar) and es be a whole number of them.
func (im *Image) ReduceScatter(t *images.Team, dst []byte, dsts [][]byte, src []byte, srcs [][]byte, multi bool, counts []int, es, fn, arg int, f gsync.Flags, nb, lanes bool) (engine.Handle, error) {
	var a callArgs
	total := im.vArgs(&a, plan.ReduceScatter, t, 0, es, counts, f, nb, multi)
	if a.err == nil {
		e, _ := im.n.entry(fn)
		switch {
		case e.Fn == nil:
			a.err = fmt.Errorf("%w: %d, table of %d", ErrFunction, fn, len(im.n.fns))
		case !lanes && (e.Scalar <= 0 || es%e.Scalar != 0):
			a.err = fmt.Errorf("%w: a reduce-scatter splits the vectors, so its function must combine scalars one by one (entry %d has Scalar %d, elements of %d bytes)", ErrElemSize, fn, e.Scalar, es)
		case total == 0:
			a.err = fmt.Errorf("%w: the counts sum to 0", ErrCounts)
		}
	}
	// the key of a computational collective: one element of the whole
	// vector per image
	k := &a.Key
	k.N, k.ElemSize, k.Count, k.Fn, k.Arg, k.SrcLayout = 0, total*es, a.P, fn, arg, alg.Cyclic
	a.es = total * es
	a.take(a.Dst, "dst", dst, dsts, multi, im.n)
	a.take(a.Src, "src", src, srcs, multi, im.n)
	lo, hi := a.members()
	for m := lo; m < hi && a.err == nil; m++ {
		r, dst, src := a.tn.Mem[m], a.Dst[m], a.Src[m]
		a.V[m] = plan.VArgs{Counts: counts}
		a.need("src", m, src, total*es, true)
		a.need("dst", m, dst, counts[r]*es, counts[r] > 0)
		if a.err == nil {
			a.disjoint(dst[:counts[r]*es], src[:total*es], true, false)
		}
	}
	return im.run(&a)
}
