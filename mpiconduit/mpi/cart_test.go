package mpi

import (
	"errors"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNeighborAlltoall: on one- and two-dimensional grids, periodic or
// not, each process receives in block 2i its lower neighbour's block 2i+1
// and in block 2i+1 its upper neighbour's block 2i (CartShift), and a
// block past an edge stays as it was; the same for the v form, with
// uneven counts and gaps.
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

			// The v form: block b to a neighbour holds b%3 elements, laid
			// out with gaps (vPlace); a block from the lower neighbour is
			// its upper one's, 2i+1, and the other way round. Not where a
			// neighbour is both (a periodic dimension of two): MPICH 4.0.2
			// then does not match its two blocks in the neighbours' order
			// when their counts differ (Open MPI does); the binding passes
			// the call through.
			if periodic && slices.Contains(dims, 2) && Library == "mpich" {
				require.NoError(t, d.Free())
				require.NoError(t, g.Free())
				continue
			}
			other := func(b int) int { return b ^ 1 }
			sc, sd, ssize := vPlace(k, func(b int) int { return b % 3 }, false)
			rc, rd, rsize := vPlace(k, func(b int) int { return other(b) % 3 }, true)
			vsend := vWant(ssize, sc, sd, func(b, e int) float64 { return float64(1000*me + 10*b + e) })
			vrecv := filled(rsize, func(int) float64 { return -1 })
			require.NoError(t, NeighborAlltoallv(d, vsend, sc, sd, vrecv, rc, rd))
			vwant := filled(rsize, func(int) float64 { return -1 })
			for i := range dims {
				lo, hi, err := g.CartShift(i, 1)
				require.NoError(t, err)
				for b, from := range map[int]int{2 * i: lo, 2*i + 1: hi} {
					if from == ProcNull {
						continue
					}
					for e := range rc[b] {
						vwant[rd[b]+e] = float64(1000*from + 10*other(b) + e)
					}
				}
			}
			checkEq(t, vwant, vrecv, "NeighborAlltoallv dims %v periodic %v", dims, periodic)
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
		{"a v exchange on no grid", NeighborAlltoallv(w, []int32{1}, []int{1}, []int{0}, make([]int32, 1), []int{1}, []int{0})},
	} {
		if !errors.Is(c.err, ErrArg) {
			t.Errorf("rank %d: %s: %v, want ErrArg", me, c.name, c.err)
		}
	}
}
