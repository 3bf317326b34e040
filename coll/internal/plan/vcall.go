package plan

import (
	"fmt"
	"slices"

	"github.com/gocoll/gocoll/images"
)

// The v-variants (GatherV, ScatterV, GatherAllV, ExchangeV): a block per
// team rank of its own length; and NeighborExchange, ExchangeV with a
// block per neighbour on a grid. Counts and displacements are in units of
// the key's ElemSize (1 in the byte forms, the element's size in the typed
// ones), so that a typed call passes the caller's slices as they are.

// IsV reports whether k is a v-variant (NeighborExchange included).
func (k Kind) IsV() bool { return k >= GatherV && k <= NeighborExchange }

// Counted reports whether a call of kind k has a count per rank (Call.V):
// the v-variants and ReduceScatter.
func (k Kind) Counted() bool { return k.IsV() || k == ReduceScatter }

// VArgs are one member's counts and displacements in a v-call. Counts
// (every image passes the same, but in ExchangeV, where they are the
// member's send counts) and Displs index the member's buffer that holds a
// block per rank: the destination of GatherV (at the root) and
// GatherAllV, the source of ScatterV (at the root) and ExchangeV.
// ExchangeV's receives are RCounts and RDispls, into the destination.
// NeighborExchange's lists have a block per neighbour of the member on
// Grid (in the order of Grid.Neighbors), sends in Counts and Displs.
type VArgs struct {
	Counts, Displs   []int
	RCounts, RDispls []int
	Grid             *images.Grid
}

// clone is v with slices of its own.
func (v VArgs) clone() VArgs {
	return VArgs{slices.Clone(v.Counts), slices.Clone(v.Displs), slices.Clone(v.RCounts), slices.Clone(v.RDispls), v.Grid}
}

// CloneV is vs with slices of its own: what a schedule keeps (the
// caller's may change once the call returned).
func CloneV(vs []VArgs) []VArgs {
	if vs == nil {
		return nil
	}
	out := make([]VArgs, len(vs))
	for i, v := range vs {
		out[i] = v.clone()
	}
	return out
}

// SameV reports whether a and b hold the same counts and displacements.
func SameV(a, b []VArgs) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if x.Grid != y.Grid || !slices.Equal(x.Counts, y.Counts) || !slices.Equal(x.Displs, y.Displs) ||
			!slices.Equal(x.RCounts, y.RCounts) || !slices.Equal(x.RDispls, y.RDispls) {
			return false
		}
	}
	return true
}

// HashInts is a hash of xs, for keys: equal lists hash alike, and a cache
// compares the lists themselves before it takes a schedule for another's.
func HashInts(h uint64, xs []int) uint64 {
	h = (h ^ uint64(len(xs))) * 0x100000001b3
	for _, x := range xs {
		h = (h ^ uint64(x)) * 0x100000001b3
		h ^= h >> 29
	}
	return h
}

// hashV is the VH of members' extents vs.
func hashV(vs []VArgs) uint64 {
	h := uint64(14695981039346656037)
	for i := range vs {
		v := &vs[i]
		for _, l := range [4][]int{v.Counts, v.Displs, v.RCounts, v.RDispls} {
			h = HashInts(h, l)
		}
	}
	return h
}

// VSpan is the part of b that the blocks (counts, displs, in units of u)
// with a positive count cover, from the first to the end of the last; nil
// when there is none.
func VSpan(b []byte, counts, displs []int, u int) []byte {
	lo, hi := -1, 0
	for r, c := range counts {
		if c > 0 {
			if d := displs[r]; lo < 0 || d < lo {
				lo = d
			}
			hi = max(hi, displs[r]+c)
		}
	}
	if lo < 0 {
		return nil
	}
	return b[lo*u : hi*u]
}

// vArea is Area for a v-call: the spans of member k's blocks.
func vArea(c *Call, k int, r int) (d, s []byte) {
	key, v := &c.Key, &c.V[k]
	u, dst, src := key.ElemSize, c.Dst[k], c.Src[k]
	own := func(b []byte, n int) []byte {
		if n == 0 {
			return nil
		}
		return b[:n*u]
	}
	isRoot := r == key.Root
	switch key.Kind {
	case GatherV:
		if isRoot {
			d = VSpan(dst, v.Counts, v.Displs, u)
		}
		return d, own(src, v.Counts[r])
	case ScatterV:
		if isRoot {
			s = VSpan(src, v.Counts, v.Displs, u)
		}
		return own(dst, v.Counts[r]), s
	case GatherAllV:
		return VSpan(dst, v.Counts, v.Displs, u), own(src, v.Counts[r])
	}
	return VSpan(dst, v.RCounts, v.RDispls, u), VSpan(src, v.Counts, v.Displs, u)
}

// exchangePairs checks an ExchangeV between the members of one node (mem,
// team ranks of t), which no message header sees: what each sends another
// is what that one receives from it.
func exchangePairs(c *Call, t *images.Team, mem []int) error {
	for k, i := range mem {
		for j, jr := range mem {
			if s, r := c.V[k].Counts[jr], c.V[j].RCounts[i]; s != r {
				return fmt.Errorf("%w: image %d sends %d to image %d, which receives %d", ErrMismatch, t.Image(i), s, t.Image(jr), r)
			}
		}
	}
	return nil
}

// neighborPairs checks a NeighborExchange between the members of one
// node (mem, team ranks of t): what each sends a neighbour on the node is
// what that one receives from it (in the opposite direction).
func neighborPairs(c *Call, t *images.Team, mem []int) error {
	g := c.V[0].Grid
	for k, r := range mem {
		for i := range g.NumNeighbors() {
			n := g.Neighbor(r, i)
			if n == images.NoNeighbor {
				continue
			}
			j, ok := slices.BinarySearch(mem, n)
			if !ok {
				continue
			}
			if s, rc := c.V[k].Counts[i], c.V[j].RCounts[i^1]; s != rc {
				return fmt.Errorf("%w: image %d sends %d to its neighbour %d, image %d, which receives %d", ErrMismatch, t.Image(r), s, i, t.Image(n), rc)
			}
		}
	}
	return nil
}

// GridHash is a hash of grid g (its dimensions and periodicities) and
// unit u: what the images of a NeighborExchange agree on.
func GridHash(g *images.Grid, u int) uint64 {
	h := (uint64(14695981039346656037) ^ uint64(u)) * 0x100000001b3
	for i := range g.NumNeighbors() / 2 {
		n, p := g.Dim(i)
		x := uint64(n) << 1
		if p {
			x |= 1
		}
		h = (h ^ x) * 0x100000001b3
		h ^= h >> 29
	}
	return h
}

// Total is the sum of counts (checked not to overflow).
func Total(counts []int) int {
	n := 0
	for _, c := range counts {
		n += c
	}
	return n
}
