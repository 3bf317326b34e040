package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// csvHead is collbench's CSV header with the root's columns.
const csvHead = "op,size_bytes,ranks,iters,warmup,go_avg_us,go_min_us,go_max_us,c_avg_us,c_min_us,c_max_us,ratio_go_c,go_allocs_per_op,go_root_us,c_root_us\n"

// mdRow is a CSV row of op at size: Go and C averages, and the root's
// figures ("" for none).
func mdRow(op, size, goAvg, cAvg, goRoot, cRoot string) string {
	return strings.Join([]string{op, size, "2", "10", "1", goAvg, goAvg, goAvg, cAvg, cAvg, cAvg, "0", "0", goRoot, cRoot}, ",") + "\n"
}

// mdRound is one round: Broadcast (rooted) and its NB form, ReduceAll
// without an NB row, an Agg16 row, a native row, Barrier (no size), and an
// images-per-node row with its ratio row; scale multiplies gocoll's
// blocking Broadcast.
func mdRound(t *testing.T, scale string) run {
	t.Helper()
	text := csvHead +
		mdRow("Bcast", "8", "1.1", "1", "1.1", "1") +
		mdRow("Barrier", "0", "1", "1", "", "") +
		mdRow("gocoll.Broadcast", "8", scale, "1", "3", "2") +
		mdRow("gocoll.Broadcast", "65536", "100", "50", "100", "100") +
		mdRow("gocoll.BroadcastNB", "8", "0.5", "1", "1", "1") +
		mdRow("gocoll.BroadcastNB", "65536", "50", "50", "50", "50") +
		mdRow("gocoll.ReduceAll", "8", "2", "4", "", "") +
		mdRow("gocoll.ReduceAll", "65536", "30", "10", "", "") +
		mdRow("gocoll.Agg16.ReduceAll", "8", "4", "16", "", "") +
		mdRow("gocoll.T2.ReduceAll", "8", "1", "4", "", "") +
		mdRow("gocoll.T2.ReduceAll/gocoll.ReduceAll", "8", "1", "2", "", "")
	r, err := readRun(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func render(t *testing.T, cfg mdConfig, groups ...group) string {
	t.Helper()
	var b bytes.Buffer
	if err := markdown(&b, cfg, groups); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestParseSizes(t *testing.T) {
	s, err := parseSizes("8, 64K-, 1K-2K")
	if err != nil {
		t.Fatal(err)
	}
	for n, want := range map[int]bool{8: true, 16: false, 1024: true, 2048: true, 4096: false, 65536: true, 1 << 20: true} {
		if s.has(n) != want {
			t.Errorf("has(%d) = %v", n, !want)
		}
	}
	if !(sizeSet{}).has(5) {
		t.Error("an empty set lets every size through")
	}
	for _, bad := range []string{"x", "8-4", "1Q", "-8"} {
		if _, err := parseSizes(bad); err == nil {
			t.Errorf("parseSizes(%q): no error", bad)
		}
	}
	for n, want := range map[int]string{8: "8 B", 512: "512 B", 2048: "2 KiB", 1 << 20: "1 MiB", 1536: "1536 B"} {
		if got := sizeName(n); got != want {
			t.Errorf("sizeName(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestSelected(t *testing.T) {
	runs := []run{mdRound(t, "2")}
	ops, szs := selected(runs, []string{"gocoll.*"}, nil)
	want := "gocoll.Broadcast gocoll.BroadcastNB gocoll.ReduceAll gocoll.Agg16.ReduceAll gocoll.T2.ReduceAll"
	if got := strings.Join(ops, " "); got != want {
		t.Errorf("gocoll.* selects %s, want %s (not the A/B row, not Bcast)", got, want)
	}
	if len(szs) != 2 || szs[0] != 8 || szs[1] != 65536 {
		t.Errorf("sizes %v", szs)
	}
	ops, _ = selected(runs, []string{"gocoll.*/*", "B*"}, sizeSet{{8, 8}})
	if got := strings.Join(ops, " "); got != "Bcast gocoll.T2.ReduceAll/gocoll.ReduceAll" {
		t.Errorf("selects %s (Barrier has no size)", got)
	}
}

func TestCollectivesTable(t *testing.T) {
	// Three rounds: the blocking Broadcast of 8 B at 2, 4 and 3 µs against
	// 1, so 3 is the median.
	g := group{runs: []run{mdRound(t, "2"), mdRound(t, "4"), mdRound(t, "3")}}
	got := render(t, mdConfig{kind: "collectives", roots: true}, g)
	want := `| gocoll / MPI: blocking / NB | 8 B | 64 KiB |
| --- | ---: | ---: |
| Broadcast | 3.00 / 0.50 | 2.00 / 1.00 |
| Broadcast, root | 1.50 / 1.00 | 1.00 / 1.00 |
| ReduceAll | 0.50 | 3.00 |
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// With the spread, without the roots.
	got = render(t, mdConfig{kind: "collectives", spread: true, sizes: sizeSet{{8, 8}}}, g)
	want = `| gocoll / MPI: blocking / NB | 8 B |
| --- | ---: |
| Broadcast | 3.00 (2.00..4.00) / 0.50 (0.50..0.50) |
| ReduceAll | 0.50 (0.50..0.50) |
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestRatiosTable(t *testing.T) {
	g := group{runs: []run{mdRound(t, "2"), mdRound(t, "4")}}
	got := render(t, mdConfig{kind: "ratios", ops: []string{"gocoll.Broadcast", "gocoll.T2.*/*"}, spread: true, roots: true}, g)
	want := `| gocoll / MPI | 8 B | 64 KiB |
| --- | ---: | ---: |
| gocoll.Broadcast | 3.00 (2.00..4.00) | 2.00 (2.00..2.00) |
| gocoll.Broadcast, root | 1.50 (1.50..1.50) | 1.00 (1.00..1.00) |
| gocoll.T2.ReduceAll/gocoll.ReduceAll | 0.50 (0.50..0.50) | – |
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// Images rows alone: their ratio is not against MPI.
	got = render(t, mdConfig{kind: "ratios", ops: []string{"gocoll.*/*"}, sizes: sizeSet{{8, 8}}}, g)
	if want := "| T images / 1 image per process | 8 B |\n| --- | ---: |\n| gocoll.T2.ReduceAll/gocoll.ReduceAll | 0.50 |\n"; got != want {
		t.Errorf("images rows:\n%s\nwant\n%s", got, want)
	}
	// One round: no spread to show; no root line unless asked for.
	got = render(t, mdConfig{kind: "ratios", ops: []string{"gocoll.Broadcast"}, spread: true}, group{runs: g.runs[:1]})
	if !strings.Contains(got, "| gocoll.Broadcast | 2.00 | 2.00 |") || strings.Contains(got, "root") {
		t.Errorf("one round:\n%s", got)
	}
}

func TestLatencyTable(t *testing.T) {
	g := group{runs: []run{mdRound(t, "2"), mdRound(t, "4"), mdRound(t, "300")}}
	got := render(t, mdConfig{kind: "latency", ops: []string{"gocoll.Broadcast", "gocoll.ReduceAll"}, sizes: sizeSet{{8, 8}}}, g)
	want := `| µs: gocoll / MPI | 8 B |
| --- | ---: |
| gocoll.Broadcast | 4.00 / 1.00 |
| gocoll.ReduceAll | 2.00 / 4.00 |
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	for v, want := range map[float64]string{0.123: "0.12", 12.34: "12.3", 123.4: "123", 1234.5: "1234"} {
		if got := us(v); got != want {
			t.Errorf("us(%v) = %q, want %q", v, got, want)
		}
	}
}

func TestModesTable(t *testing.T) {
	polling := group{label: "polling", runs: []run{mdRound(t, "2"), mdRound(t, "2")}}
	goroutine := group{label: "goroutine", runs: []run{mdRound(t, "5"), mdRound(t, "3")}}
	got := render(t, mdConfig{kind: "modes", ops: []string{"gocoll.Broadcast"}, sizes: sizeSet{{8, 8}}}, polling, goroutine)
	want := `| µs (gocoll / MPI) | polling | goroutine |
| --- | ---: | ---: |
| gocoll.Broadcast, 8 B | 2.00 (2.00) | 4.00 (4.00) |
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestCheck(t *testing.T) {
	g := group{runs: []run{mdRound(t, "0.9"), mdRound(t, "1.1"), mdRound(t, "1")}}
	cfg := mdConfig{kind: "check", ops: []string{"gocoll.Broadcast*"}, sizes: sizeSet{{8, 8}}, limit: 1}
	want := "**met**: all 2 figures at most 1× (the greatest: Broadcast at 8 B 1.00 (0.90..1.10)).\n"
	if got := render(t, cfg, g); got != want {
		t.Errorf("got  %swant %s", got, want)
	}
	cfg.limit, cfg.roots = 0.6, true
	want = "**not met**: 3 of 4 figures above 0.6×: Broadcast, root at 8 B 1.50 (1.50..1.50); " +
		"Broadcast at 8 B 1.00 (0.90..1.10); BroadcastNB, root at 8 B 1.00 (1.00..1.00).\n"
	if got := render(t, cfg, g); got != want {
		t.Errorf("got  %swant %s", got, want)
	}
}

func TestMarkdownErrors(t *testing.T) {
	g := group{runs: []run{mdRound(t, "1")}}
	for _, c := range []struct {
		cfg    mdConfig
		groups []group
		want   string
	}{
		{mdConfig{kind: "pie"}, []group{g}, "unknown table"},
		{mdConfig{kind: "ratios"}, nil, "no CSV files"},
		{mdConfig{kind: "ratios", ops: []string{"nothing"}}, []group{g}, "no rows match"},
	} {
		if err := markdown(io.Discard, c.cfg, c.groups); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.cfg, err, c.want)
		}
	}
}

func TestMedianCSV(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	head := "op,size_bytes,go_avg_us,c_avg_us,ratio_go_c\n"
	files := []string{
		write("r1.csv", head+"A,8,1.2,1,1.2\nB,8,5,1,5\n"),
		write("r2.csv", head+"A,8,3,1,3\nB,8,1,1,1\nC,8,1,1,1\n"),
		write("r3.csv", head+"A,8,1.1,1,1.1\nB,8,2,1,2\n"),
	}
	open := func(name string) (io.ReadCloser, error) { return os.Open(name) }
	var b bytes.Buffer
	if err := medianCSV(&b, files, open); err != nil {
		t.Fatal(err)
	}
	// A: 1.1, 1.2, 3, the median round 1's; B: 1, 2, 5, round 3's; C only in
	// round 2; of an even count, the lower.
	want := head + "A,8,1.2,1,1.2\nB,8,2,1,2\nC,8,1,1,1\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	if err := medianCSV(&b, files[:2], open); err != nil || !strings.Contains(b.String(), "A,8,1.2,1,1.2\nB,8,1,1,1\n") {
		t.Errorf("two rounds: %v\n%s", err, b.String())
	}
	other := write("other.csv", "op,size_bytes,go_avg_us,c_avg_us,ratio_go_c,more\nA,8,1,1,1,0\n")
	if err := medianCSV(io.Discard, []string{files[0], other}, open); err == nil || !strings.Contains(err.Error(), "columns") {
		t.Errorf("files of two collbench versions: %v", err)
	}
	notCSV := write("x.csv", "a,b\n1,2\n")
	if err := medianCSV(io.Discard, []string{notCSV}, open); err == nil || !strings.Contains(err.Error(), "not a collbench CSV") {
		t.Errorf("another file: %v", err)
	}
}

func TestParseGroup(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "r.csv")
	if err := os.WriteFile(p, []byte(csvHead+mdRow("gocoll.Broadcast", "8", "1", "1", "", "")), 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := parseGroup("polling=" + p + "," + p)
	if err != nil || g.label != "polling" || len(g.runs) != 2 {
		t.Errorf("parseGroup: %+v, %v", g, err)
	}
	if g, err = parseGroup(p); err != nil || g.label != "" || len(g.runs) != 1 {
		t.Errorf("parseGroup without a label: %+v, %v", g, err)
	}
	if _, err = parseGroup("x=" + filepath.Join(dir, "none.csv")); err == nil {
		t.Error("a missing file: no error")
	}
}
