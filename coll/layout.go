package coll

import "github.com/gocoll/gocoll/coll/internal/alg"

// Layout places the elements of a computational collective's array, as the
// spec's (blksz, offset) pair: with BlockSize > 0 the array is block-cyclic
// over the team's images, BlockSize elements per block, and Offset is the
// index of the first element used within that layout (BlockSize 1 is cyclic;
// one block per image is blocked). BlockSize 0 is the indefinite layout:
// every element lives on the image of team rank Offset.
type Layout struct {
	BlockSize int
	Offset    int
}

// Cyclic, Blocked and OnImage are the common layouts.
var Cyclic = Layout{BlockSize: 1}

// Blocked is the layout of count elements in blocks of ceil(count/P), one per image.
func Blocked(count, P int) Layout { return Layout{BlockSize: (count + P - 1) / P} }

// OnImage is the indefinite layout: every element on the image of team rank r.
func OnImage(r int) Layout { return Layout{Offset: r} }

// String is the layout as the spec's pair, {BlockSize,Offset}.
func (l Layout) String() string { return alg.Layout(l).String() }
