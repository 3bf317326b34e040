package coll

import "fmt"

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

// dist is a Layout applied to count elements over P images.
type dist struct {
	Layout
	P, count int
}

// check reports a layout the spec does not allow.
func (d dist) check(name string) error {
	switch {
	case d.BlockSize < 0:
		return fmt.Errorf("%w: %s block size %d", ErrLayout, name, d.BlockSize)
	case d.BlockSize == 0 && (d.Offset < 0 || d.Offset >= d.P):
		return fmt.Errorf("%w: %s indefinite layout on image %d of %d", ErrLayout, name, d.Offset, d.P)
	case d.Offset < 0:
		return fmt.Errorf("%w: %s offset %d", ErrLayout, name, d.Offset)
	}
	return nil
}

// elemRun is a run of consecutive elements on one image: elements
// [j, j+n) of the array, at local indices [local, local+n), in row row
// (rows counted from the first row the array touches). A row is P
// consecutive blocks, one per image.
type elemRun struct{ row, j, n, local int }

// rows is the number of rows the array touches.
func (d dist) rows() int {
	if d.BlockSize == 0 {
		return 1
	}
	first := d.Offset / d.BlockSize / d.P
	last := (d.Offset + d.count - 1) / d.BlockSize / d.P
	return last - first + 1
}

// runs are image p's runs, in row order. Their local indices are
// consecutive, so an image's elements form one contiguous local range.
func (d dist) runs(p int) []elemRun {
	if d.BlockSize == 0 {
		if p == d.Offset {
			return []elemRun{{0, 0, d.count, 0}}
		}
		return nil
	}
	b, P := d.BlockSize, d.P
	first := d.Offset / b / P
	end := d.Offset + d.count
	var rs []elemRun
	for r := first; r <= (end-1)/b/P; r++ {
		start := (r*P + p) * b
		s, e := max(start, d.Offset), min(start+b, end)
		if s < e {
			rs = append(rs, elemRun{row: r - first, j: s - d.Offset, n: e - s, local: r*b + s - start})
		}
	}
	return rs
}

// localLen is how many elements image p's local array must hold: the end
// of its last run (found from the last row down, without listing the runs,
// since every call validates with it).
func (d dist) localLen(p int) int {
	if d.BlockSize == 0 {
		if p == d.Offset {
			return d.count
		}
		return 0
	}
	b, P := d.BlockSize, d.P
	if b == 1 && d.Offset == 0 { // Cyclic, the common case: one division
		q := d.count / P
		if p < d.count-q*P {
			return q + 1
		}
		return q
	}
	end := d.Offset + d.count
	for r := (end - 1) / b / P; r >= d.Offset/b/P; r-- {
		start := (r*P + p) * b
		if s, e := max(start, d.Offset), min(start+b, end); s < e {
			return r*b + e - start
		}
	}
	return 0
}

// place is where element j lives: image and local index.
func (d dist) place(j int) (img, local int) {
	if d.BlockSize == 0 {
		return d.Offset, j
	}
	g := d.Offset + j
	blk := g / d.BlockSize
	return blk % d.P, blk/d.P*d.BlockSize + g%d.BlockSize
}

// segEnd is the end (exclusive) of the run of elements from j that stay in
// one block of d.
func (d dist) segEnd(j int) int {
	if d.BlockSize == 0 {
		return d.count
	}
	g := d.Offset + j
	return min(d.count, (g/d.BlockSize+1)*d.BlockSize-d.Offset)
}
