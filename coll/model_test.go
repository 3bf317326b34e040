package coll_test

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	gsync "github.com/gocoll/gocoll/sync"
)

// The model test (colltest.Model) on the in-process conduit with random
// message delays. By default it runs a few dozen operations per table
// (fewer with -short); GOCOLL_MODEL_OPS sets the count (scripts/model.sh
// runs the full 10,000 under -race), GOCOLL_MODEL_SEED one seed and
// GOCOLL_MODEL_TABLE one images table ("2,1,3": images per node).

// modelTables are images tables of 1 to 16 images: one image per node,
// several per node, uneven.
var modelTables = [][]int{
	{1}, {1, 1}, {2}, {1, 1, 1}, {1, 2}, {2, 2}, {1, 1, 1, 1, 1}, {3, 1, 2},
	{4, 4}, {1, 1, 1, 1, 1, 1, 1, 1}, {2, 2, 2, 2, 2, 2}, {1, 3, 2, 4, 1, 2, 3},
	{16}, {4, 4, 4, 4}, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, {2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2},
}

// envInt is colltest.EnvInt, failing the test on a malformed value.
func envInt(t *testing.T, name string, def int) int {
	n, err := colltest.EnvInt(name, def)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func formatTable(per []int) string {
	s := make([]string, len(per))
	for i, n := range per {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

// modelOptions varies the algorithms, the progress mode and the paths the
// selector may take (modelForbids) with the seed, and counts the calls
// that ran alone.
func modelOptions(seed uint64, alone *atomic.Uint64) coll.Options {
	o := coll.Options{
		Tree:      coll.Tree(seed % 4),
		GatherAll: coll.GatherAllAlgo(seed / 4 % 3),
		Progress:  []gsync.ProgressMode{gsync.Polling, gsync.Polling, gsync.Goroutine, gsync.Periodic}[seed/12%4],
	}
	return coll.WithPaths(o, func(node int) []string { return modelForbids(seed, node) }, func(_ int, path string) {
		if path == "alone" {
			alone.Add(1)
		}
	})
}

// modelForbids draws the selector's paths that node may not take under
// seed: none for even seeds, else a set of its own per node, so that the
// model's calls take every path, and nodes that took different ones make
// calls together.
func modelForbids(seed uint64, node int) []string {
	if seed%2 == 0 {
		return nil
	}
	var forbid []string
	bits := (seed/2 + uint64(node)*7) % 16
	for i, name := range []string{"ring", "staged", "direct", "alone"} {
		if bits&(1<<i) != 0 {
			forbid = append(forbid, name)
		}
	}
	return forbid
}

func TestModel(t *testing.T) {
	// The default keeps `go test ./...` quick: fewer operations where
	// there are many nodes (their goroutines share two cores).
	base, fixed := 24, os.Getenv("GOCOLL_MODEL_OPS") != ""
	if testing.Short() {
		base = 8
	}
	base = envInt(t, "GOCOLL_MODEL_OPS", base)
	tables := modelTables
	if testing.Short() {
		tables = [][]int{{1, 1}, {2, 2}, {3, 1, 2}, {1, 1, 1, 1, 1}}
	}
	if v := os.Getenv("GOCOLL_MODEL_TABLE"); v != "" {
		var per []int
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(f)
			if err != nil {
				t.Fatalf("GOCOLL_MODEL_TABLE=%q: %v", v, err)
			}
			per = append(per, n)
		}
		tables = [][]int{per}
	}
	for i, per := range tables {
		seed := uint64(envInt(t, "GOCOLL_MODEL_SEED", i+1))
		ops := base
		if len(per) > 4 && !fixed {
			ops = base / 4
		}
		t.Run(fmt.Sprintf("%v/seed=%d", per, seed), func(t *testing.T) {
			t.Parallel()
			delay := colltest.Options{MaxDelay: 20 * time.Microsecond, Seed: seed}
			cfg := colltest.ModelConfig{Seed: seed, Ops: ops}
			timeout := time.Duration(envInt(t, "GOCOLL_MODEL_TIMEOUT", 120)) * time.Second
			// The first image to fail ends the test soon after: the others
			// would wait for it until the timeout (hours in a full run).
			failed, result := make(chan error, 1), make(chan error, 1)
			var alone atomic.Uint64
			go func() {
				result <- colltest.RunImages(per, delay, modelOptions(seed, &alone), colltest.ModelFuncs, timeout,
					func(im *coll.Image, nd *colltest.Node) error {
						err := colltest.Model(im, nd, cfg)
						if err != nil {
							select {
							case failed <- err:
							default:
							}
						}
						return err
					})
			}()
			var err error
			select {
			case err = <-result:
			case err = <-failed:
				select {
				case err = <-result:
				case <-time.After(10 * time.Second):
					err = fmt.Errorf("%w (the other images still wait)", err)
				}
			}
			// A full run on nodes of one image makes blocking calls that
			// run alone beside nodes that run them in the engine (the
			// model's NB calls, or a live operation): the model checks
			// their results.
			if err == nil && ops >= 5000 && len(per) > 1 && slices.Max(per) == 1 && seed%2 == 0 && alone.Load() == 0 {
				err = fmt.Errorf("no blocking call ran alone in %d operations", ops)
			}
			if err != nil {
				t.Errorf("%v\nreproduce: GOCOLL_MODEL_SEED=%d GOCOLL_MODEL_TABLE=%s GOCOLL_MODEL_OPS=%d go test -race -run 'TestModel$' ./coll/",
					err, seed, formatTable(per), ops)
			}
		})
	}
}
