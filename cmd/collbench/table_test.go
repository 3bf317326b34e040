package main

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	"github.com/gocoll/gocoll/cmd/internal/benchcsv"
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
		// a slow root, hidden by the average: its own column and ratio
		{op: "gocoll.Broadcast", size: 8, sized: true, ranks: 2, iters: 10, warmup: 1, goAvg: 95.5, goMin: 1, goMax: 190,
			cAvg: 50, cMin: 1, cMax: 99, rooted: true, goRoot: 190, cRoot: 99},
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
	if len(lines) != 7+1+4 {
		t.Fatalf("table has %d lines:\n%s", len(lines), text)
	}
	for i, want := range []string{
		"# gocoll collbench", "# Open MPI v4.1.4, np 2, MPI_THREAD_MULTIPLE, GOMAXPROCS 2",
		"# iterations 10000, warm-up 1000 (scaled down above 8K, at least 10)",
		"# best of 3 repetitions (Go and C alternating)", "# avg/min/max",
		"# rooted collectives (root: rank 0): Go root = the root's Go, root Go/C = the root's Go / its C",
		"# Operation            Size(B)     Go avg     Go min     Go max      C avg    Go/C allocs/op    Go root root Go/C",
		"# PingPong skipped",
		"Barrier                      -       0.20       0.19       0.21       0.18    1.11      0.00          -         -",
		"ReduceScatterBlock     1048576    1234.57    1000.00    1469.14    1200.00    1.03      1.00          -         -",
		"Bcast                        8       0.30       0.00       0.00       0.00    0.00      0.00          -         -",
		"gocoll.Broadcast             8      95.50       1.00     190.00      50.00    1.91      0.00     190.00      1.92",
	} {
		if !strings.HasPrefix(lines[i], want) {
			t.Errorf("line %d = %q, want prefix %q", i, lines[i], want)
		}
	}
	// Columns line up: every data row is as long as the column header.
	for _, l := range lines[8:] {
		if len(l) != len(lines[6]) {
			t.Errorf("row %q: length %d, header %d", l, len(l), len(lines[6]))
		}
	}

	recs, err := csv.NewReader(&csvOut).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 5 || strings.Join(recs[0], ",") != strings.Join(benchcsv.Header, ",") {
		t.Fatalf("csv: %v", recs)
	}
	// The root's columns come last, empty where there is no root.
	for i, want := range []string{
		2: "ReduceScatterBlock,1048576,2,78,7,1234.57,1000,1469.14,1200,1100,1300,1.02881,1,,",
		4: "gocoll.Broadcast,8,2,10,1,95.5,1,190,50,1,99,1.91,0,190,99",
	} {
		if got := strings.Join(recs[i], ","); want != "" && got != want {
			t.Errorf("csv row %d = %s, want %s", i, got, want)
		}
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

// TestImagesTable checks the images-per-node parts: the note in the main
// table, the ratio table after it and its CSV rows, and that the longest
// row name keeps the main table's columns.
func TestImagesTable(t *testing.T) {
	var out, csvOut bytes.Buffer
	tb := newTable(&out, &csvOut)
	tb.imagesNote(2)
	long := row{op: "gocoll.T2.ReduceAllM", size: 1 << 20, sized: true, ranks: 2, goAvg: 1234.5, cAvg: 1000}
	if err := tb.row(long); err != nil {
		t.Fatal(err)
	}
	tb.imagesTable(nil, 2) // nothing to pair: no table
	if strings.Contains(out.String(), "images per node") {
		t.Errorf("empty images table printed:\n%s", out.String())
	}
	es := entries(&bench{})
	rows := []row{
		{op: "gocoll.Broadcast", size: 8, sized: true, ranks: 2, goAvg: 2, goMin: 1, goMax: 3, cAvg: 4},
		{op: "gocoll.Broadcast", size: 64, sized: true, ranks: 2, goAvg: 4, goMin: 3, goMax: 5},
		{op: "gocoll.T2.Broadcast", size: 8, sized: true, ranks: 2, iters: 10, warmup: 1, goAvg: 1, goMin: 1, goMax: 1, cAvg: 9, allocs: 0.5},
		{op: "gocoll.T2.Broadcast", size: 64, sized: true, ranks: 2, goAvg: 6, goMin: 6, goMax: 6},
		{op: "gocoll.T2.Broadcast", size: 512, sized: true, ranks: 2, goAvg: 6}, // no one-image row: no ratio
		{op: "gocoll.T2.ReduceAllM", size: 8, sized: true, ranks: 2, goAvg: 1},  // gocoll.ReduceAll did not run
	}
	rs := imagesRatios(es, rows, 2)
	if len(rs) != 2 {
		t.Fatalf("imagesRatios = %+v, want 2 rows", rs)
	}
	tb.imagesTable(rs, 2)
	if err := tb.flush(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	for i, want := range []string{
		"# gocoll.T2.* rows: T = np = 2 images on ONE process (rank 0",
		"# other ranks sleep: Go avg/min/max are rank 0's alone; C is native MPI over 2 ranks",
		"gocoll.T2.ReduceAllM   1048576    1234.50       0.00       0.00    1000.00    1.23      0.00          -         -",
		"#",
		"# images per node, T = np = 2:",
		"# one image on each of 2 processes; ratio",
		"# per native = the two rows' Go/C divided",
		"# which cancels a change of the machine's speed",
		"# Rows                                   Size(B)   T images    1 image   ratio per native",
		// (1/9) / (2/4): each row against its own native figure
		"gocoll.T2.Broadcast/gocoll.Broadcast           8       1.00       2.00    0.50       0.22",
		// no C figure in either row: no per-native ratio
		"gocoll.T2.Broadcast/gocoll.Broadcast          64       6.00       4.00    1.50       0.00",
	} {
		if i >= len(lines) || !strings.HasPrefix(lines[i], want) {
			t.Errorf("line %d = %q, want prefix %q\n%s", i, lines[min(i, len(lines)-1)], want, out.String())
		}
	}
	if len(lines) != 11 {
		t.Errorf("%d lines, want 11:\n%s", len(lines), out.String())
	}
	if n := len(rowFormatHeader()); len(lines[2]) != n {
		t.Errorf("row %q: length %d, header %d", lines[2], len(lines[2]), n)
	}

	recs, err := csv.NewReader(&csvOut).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1+1+2 {
		t.Fatalf("csv: %v", recs)
	}
	want := "gocoll.T2.Broadcast/gocoll.Broadcast,8,2,10,1,1,1,1,2,1,3,0.5,0.5,,"
	if got := strings.Join(recs[2], ","); got != want {
		t.Errorf("csv ratio row = %s, want %s", got, want)
	}
}

// rowFormatHeader is the main table's column header line.
func rowFormatHeader() string {
	var out bytes.Buffer
	tb := newTable(&out, nil)
	tb.printf(rowFormat, "# Operation", "Size(B)", "Go avg", "Go min", "Go max", "C avg", "Go/C", "allocs/op", "Go root", "root Go/C")
	return strings.TrimSuffix(out.String(), "\n")
}
