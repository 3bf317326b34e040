package coll_test

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
)

// TestSoak runs colltest.Soak in process on two tables: 300 collectives
// by default (skipped with -short), GOCOLL_SOAK_OPS to change it (scripts/soak.sh
// runs a million). The process's heap in use and goroutine count must stay
// flat after the warm-up; the figures are logged.
func TestSoak(t *testing.T) {
	if testing.Short() && os.Getenv("GOCOLL_SOAK_OPS") == "" {
		t.Skip("the soak runs without -short (and in full under mpirun: scripts/soak.sh)")
	}
	ops := envInt(t, "GOCOLL_SOAK_OPS", 300)
	for _, per := range [][]int{{1, 1, 1}, {2, 1}} {
		t.Run(fmt.Sprint(per), func(t *testing.T) {
			// One image in the process measures it, and only one subtest runs at a time.
			err := colltest.RunImages(per, colltest.Options{}, coll.Options{}, colltest.ModelFuncs, time.Minute+time.Duration(ops)*5*time.Millisecond,
				func(im *coll.Image, _ *colltest.Node) error {
					rep, err := colltest.Soak(im, colltest.SoakConfig{Ops: ops, Measure: im.ImageNum() == 0})
					if im.ImageNum() == 0 {
						t.Logf("%v", rep)
					}
					return err
				})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}
