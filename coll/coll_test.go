package coll_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
)

// TestSuiteInProcess runs the conformance suite on the in-process conduit at
// P = 1..16 with random message delays, for every tree and gather_all
// algorithm.
func TestSuiteInProcess(t *testing.T) {
	variants := []coll.Options{
		{Tree: coll.Binomial, GatherAll: coll.GatherAllDissemination},
		{Tree: coll.Binary, GatherAll: coll.GatherAllExchange},
		{Tree: coll.Flat},
	}
	for P := 1; P <= 16; P++ {
		cfg := colltest.SuiteConfig{Outstanding: 2000, Sizes: []int{1, 100, 4096}, InFlight: 200}
		if P == 2 || P == 5 {
			cfg.Outstanding = 65535
			cfg.Sizes = append(cfg.Sizes, 65536)
		}
		for _, c := range colltest.Suite(cfg) {
			opts := variants[P%len(variants)]
			t.Run(fmt.Sprintf("P=%d/%s/%v", P, c.Name, opts.Tree), func(t *testing.T) {
				t.Parallel()
				delay := colltest.Options{MaxDelay: 50 * time.Microsecond, Seed: uint64(P)}
				err := colltest.RunWithMemory(P, colltest.MemoryNeed(P), delay, opts, 5*time.Minute, c.Run)
				if err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}
