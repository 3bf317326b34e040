package mpitest

import (
	"fmt"
	"os"
	"testing"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	"github.com/gocoll/gocoll/mpiconduit"
	"github.com/gocoll/gocoll/mpiconduit/mpi"
)

// envInt is colltest.EnvInt, failing the test on a malformed value.
func envInt(t *testing.T, name string, def int) int {
	n, err := colltest.EnvInt(name, def)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestModelMPI runs the model test (colltest.Model) over MPI: 200
// operations (GOCOLL_MODEL_OPS) with one image per rank and with an uneven
// images table, seed GOCOLL_MODEL_SEED (default 1), the algorithms varied
// with the seed.
func TestModelMPI(t *testing.T) {
	w := mpi.World()
	seed := uint64(envInt(t, "GOCOLL_MODEL_SEED", 1))
	ops := envInt(t, "GOCOLL_MODEL_OPS", 200)
	uneven := make([]int, w.Size())
	one := make([]int, w.Size())
	for i := range uneven {
		one[i], uneven[i] = 1, 1+(i+1)%3
	}
	for _, per := range [][]int{one, uneven} {
		t.Run(fmt.Sprint(per), func(t *testing.T) {
			opts := coll.Options{Tree: coll.Tree(seed % 4), GatherAll: coll.GatherAllAlgo(seed / 4 % 3)}
			err := runImagesWith(mpiconduit.ConduitOptions{}, per, opts, colltest.ModelFuncs, func(im *coll.Image, nd *colltest.Node) error {
				return colltest.Model(im, nd, colltest.ModelConfig{Seed: seed, Ops: ops})
			})
			if err != nil {
				t.Fatalf("rank %d: %v\nreproduce: GOCOLL_MODEL_SEED=%d GOCOLL_MODEL_OPS=%d mpirun -np %d <coll/mpitest test binary> -test.run 'TestModelMPI/%s'",
					w.Rank(), err, seed, ops, w.Size(), t.Name()[len("TestModelMPI/"):])
			}
		})
	}
}

// TestSoakMPI runs the soak (colltest.Soak) over MPI with one image per
// rank: 20,000 collectives (GOCOLL_SOAK_OPS; scripts/soak.sh runs a
// million), each rank measuring its own process; rank 0 logs the figures.
func TestSoakMPI(t *testing.T) {
	w := mpi.World()
	ops := envInt(t, "GOCOLL_SOAK_OPS", 20000)
	per := make([]int, w.Size())
	for i := range per {
		per[i] = 1
	}
	var rep colltest.SoakReport
	err := runImagesWith(mpiconduit.ConduitOptions{}, per, coll.Options{}, colltest.ModelFuncs, func(im *coll.Image, _ *colltest.Node) error {
		var err error
		rep, err = colltest.Soak(im, colltest.SoakConfig{Ops: ops, Measure: true})
		return err
	})
	if w.Rank() == 0 {
		t.Logf("np %d: %v", w.Size(), rep)
		if os.Getenv("GOCOLL_SOAK_REPORT") != "" {
			fmt.Printf("SOAK np=%d %v\n", w.Size(), rep)
		}
	}
	if err != nil {
		t.Fatalf("rank %d: %v", w.Rank(), err)
	}
}
