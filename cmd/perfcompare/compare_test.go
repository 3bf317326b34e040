package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSummarize(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want summary
	}{
		{[]float64{3}, summary{3, 3, 3}},
		{[]float64{5, 1, 3}, summary{3, 1, 5}},
		{[]float64{4, 1, 3, 2}, summary{2.5, 1, 4}}, // even: the mean of the middle two
	} {
		if got := summarize(c.in); got != c.want {
			t.Errorf("summarize(%v) = %+v, want %+v", c.in, got, c.want)
		}
	}
	if got := (summary{1.0449, 0.9, 12.345}).String(); got != "1.04 (0.90..12.35)" {
		t.Errorf("String = %q", got)
	}
}

// oldCSV is a file of collbench before the root's columns; newCSV one with
// them, empty in the rows without a root.
const (
	oldCSV = `op,size_bytes,ranks,iters,warmup,go_avg_us,go_min_us,go_max_us,c_avg_us,c_min_us,c_max_us,ratio_go_c,go_allocs_per_op
Bcast,8,2,10,1,0.3,0.3,0.3,0.2,0.2,0.2,1.5,0
gocoll.Broadcast,8,2,10,1,0.4,0.4,0.4,0.2,0.2,0.2,2,0
`
	newCSV = `op,size_bytes,ranks,iters,warmup,go_avg_us,go_min_us,go_max_us,c_avg_us,c_min_us,c_max_us,ratio_go_c,go_allocs_per_op,go_root_us,c_root_us
gocoll.Broadcast,8,2,10,1,0.4,0.4,0.4,0.2,0.2,0.2,2,0,0.5,0.25
gocoll.ReduceAll,8,2,10,1,0.6,0.6,0.6,0.3,0.3,0.3,2,1,,
`
)

func TestReadRun(t *testing.T) {
	r, err := readRun(strings.NewReader(oldCSV))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.order) != 2 || r.order[1] != (key{"gocoll.Broadcast", 8}) {
		t.Errorf("order = %v", r.order)
	}
	if got := r.rows[key{"gocoll.Broadcast", 8}]; got != (row{goAvg: 0.4, cAvg: 0.2}) {
		t.Errorf("old file's row = %+v", got)
	}
	r, err = readRun(strings.NewReader(newCSV))
	if err != nil {
		t.Fatal(err)
	}
	if got := r.rows[key{"gocoll.Broadcast", 8}]; got != (row{goAvg: 0.4, cAvg: 0.2, goRoot: 0.5, cRoot: 0.25}) {
		t.Errorf("rooted row = %+v", got)
	}
	if got := r.rows[key{"gocoll.ReduceAll", 8}]; got != (row{goAvg: 0.6, cAvg: 0.3, allocs: 1}) {
		t.Errorf("row without a root = %+v", got)
	}
	if _, err := readRun(strings.NewReader("a,b\n1,2\n")); err == nil || !strings.Contains(err.Error(), "not a collbench CSV") {
		t.Errorf("another file: %v", err)
	}
	bad := strings.Replace(newCSV, "0.5,0.25", "x,0.25", 1)
	if _, err := readRun(strings.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "line 2, column go_root_us") {
		t.Errorf("a bad number: %v", err)
	}
}

// mkRun makes a run of rows of gocoll.Broadcast (rooted) and gocoll.T2.Broadcast
// at 8 and 65536 bytes, and of their images ratio row; scale multiplies the
// Go figures of the rows of op.
func mkRun(op string, scale float64) run {
	r := run{rows: map[key]row{}}
	add := func(name string, size int, x row) {
		r.order = append(r.order, key{name, size})
		r.rows[key{name, size}] = x
	}
	for _, size := range []int{8, 65536} {
		s := float64(size)/1000 + 1
		one := row{goAvg: s, cAvg: s, goRoot: 2 * s, cRoot: s}
		tt := row{goAvg: s / 2, cAvg: s}
		if op == "gocoll.Broadcast" {
			one.goAvg, one.goRoot = one.goAvg*scale, one.goRoot*scale
		}
		add("gocoll.Broadcast", size, one)
		add("gocoll.T2.Broadcast", size, tt)
		add("Bcast", size, row{goAvg: 1, cAvg: 1}) // not gocoll's: left out
	}
	for _, size := range []int{8, 65536} {
		a, b := r.rows[key{"gocoll.T2.Broadcast", size}], r.rows[key{"gocoll.Broadcast", size}]
		add("gocoll.T2.Broadcast/gocoll.Broadcast", size, row{goAvg: a.goAvg, cAvg: b.goAvg})
	}
	return r
}

