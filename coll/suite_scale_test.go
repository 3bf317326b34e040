package coll_test

import (
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
)

// suiteScaleEnv sets the node count of TestSuiteInProcessScale:
// scripts/mpirun-tests.sh runs it at 64, the size the design promises the
// in-process conduit reaches; `go test ./...` keeps to a smaller count so
// that it stays fast.
const suiteScaleEnv = "GOCOLL_SUITE_P"

// suiteScaleP is the node count of TestSuiteInProcessScale: the
// environment's, else 24, or 20 under -short (TestSuiteInProcess covers
// 1..16).
func suiteScaleP(t *testing.T) int {
	if s := os.Getenv(suiteScaleEnv); s != "" {
		P, err := strconv.Atoi(s)
		if err != nil || P < 1 {
			t.Fatalf("%s=%q: want a node count of at least 1", suiteScaleEnv, s)
		}
		return P
	}
	if testing.Short() {
		return 20
	}
	return 24
}

// TestSuiteInProcessScale runs the conformance suite on the in-process
// conduit at one large P (see suiteScaleP) with random message delays,
// once per tree and gather_all algorithm.
func TestSuiteInProcessScale(t *testing.T) {
	P := suiteScaleP(t)
	variants := []coll.Options{
		{Tree: coll.Binomial, GatherAll: coll.GatherAllDissemination},
		{Tree: coll.Binary, GatherAll: coll.GatherAllExchange},
		{Tree: coll.Flat},
	}
	cfg := colltest.SuiteConfig{Outstanding: 2000, Sizes: []int{1, 100, 4096}, InFlight: 200}
	for vi, opts := range variants {
		for _, c := range colltest.Suite(cfg) {
			t.Run(fmt.Sprintf("P=%d/%s/%v", P, c.Name, opts.Tree), func(t *testing.T) {
				t.Parallel()
				delay := colltest.Options{MaxDelay: 50 * time.Microsecond, Seed: uint64(P*len(variants) + vi)}
				err := colltest.RunWithMemory(P, colltest.MemoryNeed(P), delay, opts, 10*time.Minute, c.Run)
				if err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}
