package alg

// Trees over relative ranks 0..P-1 (the root is 0). Every tree here gives
// each node a contiguous range of relative ranks as its subtree, so
// scatter/gather move one contiguous run per edge, and a reduction over a
// subtree folds consecutive contributions (non-commutative operators stay
// correct).

// Tree names the shape of a broadcast, scatter or gather tree: package
// coll's Tree, by value.
type Tree int

const (
	// TreeAuto: not a shape; the choice is the caller's.
	TreeAuto Tree = iota
	// Binomial: node v's children are v+2^j for 2^j below v's lowest set
	// bit; depth ceil(lg P).
	Binomial
	// Binary: each subtree splits the rest of its range into two halves.
	Binary
	// Flat: the root sends to every node itself.
	Flat
)

// String names the tree shape.
func (t Tree) String() string {
	switch t {
	case TreeAuto:
		return "auto"
	case Binomial:
		return "binomial"
	case Binary:
		return "binary"
	case Flat:
		return "flat"
	}
	return "tree?"
}

// span is the range [lo, hi) of relative ranks of a subtree rooted at lo.
type span struct{ lo, hi int }

func (s span) size() int { return s.hi - s.lo }

// children of the subtree s, in increasing order of rank.
func (t Tree) children(s span) []span {
	var cs []span
	switch t {
	case Flat:
		for c := s.lo + 1; c < s.hi; c++ {
			cs = append(cs, span{c, c + 1})
		}
	case Binary:
		if s.size() > 1 {
			left := s.lo + 1
			mid := left + (s.hi-left+1)/2
			cs = append(cs, span{left, mid})
			if mid < s.hi {
				cs = append(cs, span{mid, s.hi})
			}
		}
	default: // Binomial
		for j := 0; s.lo+1<<j < s.hi; j++ {
			cs = append(cs, span{s.lo + 1<<j, min(s.lo+1<<(j+1), s.hi)})
		}
	}
	return cs
}

// Subtrees are the child subtrees of the subtree [lo, hi) (relative ranks,
// rooted at lo) in the order its root serves them, each as [lo, hi): the
// schedules send to the last child first (a binomial tree's largest
// subtree), and the cost model walks them so (select.go, loggp.Tree).
func (t Tree) Subtrees(lo, hi int) [][2]int {
	cs := t.children(span{lo, hi})
	out := make([][2]int, 0, len(cs))
	for i := len(cs) - 1; i >= 0; i-- {
		out = append(out, [2]int{cs[i].lo, cs[i].hi})
	}
	return out
}

// treePos is a node's place in a tree.
type treePos struct {
	parent   int // relative rank, -1 at the root
	sub      span
	children []span
}

// locate finds relative rank v in the tree over P ranks.
func (t Tree) locate(P, v int) treePos {
	pos := treePos{parent: -1, sub: span{0, P}}
	for pos.sub.lo != v {
		for _, c := range t.children(pos.sub) {
			if v >= c.lo && v < c.hi {
				pos.parent, pos.sub = pos.sub.lo, c
				break
			}
		}
	}
	pos.children = t.children(pos.sub)
	return pos
}
