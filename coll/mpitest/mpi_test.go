package mpitest

import (
	"fmt"
	"os"
	"testing"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	"github.com/gocoll/gocoll/mpiconduit"
	"github.com/gocoll/gocoll/mpiconduit/mpi"
	"github.com/gocoll/gocoll/reducefn"
)

func TestMain(m *testing.M) { os.Exit(mpi.RunTests(m)) }

// sumImage initializes gocoll on a conduit of its own over MPI_COMM_WORLD,
// one image per rank, with int64 sums as function 0; the conduit closes
// when the test ends.
func sumImage(t *testing.T) *coll.Image {
	t.Helper()
	cd, err := mpiconduit.NewConduit(mpi.World())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cd.Close() })
	im, err := coll.Init(cd, nil, 0, []reducefn.Entry{reducefn.Sum[int64]()}, 0, coll.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return im
}

// winMemory is colltest.Memory over an MPI window in a passive-target
// epoch: Put and Get are complete on return through Flush.
type winMemory struct{ w *mpi.Win }

func (m winMemory) Local() []byte { return m.w.Mem() }

func (m winMemory) Put(node, off int, b []byte) error { return m.complete(m.w.Put, node, off, b) }

func (m winMemory) Get(node, off int, b []byte) error { return m.complete(m.w.Get, node, off, b) }

// complete runs a one-sided operation on b and flushes it to node.
func (m winMemory) complete(op func([]byte, int, int) error, node, off int, b []byte) error {
	if len(b) == 0 {
		return nil
	}
	if err := op(b, node, off); err != nil {
		return err
	}
	return m.w.Flush(node)
}

// TestSuiteMPI runs the conformance suite over MPI with each tree shape and
// gather_all algorithm; each variant has its own conduit (and communicator).
func TestSuiteMPI(t *testing.T) {
	world := mpi.World()
	P := world.Size()
	win, err := mpi.WinAllocate(world, colltest.MemoryNeed(P), 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := win.LockAll(0); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := win.UnlockAll(); err != nil {
			t.Error(err)
		}
		if err := win.Free(); err != nil {
			t.Error(err)
		}
	}()
	variants := []coll.Options{
		{Tree: coll.Binomial, GatherAll: coll.GatherAllDissemination},
		{Tree: coll.Binary, GatherAll: coll.GatherAllExchange},
		{Tree: coll.Flat},
	}
	for vi, opts := range variants {
		// The binary variant runs every transfer through MPI point-to-point,
		// the others pass small ones through shared memory.
		cd, err := mpiconduit.NewConduitWith(world, mpiconduit.ConduitOptions{NoSharedMemory: opts.Tree == coll.Binary})
		if err != nil {
			t.Fatal(err)
		}
		im, err := coll.Init(cd, nil, 0, nil, 0, opts)
		if err != nil {
			t.Fatal(err)
		}
		cfg := colltest.SuiteConfig{Outstanding: 2000, InFlight: 200}
		if vi == 0 {
			cfg.Outstanding = 65535
		}
		for _, c := range colltest.Suite(cfg) {
			t.Run(fmt.Sprintf("%v/shm=%v/%s", opts.Tree, cd.SharedMemory(), c.Name), func(t *testing.T) {
				if err := c.Run(im, winMemory{win}); err != nil {
					t.Fatalf("node %d of %d: %v", world.Rank(), P, err)
				}
			})
		}
		if err := cd.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