func TestLines(t *testing.T) {
	base := []run{mkRun("", 1), mkRun("", 1)}
	head := []run{mkRun("gocoll.Broadcast", 1.5), mkRun("gocoll.Broadcast", 1.5)}
	delete(head[1].rows, key{"gocoll.T2.Broadcast", 65536}) // a round without the row
	head[1].rows[key{"gocoll.NewOp", 8}] = row{goAvg: 1, cAvg: 1}
	head[1].order = append(head[1].order, key{"gocoll.NewOp", 8})
	ls, missing := lines(base, head)
	var names []string
	for _, l := range ls {
		names = append(names, fmt.Sprintf("%s %d %d", l.name, l.size, len(l.base)))
	}
	want := []string{
		"gocoll.Broadcast 8 2", "gocoll.Broadcast:root 8 2", "gocoll.T2.Broadcast 8 2",
		"gocoll.Broadcast 65536 2", "gocoll.Broadcast:root 65536 2", "gocoll.T2.Broadcast 65536 1",
		"gocoll.T2.Broadcast/gocoll.Broadcast 8 2", "gocoll.T2.Broadcast/gocoll.Broadcast 65536 1",
	}
	if strings.Join(names, ", ") != strings.Join(want, ", ") {
		t.Errorf("lines:\n%s\nwant\n%s", strings.Join(names, "\n"), strings.Join(want, "\n"))
	}
	if len(missing) != 1 || missing[0] != "gocoll.NewOp 8" {
		t.Errorf("missing = %v", missing)
	}
	root, ratio := ls[1], ls[6]
	if p := root.head[0]; p.v != 1.5*2*1.008 || p.native != 3 {
		t.Errorf("root point = %+v, want 1.5 * 2 * 1.008 us, 3 times native", p)
	}
	// T images: 0.5 us, against 1.5 us for one image per process (times
	// 1.008); per native: (0.5/1) / (1.5/1).
	if p := ratio.head[0]; !ratio.images || math.Abs(p.v-0.5/1.5) > 1e-12 || math.Abs(p.native-0.5/1.5) > 1e-12 {
		t.Errorf("images ratio line = %+v", ratio)
	}
	if ratio.baseAllocs != nil || root.baseAllocs != nil || len(ls[0].baseAllocs) != 2 {
		t.Error("allocations belong to the rows' average lines only")
	}
}

// latency makes a latency line of rounds of base and head (µs), each
// against a native collective of 1 µs in the same run.
func latency(base, head []float64) line {
	l := line{name: "gocoll.X", size: 8}
	for i := range base {
		l.base = append(l.base, point{base[i], base[i]})
		l.head = append(l.head, point{head[i], head[i]})
	}
	return l
}

func TestVerdict(t *testing.T) {
	for _, c := range []struct {
		name       string
		base, head []float64
		want       string
	}{
		{"identical", []float64{10, 10, 10, 10, 10, 10}, []float64{10, 10, 10, 10, 10, 10}, ""},
		{"noise of a few percent", []float64{10, 10.3, 9.8, 10.1, 10.4, 9.9}, []float64{10.2, 9.9, 10.3, 10, 9.8, 10.4}, ""},
		// The machine's slow state (2x) caught head in four rounds of
		// six, base in one: the median new/old moves 80%, the fastest
		// rounds do not.
		{"slow state", []float64{0.13, 0.13, 0.25, 0.13, 0.13, 0.13}, []float64{0.25, 0.13, 0.25, 0.25, 0.25, 0.135}, ""},
		// The fast rounds spread by 8%: head's fastest over base's second
		// fastest stays below 5%.
		{"spread fast rounds", []float64{0.334, 0.36, 0.8, 0.353, 0.355, 1.4}, []float64{0.36, 0.351, 1.2, 1.4, 0.95, 1.4}, ""},
		{"10% slower", []float64{10, 10.3, 9.8, 10.1, 10.4, 9.9}, []float64{11, 11.3, 10.9, 11.1, 11.5, 10.8}, "slower"},
		// One slow round of base: still slower, but its round is slower
		// than all six of head's, which the "?" says.
		{"10% slower, one round slow", []float64{10, 10.3, 9.8, 25, 10.4, 9.9}, []float64{11, 11.3, 10.9, 11.1, 11.5, 10.8}, "slower?"},
		{"10% faster", []float64{11, 11.3, 10.9, 11.1, 11.5, 10.8}, []float64{10, 10.3, 9.8, 10.1, 10.4, 9.9}, "faster"},
		{"one round", []float64{10}, []float64{11}, "slower"},
		// A bimodal row (98 or 120 us): base drew the fast mode in three
		// rounds, head in none. The medians and the fastest rounds moved,
		// but the rounds interleave: 9 pairs of 36 go against.
		{"bimodal", []float64{97.6, 96.2, 119.3, 121.2, 97.9, 191.8}, []float64{121.9, 117.8, 124.1, 120.1, 227.1, 122.7}, "slower?"},
	} {
		if got := latency(c.base, c.head).verdict(defaultThreshold); got != c.want {
			t.Errorf("%s: verdict = %q, want %q", c.name, got, c.want)
		}
	}
	// A change that also slows the native collective beside it (its Go/C
	// stays) is the machine's, not gocoll's.
	l := latency([]float64{10, 10, 10, 10}, []float64{11, 11, 11, 11})
	for i := range l.head {
		l.head[i].native = l.base[i].native
	}
	if got := l.verdict(defaultThreshold); got != "" {
		t.Errorf("Go/C unchanged: verdict = %q, want none", got)
	}
}

