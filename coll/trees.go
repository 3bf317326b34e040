package coll

import "github.com/gocoll/gocoll/coll/internal/alg"

// Tree names the shape of a broadcast, scatter or gather tree (package
// alg builds them). Every tree gives each node a contiguous range of
// relative ranks as its subtree, so scatter and gather move one contiguous
// run per edge, and a reduction over a subtree folds consecutive
// contributions (non-commutative operators stay correct).
type Tree int

const (
	// TreeAuto: the shape the cost model predicts fastest for the
	// collective, its number of nodes and its size (select.go). The
	// default.
	TreeAuto = Tree(alg.TreeAuto)
	// Binomial: node v's children are v+2^j for 2^j below v's lowest set
	// bit; depth ceil(lg P).
	Binomial = Tree(alg.Binomial)
	// Binary: each subtree splits the rest of its range into two halves.
	Binary = Tree(alg.Binary)
	// Flat: the root sends to every node itself.
	Flat = Tree(alg.Flat)
)

// String names the tree shape.
func (t Tree) String() string { return alg.Tree(t).String() }

// Subtrees are the child subtrees of the subtree [lo, hi) (relative ranks,
// rooted at lo) in the order its root serves them, each as [lo, hi): the
// schedules send to the last child first (a binomial tree's largest
// subtree), and the cost model walks them so (select.go, loggp.Tree).
func (t Tree) Subtrees(lo, hi int) [][2]int { return alg.Tree(t).Subtrees(lo, hi) }
