package alg

import "fmt"

// Layout is package coll's Layout (the spec's (blksz, offset) pair), by
// value: BlockSize > 0 is block-cyclic, BlockSize 0 the indefinite layout
// on the image of team rank Offset.
type Layout struct {
	BlockSize int
	Offset    int
}

// Cyclic is the cyclic layout, one element per image in turn.
var Cyclic = Layout{BlockSize: 1}

// Dist is a Layout applied to count elements over P images.
type Dist struct {
	Layout
	P, Count int
}

// Check reports a layout the spec does not allow.
func (d Dist) Check(name string) error {
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
type elemRun struct{ row, j, N, Local int }

// rows is the number of rows the array touches.
func (d Dist) rows() int {
	if d.BlockSize == 0 {
		return 1
	}
	first := d.Offset / d.BlockSize / d.P
	last := (d.Offset + d.Count - 1) / d.BlockSize / d.P
	return last - first + 1
}

// Runs are image p's runs, in row order. Their local indices are
// consecutive, so an image's elements form one contiguous local range.
func (d Dist) Runs(p int) []elemRun {
	if d.BlockSize == 0 {
		if p == d.Offset {
			return []elemRun{{0, 0, d.Count, 0}}
		}
		return nil
	}
	b, P := d.BlockSize, d.P
	first := d.Offset / b / P
	end := d.Offset + d.Count
	var rs []elemRun
	for r := first; r <= (end-1)/b/P; r++ {
		start := (r*P + p) * b
		s, e := max(start, d.Offset), min(start+b, end)
		if s < e {
			rs = append(rs, elemRun{row: r - first, j: s - d.Offset, N: e - s, Local: r*b + s - start})
		}
	}
	return rs
}

// LocalLen is how many elements image p's local array must hold: the end
// of its last run (found from the last row down, without listing the runs,
// since every call validates with it).
func (d Dist) LocalLen(p int) int {
	if d.BlockSize == 0 {
		if p == d.Offset {
			return d.Count
		}
		return 0
	}
	b, P := d.BlockSize, d.P
	if b == 1 && d.Offset == 0 { // Cyclic, the common case: one division
		q := d.Count / P
		if p < d.Count-q*P {
			return q + 1
		}
		return q
	}
	end := d.Offset + d.Count
	for r := (end - 1) / b / P; r >= d.Offset/b/P; r-- {
		start := (r*P + p) * b
		if s, e := max(start, d.Offset), min(start+b, end); s < e {
			return r*b + e - start
		}
	}
	return 0
}

// place is where element j lives: image and local index.
func (d Dist) place(j int) (img, local int) {
	if d.BlockSize == 0 {
		return d.Offset, j
	}
	g := d.Offset + j
	blk := g / d.BlockSize
	return blk % d.P, blk/d.P*d.BlockSize + g%d.BlockSize
}

// segEnd is the end (exclusive) of the run of elements from j that stay in
// one block of d.
func (d Dist) segEnd(j int) int {
	if d.BlockSize == 0 {
		return d.Count
	}
	g := d.Offset + j
	return min(d.Count, (g/d.BlockSize+1)*d.BlockSize-d.Offset)
}

// String is the layout as the spec's pair, {BlockSize,Offset}.
func (l Layout) String() string { return fmt.Sprintf("{%d,%d}", l.BlockSize, l.Offset) }
