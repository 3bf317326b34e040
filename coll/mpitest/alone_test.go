package mpitest

import (
	"context"
	"runtime"
	"testing"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/mpiconduit/mpi"
	"github.com/gocoll/gocoll/reducefn"
	gsync "github.com/gocoll/gocoll/sync"
)

// TestSmallReduceAllMPI: the small blocking ReduceAll, which runs its
// schedule alone on the caller's goroutine (coll's selector, "alone"), over
// MPI. Ranks mix it with the non-blocking form, which runs the schedule in
// the engine, each rank in its own pattern, and every call gets the exact
// sum; then a run of blocking calls allocates nothing (the count is
// the process's, with room for the runtime's own).
func TestSmallReduceAllMPI(t *testing.T) {
	P, me := mpi.World().Size(), mpi.World().Rank()
	im := sumImage(t)
	tm := im.TeamAll()
	f := gsync.InMySync | gsync.OutMySync | gsync.Local
	x, sum := []int64{0}, []int64{0}
	src, dst := reducefn.Bytes(x), reducefn.Bytes(sum)
	one := func(i int, nb bool) error {
		x[0] = int64(i*P + me + 1)
		if !nb {
			return im.ReduceAll(tm, dst, src, coll.Cyclic, 8, P, 0, 0, f)
		}
		h, err := im.ReduceAllNB(tm, dst, src, coll.Cyclic, 8, P, 0, 0, f)
		if err == nil {
			err = h.Wait(context.Background())
		}
		return err
	}
	for i := range 600 {
		if err := one(i, (i+me)%3 == 0); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if got, want := sum[0], int64(i*P*P+P*(P+1)/2); got != want {
			t.Fatalf("call %d: sum %d, want %d", i, got, want)
		}
	}
	const calls = 2000
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := range calls {
		if err := one(i, false); err != nil {
			t.Fatalf("blocking call %d: %v", i, err)
		}
	}
	runtime.ReadMemStats(&after)
	if n := after.Mallocs - before.Mallocs; n > calls/20 {
		t.Errorf("%d allocations in the process over %d calls", n, calls)
	}
	if err := im.Barrier(tm); err != nil {
		t.Fatal(err)
	}
	if err := im.Close(); err != nil {
		t.Fatal(err)
	}
}
