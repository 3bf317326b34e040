package mpitest

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	"github.com/gocoll/gocoll/mpiconduit/mpi"
	gsync "github.com/gocoll/gocoll/sync"
)

// TestVCallsMPI runs colltest.VCalls, colltest.ReduceScatters and
// colltest.NeighborExchanges under mpirun with one, two, four and an
// uneven number of images per rank.
func TestVCallsMPI(t *testing.T) {
	for _, per := range tables(mpi.World().Size()) {
		t.Run(fmt.Sprint(per), func(t *testing.T) {
			f := gsync.InMySync | gsync.OutMySync | gsync.Local
			if slices.Max(per) > 1 {
				f |= gsync.AllThreads
			}
			err := runImages(per, coll.Options{}, func(im *coll.Image, nd *colltest.Node) error {
				tm := im.TeamAll()
				return errors.Join(colltest.VCalls(im, tm, f, 8), colltest.ReduceScatters(im, tm, f, 6), colltest.NeighborExchanges(im, tm, f, 6), im.Close())
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestVCallsMatchNativeMPI compares the v-variants with MPI_Gatherv,
// MPI_Scatterv, MPI_Allgatherv and MPI_Alltoallv, and ReduceScatterOf with
// MPI_Reduce_scatter, on the same uneven counts
// (zeros included) and displacements with gaps, blocks in reverse order.
func TestVCallsMatchNativeMPI(t *testing.T) {
	im := typedImage(t)
	w := mpi.World()
	P, me, tm := w.Size(), w.Rank(), im.TeamAll()
	// OUT_ALLSYNC: a native collective follows each call and makes no
	// gocoll progress (see TestReductionsMatchNative).
	f := gsync.InMySync | gsync.OutAllSync | gsync.Local
	counts, displs, n := make([]int, P), make([]int, P), 0
	for r := P - 1; r >= 0; r-- {
		counts[r] = (r*5 + 2) % 4
		displs[r] = n
		n += counts[r] + 2
	}
	val := func(from, to, e int) float64 { return float64(from*1000+to*10+e) + 0.5 }
	fresh := func(k int) []float64 {
		b := make([]float64, k)
		for i := range b {
			b[i] = -1
		}
		return b
	}
	same := func(name string, g, m []float64) {
		if !slices.Equal(g, m) {
			t.Errorf("%s: gocoll %v, MPI %v", name, g, m)
		}
	}
	mine := make([]float64, counts[me])
	for e := range mine {
		mine[e] = val(me, 0, e)
	}
	root := P / 2
	// GatherV and MPI_Gatherv.
	g, m := fresh(n), fresh(n)
	if err := coll.GatherVOf(im, tm, root, g, counts, displs, mine, f); err != nil {
		t.Fatal(err)
	}
	if err := mpi.Gatherv(w, mine, m, counts, displs, root); err != nil {
		t.Fatal(err)
	}
	same("GatherV", g, m)
	// GatherAllV and MPI_Allgatherv.
	g, m = fresh(n), fresh(n)
	if err := coll.GatherAllVOf(im, tm, g, counts, displs, mine, f); err != nil {
		t.Fatal(err)
	}
	if err := mpi.Allgatherv(w, mine, m, counts, displs); err != nil {
		t.Fatal(err)
	}
	same("GatherAllV", g, m)
	// ScatterV and MPI_Scatterv, from the root's blocks.
	all := fresh(n)
	for r := range P {
		for e := range counts[r] {
			all[displs[r]+e] = val(root, r, e)
		}
	}
	g, m = fresh(counts[me]+1), fresh(counts[me]+1)
	if err := coll.ScatterVOf(im, tm, g, root, all, counts, displs, f); err != nil {
		t.Fatal(err)
	}
	if err := mpi.Scatterv(w, all, counts, displs, m[:counts[me]], root); err != nil {
		t.Fatal(err)
	}
	same("ScatterV", g, m)
	// ExchangeV and MPI_Alltoallv: i sends j (i+2j)%3 elements.
	sc, rc, sd, rd := make([]int, P), make([]int, P), make([]int, P), make([]int, P)
	sn, rn := 0, 0
	for j := P - 1; j >= 0; j-- {
		sc[j], rc[j] = (me+2*j)%3, (j+2*me)%3
		sd[j], rd[j] = sn, rn
		sn, rn = sn+sc[j]+1, rn+rc[j]+1
	}
	src := fresh(sn)
	for j := range P {
		for e := range sc[j] {
			src[sd[j]+e] = val(me, j, e)
		}
	}
	g, m = fresh(rn), fresh(rn)
	if err := coll.ExchangeVOf(im, tm, g, rc, rd, src, sc, sd, f); err != nil {
		t.Fatal(err)
	}
	if err := mpi.Alltoallv(w, src, sc, sd, m, rc, rd); err != nil {
		t.Fatal(err)
	}
	same("ExchangeV", g, m)
	// ReduceScatterOf and MPI_Reduce_scatter: integers in float64, so
	// that any order of the additions gives the same sum.
	total := 0
	for _, c := range counts {
		total += c
	}
	vec := make([]float64, total)
	for i := range vec {
		vec[i] = float64(me*100 + i)
	}
	g, m = fresh(counts[me]), fresh(counts[me])
	if err := coll.ReduceScatterOf(im, tm, g, vec, counts, coll.Sum, f); err != nil {
		t.Fatal(err)
	}
	if err := mpi.ReduceScatter(w, vec, m, counts, mpi.OpSum); err != nil {
		t.Fatal(err)
	}
	same("ReduceScatter", g, m)
}