func TestVerdictImages(t *testing.T) {
	ratioLine := func(base, head []float64) line {
		l := latency(base, head)
		l.images = true
		return l
	}
	// Every round 10% higher: flagged.
	if got := ratioLine([]float64{0.5, 0.6, 0.4, 0.5}, []float64{0.55, 0.66, 0.44, 0.56}).verdict(0.05); got != "slower" {
		t.Errorf("every round slower: %q", got)
	}
	// The median moved, but not every round: a ratio of two rows that flip
	// between states independently.
	if got := ratioLine([]float64{0.5, 0.6, 0.4, 0.5}, []float64{0.6, 0.7, 0.38, 0.6}).verdict(0.05); got != "" {
		t.Errorf("one round against: %q", got)
	}
	if got := ratioLine([]float64{0.5, 0.6, 0.4, 0.5}, []float64{0.4, 0.5, 0.3, 0.4}).verdict(0.05); got != "faster" {
		t.Errorf("every round faster: %q", got)
	}
}

func TestAllocs(t *testing.T) {
	l := latency([]float64{1, 1, 1}, []float64{1, 1, 1})
	for _, c := range []struct {
		base, head []float64
		want       string
	}{
		{[]float64{0, 0, 0}, []float64{0, 0.1, 0}, ""},            // a stray allocation in a short row
		{[]float64{0.08, 0.8, 0.05}, []float64{0.1, 0.05, 0}, ""}, // noise of a row
		{[]float64{0, 0, 0}, []float64{1, 1, 1}, "allocs 0.00->1.00"},
		{[]float64{11, 11, 11}, []float64{10, 10, 10.1}, "allocs 11.00->10.00"},
	} {
		l.baseAllocs, l.headAllocs = c.base, c.head
		if got := l.allocs(); got != c.want {
			t.Errorf("allocs %v -> %v: %q, want %q", c.base, c.head, got, c.want)
		}
	}
}

// TestCompareFiles runs the command's path on files: base without the
// root's columns, head with them, and a slowdown of gocoll.Broadcast.
func TestCompareFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, r run) string {
		var b strings.Builder
		b.WriteString("op,size_bytes,go_avg_us,c_avg_us,go_allocs_per_op,go_root_us,c_root_us\n")
		for _, k := range r.order {
			x := r.rows[k]
			fmt.Fprintf(&b, "%s,%d,%g,%g,%g,%g,%g\n", k.op, k.size, x.goAvg, x.cAvg, x.allocs, x.goRoot, x.cRoot)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var bs, hs []string
	for i := range 4 {
		bs = append(bs, write(fmt.Sprintf("base-%d.csv", i), mkRun("", 1)))
		hs = append(hs, write(fmt.Sprintf("head-%d.csv", i), mkRun("gocoll.Broadcast", 1.2)))
	}
	var out bytes.Buffer
	if err := compareFiles(&out, bs, hs, defaultThreshold); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{
		"# 4 rounds of base and head",
		"gocoll.Broadcast                    8      1.01      1.21  1.20 (1.20..1.20)    1.00 (1.00..1.00)    1.20 (1.20..1.20)    slower\n",
		"gocoll.Broadcast:root               8      2.02      2.42  1.20 (1.20..1.20)    2.00 (2.00..2.00)    2.40 (2.40..2.40)    slower\n",
		"gocoll.T2.Broadcast                 8      0.50      0.50  1.00 (1.00..1.00)    0.50 (0.50..0.50)    0.50 (0.50..0.50)    \n",
		"# images per node",
		// one image per process 20% slower: T images over it 1/1.2
		"gocoll.T2.Broadcast/gocoll.Broadcast            8      0.50      0.42  0.83 (0.83..0.83)    0.50 (0.50..0.50)    0.42 (0.42..0.42)    faster\n",
		"# 8 lines: 4 slower, 2 faster (0 of these with \"?\"), 0 with other allocations\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	if err := compareFiles(&out, bs, hs[:3], defaultThreshold); err == nil {
		t.Error("3 head files for 4 base files: no error")
	}
	if err := compareFiles(&out, bs, []string{bs[0], bs[1], bs[2], filepath.Join(dir, "missing.csv")}, defaultThreshold); err == nil {
		t.Error("a missing file: no error")
	}
}
