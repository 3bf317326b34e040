package mpi

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNeighborAlltoall: on one- and two-dimensional grids, periodic or
// not, each process receives in block 2i its lower neighbour's block 2i+1
// and in block 2i+1 its upper neighbour's block 2i (CartShift), and a
// block past an edge stays as it was.
func TestNeighborAlltoall(t *testing.T) {
	w := World()
	p, me := w.Size(), w.Rank()
	grids := [][]int{{p}}
	if p%2 == 0 {
		grids = append(grids, []int{2, p / 2})
	}
	const n = 3 // elements per block
	for _, dims := range grids {
		for _, periodic := range []bool{false, true} {
			per := make([]bool, len(dims))
			for i := range per {
				per[i] = periodic
			}
			g, err := w.CartCreate(dims, per)
			require.NoError(t, err)
			d, err := g.Dup()
			require.NoError(t, err)
			k := 2 * len(dims)
			send := filled(k*n, func(j int) int32 { return int32(1000*me + j) })
			recv := filled(k*n, func(int) int32 { return -1 })
			require.NoError(t, NeighborAlltoall(d, send, recv))
			want := filled(k*n, func(int) int32 { return -1 })
			for i := range dims {
				lo, hi, err := g.CartShift(i, 1)
				require.NoError(t, err)
				for e := range n {
					if lo != ProcNull {
						want[(2*i)*n+e] = int32(1000*lo + (2*i+1)*n + e)
					}
					if hi != ProcNull {
						want[(2*i+1)*n+e] = int32(1000*hi + (2*i)*n + e)
					}
				}
			}
			checkEq(t, want, recv, "NeighborAlltoall dims %v periodic %v", dims, periodic)
			require.NoError(t, d.Free())
			require.NoError(t, g.Free())
		}
	}
	for _, c := range []struct {
		name string
		err  error
	}{
		{"dims that do not multiply to Size", func() error { _, err := w.CartCreate([]int{p + 1}, []bool{false}); return err }()},
		{"periodic flags of another length", func() error { _, err := w.CartCreate([]int{p}, nil); return err }()},
		{"a communicator with no grid", NeighborAlltoall(w, make([]int32, 2), make([]int32, 2))},
		{"a shift on no grid", func() error { _, _, err := w.CartShift(0, 1); return err }()},
	} {
		if !errors.Is(c.err, ErrArg) {
			t.Errorf("rank %d: %s: %v, want ErrArg", me, c.name, c.err)
		}
	}
}
