package main

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"
)

func TestTable(t *testing.T) {
	var out, csvOut bytes.Buffer
	tb := newTable(&out, &csvOut)
	tb.header(headerInfo{ranks: 2, library: "Open MPI v4.1.4", thread: "MPI_THREAD_MULTIPLE", gomaxprocs: 2,
		cfg: config{iters: 10000, warmup: 1000, reps: 3}})
	tb.note("PingPong skipped: needs 2 ranks, running with 1")
	rows := []row{
		{op: "Barrier", ranks: 2, iters: 10000, warmup: 1000, goAvg: 0.2, goMin: 0.19, goMax: 0.21, cAvg: 0.18, cMin: 0.18, cMax: 0.18},
		{op: "ReduceScatterBlock", size: 1 << 20, sized: true, ranks: 2, iters: 78, warmup: 7,
			goAvg: 1234.5678, goMin: 1000, goMax: 1469.1356, cAvg: 1200, cMin: 1100, cMax: 1300, allocs: 1},
		{op: "Bcast", size: 8, sized: true, ranks: 2, goAvg: 0.3}, // C side 0: ratio 0
	}
	for _, r := range rows {
		if err := tb.row(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := tb.flush(); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(lines) != 6+1+3 {
		t.Fatalf("table has %d lines:\n%s", len(lines), text)
	}
	for i, want := range []string{
		"# gocoll collbench", "# Open MPI v4.1.4, np 2, MPI_THREAD_MULTIPLE, GOMAXPROCS 2",
		"# iterations 10000, warm-up 1000 (scaled down above 8K, at least 10)",
		"# best of 3 repetitions (Go and C alternating)", "# avg/min/max",
		"# Operation          Size(B)     Go avg     Go min     Go max      C avg    Go/C allocs/op",
		"# PingPong skipped",
		"Barrier                    -       0.20       0.19       0.21       0.18    1.11      0.00",
		"ReduceScatterBlock   1048576    1234.57    1000.00    1469.14    1200.00    1.03      1.00",
		"Bcast                      8       0.30       0.00       0.00       0.00    0.00      0.00",
	} {
		if !strings.HasPrefix(lines[i], want) {
			t.Errorf("line %d = %q, want prefix %q", i, lines[i], want)
		}
	}
	// Columns line up: every data row is as long as the column header.
	for _, l := range lines[7:] {
		if len(l) != len(lines[5]) {
			t.Errorf("row %q: length %d, header %d", l, len(l), len(lines[5]))
		}
	}

	recs, err := csv.NewReader(&csvOut).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 4 || strings.Join(recs[0], ",") != strings.Join(csvHeader, ",") {
		t.Fatalf("csv: %v", recs)
	}
	want := "ReduceScatterBlock,1048576,2,78,7,1234.57,1000,1469.14,1200,1100,1300,1.02881,1"
	if got := strings.Join(recs[2], ","); got != want {
		t.Errorf("csv row = %s, want %s", got, want)
	}
	if recs[1][1] != "0" {
		t.Errorf("size-less row size = %q, want 0", recs[1][1])
	}
}

func TestTableWithoutCSV(t *testing.T) {
	var out bytes.Buffer
	tb := newTable(&out, nil)
	if err := tb.row(row{op: "Bcast", size: 8, sized: true, goAvg: 1, cAvg: 1}); err != nil {
		t.Fatal(err)
	}
	if err := tb.flush(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "Bcast") {
		t.Errorf("out = %q", out.String())
	}
}
