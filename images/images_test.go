package images

import (
	"errors"
	"testing"
)

func TestTableNodeMajor(t *testing.T) {
	tb, err := New([]int{2, 1, 3})
	if err != nil {
		t.Fatal(err)
	}
	if tb.Nodes() != 3 || tb.Images() != 6 {
		t.Fatalf("nodes %d images %d", tb.Nodes(), tb.Images())
	}
	wantNode := []int{0, 0, 1, 2, 2, 2}
	for i, n := range wantNode {
		if tb.NodeOf(i) != n {
			t.Errorf("NodeOf(%d) = %d, want %d", i, tb.NodeOf(i), n)
		}
	}
	for n, first := range []int{0, 2, 3} {
		if tb.First(n) != first {
			t.Errorf("First(%d) = %d, want %d", n, tb.First(n), first)
		}
	}
	if tb.On(2) != 3 || !tb.Equal(tb) || tb.Equal(OnePerNode(3)) {
		t.Error("On/Equal")
	}
	all := tb.All()
	if all.Size() != 6 || all.Image(4) != 4 || all.ID() != 0 || all.Context() != 0 || all.Table() != tb {
		t.Error("All")
	}
	per := tb.PerNode()
	per[0] = 9 // a copy: the table is immutable
	if tb.On(0) != 2 {
		t.Error("PerNode is not a copy")
	}
}

func TestTableErrors(t *testing.T) {
	for _, per := range [][]int{nil, {1, 0}, {2, -1}} {
		if _, err := New(per); !errors.Is(err, ErrTable) {
			t.Errorf("New(%v): %v, want ErrTable", per, err)
		}
	}
}
