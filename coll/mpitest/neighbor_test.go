package mpitest

import (
	"slices"
	"testing"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	"github.com/gocoll/gocoll/images"
	"github.com/gocoll/gocoll/mpiconduit/mpi"
	gsync "github.com/gocoll/gocoll/sync"
)

// TestNeighborExchangeMatchesNativeMPI compares NeighborExchangeOf and
// NeighborExchangeVOf with MPI_Neighbor_alltoall and
// MPI_Neighbor_alltoallv on the same Cartesian grids (colltest's), with
// uneven counts (zeros included) and displacements that leave gaps, blocks
// in reverse order. Not the v form where a periodic dimension of one or two
// makes a neighbour both ways under MPICH (its blocks then do not match in
// the neighbours' order: see the binding's TestNeighborAlltoall).
func TestNeighborExchangeMatchesNativeMPI(t *testing.T) {
	im := typedImage(t)
	w := mpi.World()
	P, me, tm := w.Size(), w.Rank(), im.TeamAll()
	f := gsync.InMySync | gsync.OutAllSync | gsync.Local // see TestVCallsMatchNativeMPI
	fresh := func(k int) []float64 {
		b := make([]float64, k)
		for i := range b {
			b[i] = -1
		}
		return b
	}
	for _, s := range colltest.GridShapes(P) {
		g, err := images.NewGrid(tm, s.Dims, s.Periodic)
		if err != nil {
			t.Fatal(err)
		}
		cart, err := w.CartCreate(s.Dims, s.Periodic)
		if err != nil {
			t.Fatal(err)
		}
		nn := g.NumNeighbors()
		const n = 3
		src := make([]float64, nn*n)
		for i := range src {
			src[i] = float64(me*1000+i) + 0.5
		}
		gd, md := fresh(nn*n), fresh(nn*n)
		if err := coll.NeighborExchangeOf(im, g, gd, src, n, f); err != nil {
			t.Fatal(err)
		}
		if err := mpi.NeighborAlltoall(cart, src, md); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(gd, md) {
			t.Errorf("grid %v periodic %v: NeighborExchangeOf %v, MPI_Neighbor_alltoall %v", s.Dims, s.Periodic, gd, md)
		}
		both := false
		for d, size := range s.Dims {
			both = both || (s.Periodic[d] && size <= 2)
		}
		if !(both && mpi.Library == "mpich") {
			sc, rc, sd, rd := make([]int, nn), make([]int, nn), make([]int, nn), make([]int, nn)
			sn, rn := 0, 0
			for i := nn - 1; i >= 0; i-- {
				sc[i] = colltest.NeighborCount(me, i, 0)
				if nb := g.Neighbor(me, i); nb != images.NoNeighbor {
					rc[i] = colltest.NeighborCount(nb, i^1, 0)
				}
				sd[i], rd[i] = sn, rn
				sn, rn = sn+sc[i]+1, rn+rc[i]+1
			}
			vsrc := make([]float64, sn)
			for i := range vsrc {
				vsrc[i] = float64(me*1000+i) + 0.25
			}
			gd, md = fresh(rn), fresh(rn)
			if err := coll.NeighborExchangeVOf(im, g, gd, rc, rd, vsrc, sc, sd, f); err != nil {
				t.Fatal(err)
			}
			if err := mpi.NeighborAlltoallv(cart, vsrc, sc, sd, md, rc, rd); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(gd, md) {
				t.Errorf("grid %v periodic %v: NeighborExchangeVOf %v, MPI_Neighbor_alltoallv %v", s.Dims, s.Periodic, gd, md)
			}
		}
		if err := cart.Free(); err != nil {
			t.Fatal(err)
		}
	}
}
