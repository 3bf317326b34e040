package mpitest

import (
	"fmt"
	"testing"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/mpiconduit/mpi"
	"github.com/gocoll/gocoll/reducefn"
	gsync "github.com/gocoll/gocoll/sync"
)

// TestReductionsMatchNative compares gocoll's integer sums with the native
// MPI_Reduce, MPI_Allreduce, MPI_Scan and MPI_Exscan on the same data; they
// must be exactly equal. Two correspondences: one element of k int64 per
// image (elementwise, as MPI reduces vectors), and a blocked array of k
// scalars per image (totals and prefixes over the whole array).
func TestReductionsMatchNative(t *testing.T) {
	w := mpi.World()
	P, me := w.Size(), w.Rank()
	im := sumImage(t)
	tm := im.TeamAll()
	// OUT_ALLSYNC: each gocoll call is followed by a native blocking MPI
	// collective, which makes no gocoll progress; a relaxed output mode would
	// let an inner tree node leave while its parent still needs its partials.
	f := gsync.InMySync | gsync.OutAllSync | gsync.Local
	bytes := reducefn.Bytes[int64]
	root := P / 2
	var fails []string
	fail := func(format string, args ...any) { fails = append(fails, fmt.Sprintf(format, args...)) }
	for _, k := range []int{1, 3, 1000, 1 << 14, 1 << 20} {
		v := make([]int64, k)
		for i := range v {
			v[i] = int64((me+1)*1000003) - int64(i)*7919 + int64(i%5)<<40
		}
		// One element of k scalars per image: elementwise, like MPI's vectors.
		es := 8 * k
		got, want := make([]int64, k), make([]int64, k)
		run := func(what string, gocoll func() error, native func() error, check bool) {
			for i := range got {
				got[i], want[i] = -1, -2
			}
			if err := gocoll(); err != nil {
				t.Fatalf("%s k=%d: %v", what, k, err)
			}
			if err := native(); err != nil {
				t.Fatalf("native %s k=%d: %v", what, k, err)
			}
			if check {
				for i := range got {
					if got[i] != want[i] {
						fail("%s k=%d on rank %d: element %d = %d, native %d", what, k, me, i, got[i], want[i])
						return
					}
				}
			}
		}
		run("Reduce", func() error { return im.Reduce(tm, root, bytes(got), bytes(v), coll.Cyclic, es, P, 0, 0, f) },
			func() error { return mpi.Reduce(w, v, want, mpi.OpSum, root) }, me == root)
		run("ReduceAll", func() error { return im.ReduceAll(tm, bytes(got), bytes(v), coll.Cyclic, es, P, 0, 0, f) },
			func() error { return mpi.Allreduce(w, v, want, mpi.OpSum) }, true)
		run("PrefixReduce", func() error {
			return im.PrefixReduce(tm, bytes(got), coll.Cyclic, bytes(v), coll.Cyclic, es, P, 0, 0, f)
		}, func() error { return mpi.Scan(w, v, want, mpi.OpSum) }, true)
		run("ExclusivePrefixReduce", func() error {
			return im.ExclusivePrefixReduce(tm, bytes(got), coll.Cyclic, bytes(v), coll.Cyclic, es, P, 0, 0, f)
		}, func() error { return mpi.Exscan(w, v, want, mpi.OpSum) }, me > 0)

		// A blocked array of k scalars per image: the total, and prefixes
		// built from each rank's local prefix and the native Exscan of totals.
		var local int64
		for _, x := range v {
			local += x
		}
		one, total := make([]int64, 1), make([]int64, 1)
		if err := im.ReduceAll(tm, bytes(one), bytes(v), coll.Layout{BlockSize: k}, 8, k*P, 0, 0, f); err != nil {
			t.Fatal(err)
		}
		if err := mpi.Allreduce(w, []int64{local}, total, mpi.OpSum); err != nil {
			t.Fatal(err)
		}
		if one[0] != total[0] {
			fail("blocked ReduceAll k=%d on rank %d: %d, native %d", k, me, one[0], total[0])
		}
		before := []int64{0}
		if err := mpi.Exscan(w, []int64{local}, before, mpi.OpSum); err != nil {
			t.Fatal(err)
		}
		if me == 0 {
			before[0] = 0 // Exscan leaves rank 0 undefined
		}
		pre := make([]int64, k)
		if err := im.PrefixReduce(tm, bytes(pre), coll.Layout{BlockSize: k}, bytes(v), coll.Layout{BlockSize: k}, 8, k*P, 0, 0, f); err != nil {
			t.Fatal(err)
		}
		acc := before[0]
		for i, x := range v {
			acc += x
			if pre[i] != acc {
				fail("blocked PrefixReduce k=%d on rank %d: element %d = %d, want %d", k, me, i, pre[i], acc)
				break
			}
		}
	}
	if err := im.Barrier(tm); err != nil {
		t.Fatal(err)
	}
	for _, s := range fails {
		t.Error(s)
	}
}
