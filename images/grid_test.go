package images

import (
	"errors"
	"slices"
	"testing"
)

// TestGrid checks a grid's coordinates and neighbours against a direct
// count on grids of one to three dimensions, periodic or not, and the
// grids that do not fit.
func TestGrid(t *testing.T) {
	for _, c := range []struct {
		dims     []int
		periodic []bool
	}{
		{[]int{1}, []bool{false}},
		{[]int{5}, []bool{true}},
		{[]int{2}, []bool{true}},
		{[]int{3, 4}, []bool{false, true}},
		{[]int{2, 2}, []bool{true, true}},
		{[]int{2, 3, 2}, []bool{true, false, true}},
	} {
		n := 1
		for _, d := range c.dims {
			n *= d
		}
		tm := OnePerNode(n).All()
		g, err := NewGrid(tm, c.dims, c.periodic)
		if err != nil {
			t.Fatal(err)
		}
		for r := range n {
			co := g.Coords(r)
			if g.Rank(co) != r {
				t.Errorf("dims %v: rank %d at %v, back to %d", c.dims, r, co, g.Rank(co))
			}
			var want []int
			for d := range c.dims {
				for _, step := range []int{-1, 1} {
					x := slices.Clone(co)
					x[d] += step
					switch {
					case x[d] >= 0 && x[d] < c.dims[d]:
					case !c.periodic[d]:
						want = append(want, NoNeighbor)
						continue
					default:
						x[d] = (x[d] + c.dims[d]) % c.dims[d]
					}
					w := 0
					for i, v := range x {
						w = w*c.dims[i] + v
					}
					want = append(want, w)
				}
			}
			if got := g.Neighbors(r); !slices.Equal(got, want) {
				t.Errorf("dims %v periodic %v: rank %d's neighbours %v, want %v", c.dims, c.periodic, r, got, want)
			}
			for d := range c.dims {
				for _, disp := range []int{1, 2, -3} {
					lo, hi := slices.Clone(co), slices.Clone(co)
					lo[d] -= disp
					hi[d] += disp
					if s, e := g.Shift(r, d, disp); s != g.Rank(lo) || e != g.Rank(hi) {
						t.Errorf("dims %v periodic %v: Shift(%d, %d, %d) = %d, %d, want %d, %d", c.dims, c.periodic, r, d, disp, s, e, g.Rank(lo), g.Rank(hi))
					}
				}
			}
		}
	}
	tm := OnePerNode(6).All()
	for _, c := range []struct {
		dims     []int
		periodic []bool
	}{
		{[]int{4}, []bool{false}},
		{[]int{2, 2}, []bool{false, false}},
		{[]int{3, 0}, []bool{false, false}},
		{[]int{-2, -3}, []bool{false, false}},
		{[]int{2, 3}, []bool{false}},
		{nil, nil},
		{[]int{1 << 62, 1 << 62}, []bool{false, false}},
	} {
		if _, err := NewGrid(tm, c.dims, c.periodic); !errors.Is(err, ErrGrid) {
			t.Errorf("dims %v periodic %v: %v, want ErrGrid", c.dims, c.periodic, err)
		}
	}
	if _, err := NewGrid(nil, []int{1}, []bool{false}); !errors.Is(err, ErrGrid) {
		t.Errorf("nil team: %v", err)
	}
}
