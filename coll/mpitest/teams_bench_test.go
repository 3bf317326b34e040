package mpitest

import (
	"testing"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/mpiconduit"
	"github.com/gocoll/gocoll/mpiconduit/mpi"
	gsync "github.com/gocoll/gocoll/sync"
)

// How a team is backed, measured: gocoll makes a team with two gather_alls
// over the parent and a tag context (no MPI call), where the alternative is
// a communicator per team (MPI_Comm_split, and MPI_Comm_free at the end).
// And a collective costs the same on a team as on TeamAll: the context is
// bits of the tag. Run under mpirun:
//
//	go test -c -o coll.test ./coll/mpitest
//	mpirun --allow-run-as-root --bind-to none -np 2 ./coll.test -test.run xxx -test.bench Team -test.benchtime 2000x

// benchImage starts gocoll on a conduit of its own over MPI_COMM_WORLD.
func benchImage(b *testing.B) (*coll.Image, func()) {
	cd, err := mpiconduit.NewConduit(mpi.World())
	if err != nil {
		b.Fatal(err)
	}
	im, err := coll.Init(cd, nil, 0, fns, 0, coll.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return im, func() {
		if err := im.Barrier(im.TeamAll()); err != nil {
			b.Fatal(err)
		}
		if err := cd.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTeamSplitDestroy: gocoll's Split and Destroy of one team of
// every image (so that the team spans every node and needs a context).
func BenchmarkTeamSplitDestroy(b *testing.B) {
	im, done := benchImage(b)
	defer done()
	for b.Loop() {
		t, err := im.Split(im.TeamAll(), 0, -im.ImageNum())
		if err != nil {
			b.Fatal(err)
		}
		if err := im.Destroy(t); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTeamCommSplitFree: the same team as an MPI communicator.
func BenchmarkTeamCommSplitFree(b *testing.B) {
	w := mpi.World()
	for b.Loop() {
		c, err := w.Split(0, -w.Rank())
		if err != nil {
			b.Fatal(err)
		}
		if err := c.Free(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTeamBroadcast8: an 8-byte broadcast on TeamAll and on a team of
// the same images in another rank order.
func BenchmarkTeamBroadcast8(b *testing.B) {
	im, done := benchImage(b)
	defer done()
	rev, err := im.Split(im.TeamAll(), 0, -im.ImageNum())
	if err != nil {
		b.Fatal(err)
	}
	const f = gsync.InMySync | gsync.OutMySync | gsync.Local
	buf := make([]byte, 8)
	for _, tc := range []struct {
		name string
		t    func() (*coll.Image, int)
	}{{"TeamAll", func() (*coll.Image, int) { return im, 0 }}, {"team", func() (*coll.Image, int) { return im, 1 }}} {
		b.Run(tc.name, func(b *testing.B) {
			t := im.TeamAll()
			if tc.name == "team" {
				t = rev
			}
			for b.Loop() {
				if err := im.Broadcast(t, buf, 0, buf, 8, f); err != nil {
					b.Fatal(err)
				}
			}
			if err := im.Barrier(t); err != nil {
				b.Fatal(err)
			}
		})
	}
	if err := im.Destroy(rev); err != nil {
		b.Fatal(err)
	}
}
