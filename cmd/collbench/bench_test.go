package main

import (
	"bytes"
	"encoding/csv"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/gocoll/gocoll/cmd/internal/benchcsv"
	"github.com/gocoll/gocoll/mpiconduit/mpi"
)

// TestMain runs the tests inside one MPI session: without mpirun the process
// is an MPI singleton; scripts/mpirun-tests.sh also runs this binary under
// mpirun at several rank counts, where TestRunSmoke runs every operation.
func TestMain(m *testing.M) { os.Exit(mpi.RunTests(m)) }

// TestRunSmoke runs the whole benchmark with a few iterations, sizes that are
// not powers of two nor multiples of 8, and checks the table and the CSV.
func TestRunSmoke(t *testing.T) {
	w := mpi.World()
	cfg := config{minSize: 3, maxSize: 40000, step: 16, iters: 3, warmup: 1, ops: opNames(), yield: true, reps: 2}
	var out, csvOut bytes.Buffer
	if err := run(cfg, w, &out, &csvOut); err != nil {
		t.Fatal(err)
	}
	if w.Rank() != 0 {
		if out.Len() != 0 || csvOut.Len() != 0 {
			t.Errorf("rank %d wrote output: %q", w.Rank(), out.String())
		}
		return
	}
	sizes := cfg.sizes() // 3 48 768 12288 40000
	es := entries(&bench{})
	want := 0 // CSV rows
	for _, e := range es {
		switch {
		case w.Size() < e.minRanks:
			if note := "# " + e.name + " skipped: needs 2 ranks, running with 1\n"; !strings.Contains(out.String(), note) {
				t.Errorf("no note %q at np 1:\n%s", note, out.String())
			}
		case !e.sized:
			want++ // Barrier
		case e.oneImage != "":
			want += 2 * len(sizes) // and its images-per-node ratio
		default:
			want += len(sizes)
		}
	}
	recs, err := csv.NewReader(&csvOut).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1+want {
		t.Fatalf("%d CSV rows, want %d:\n%s", len(recs)-1, want, out.String())
	}
	seen := map[string]int{}
	rooted := map[string]bool{}
	for _, e := range es {
		rooted[e.name] = e.rooted
	}
	for _, r := range recs[1:] {
		seen[r[0]]++
		if r[2] != strconv.Itoa(w.Size()) {
			t.Errorf("row %v: ranks %s", r, r[2])
		}
		cols := []int{5, 6, 7, 8, 11} // go avg/min/max, c avg, ratio
		if rooted[r[0]] {
			cols = append(cols, 13, 14) // the root's go and c
		} else if r[13] != "" || r[14] != "" {
			t.Errorf("row %v: root figures in a row without a root", r)
		}
		for _, col := range cols {
			if v, err := strconv.ParseFloat(r[col], 64); err != nil || !(v > 0) {
				t.Errorf("row %v: column %s = %q, want > 0", r, benchcsv.Header[col], r[col])
			}
		}
	}
	for _, op := range []string{"Bcast", "gocoll.Broadcast", "gocoll.ScatterNB", "gocoll.Seg.Broadcast", "gocoll.Agg16.Broadcast"} {
		if !rooted[op] {
			t.Errorf("%s is not rooted", op)
		}
	}
	for _, e := range es {
		if w.Size() < e.minRanks {
			continue
		}
		n := e.label(w.Size())
		if !strings.Contains(out.String(), "\n"+n+" ") {
			t.Errorf("table lacks %s:\n%s", n, out.String())
		}
		if want := len(sizes); e.sized && seen[n] != want {
			t.Errorf("%s: %d rows, want %d", n, seen[n], want)
		}
		if ratio := n + "/" + e.oneImage; e.oneImage != "" && seen[ratio] != len(sizes) {
			t.Errorf("%s: %d rows, want %d", ratio, seen[ratio], len(sizes))
		}
	}
	t.Logf("\n%s", out.String())
}

// TestMeasureCountsAllocations checks the harness side of the Go loops: the
// per-iteration allocations counted come from the binding (mpiconduit/mpi),
// never from the loop itself (a loop of no calls allocates nothing).
func TestMeasureCountsAllocations(t *testing.T) {
	b := newBench(mpi.World(), 64, true)
	var sink [][]byte
	_, allocs, err := b.measure(func(_, iters int) error {
		for range iters {
			sink = append(sink[:0], make([]byte, 1000))
		}
		return nil
	}, nil, 8, 1, 100)
	if err != nil {
		t.Fatal(err)
	}
	if allocs < 0.99 || allocs > 1.1 {
		t.Errorf("allocs/op = %v, want 1", allocs)
	}
	// The count is the whole process's: a stray allocation of the runtime
	// or of another goroutine (seen once in five runs at np 8) must not
	// read as the loop's, while one per iteration, or per 256-iteration
	// chunk between yields, would still show (>= 0.0039).
	_, allocs, err = b.measure(func(_, iters int) error { return nil }, nil, 8, 1, 10000)
	if err != nil || allocs >= 0.001 {
		t.Errorf("empty loop: allocs/op = %v, err %v", allocs, err)
	}
	_ = sink
}
