package main

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseSize(t *testing.T) {
	good := map[string]int{
		"8": 8, "1": 1, "512B": 512, "1K": 1024, "1k": 1024, "64KiB": 64 << 10, "4kb": 4096,
		"1M": 1 << 20, "2MiB": 2 << 20, "1G": 1 << 30, " 16 ": 16,
	}
	for in, want := range good {
		got, err := parseSize(in)
		if err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "K", "B", "-8", "+8", "1.5K", "8X", "2G", "99999999999999999999", "9223372036854775807K", "1 K"} {
		if n, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q) = %d, want an error", in, n)
		}
	}
}

func TestFormatSize(t *testing.T) {
	for n, want := range map[int]string{8: "8", 1000: "1000", 1024: "1K", 3 << 10: "3K", 1 << 20: "1M", 1<<20 + 1: "1048577", 1 << 30: "1G"} {
		if got := formatSize(n); got != want {
			t.Errorf("formatSize(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestSizes(t *testing.T) {
	cases := []struct {
		min, max, step int
		want           []int
	}{
		{8, 1 << 20, 4, []int{8, 32, 128, 512, 2048, 8192, 32768, 131072, 524288, 1 << 20}},
		{8, 64, 2, []int{8, 16, 32, 64}},
		{8, 8, 2, []int{8}},
		{1, 10, 3, []int{1, 3, 9, 10}},
		{1 << 29, 1 << 30, 4, []int{1 << 29, 1 << 30}},
	}
	for _, c := range cases {
		got := config{minSize: c.min, maxSize: c.max, step: c.step}.sizes()
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("sizes(%d..%d x%d) = %v, want %v", c.min, c.max, c.step, got, c.want)
		}
	}
}

func TestCounts(t *testing.T) {
	c := config{iters: 10000, warmup: 1000}
	for _, tc := range []struct{ size, warm, iters int }{
		{0, 1000, 10000}, {8, 1000, 10000}, {8192, 1000, 10000},
		{16384, 500, 5000}, {1 << 20, 7, 78}, {1 << 30, 2, 10},
	} {
		w, i := c.counts(tc.size)
		if w != tc.warm || i != tc.iters {
			t.Errorf("counts(%d) = %d, %d; want %d, %d", tc.size, w, i, tc.warm, tc.iters)
		}
	}
	// Small counts are not raised by the floors.
	w, i := config{iters: 3, warmup: 0}.counts(1 << 20)
	if w != 0 || i != 3 {
		t.Errorf("counts with --iters 3 --warmup 0 = %d, %d; want 0, 3", w, i)
	}
}

func TestParseOps(t *testing.T) {
	all := opNames()
	if len(all) != 52 || all[0] != "PingPong" || all[1] != "Stream" || all[2] != "Barrier" || all[15] != "Allreduce_init" || all[21] != "NeighborAlltoall" || all[22] != "gocoll.Broadcast" || all[36] != "gocoll.Plan.Broadcast" || all[43] != "gocoll.Agg16.Broadcast" || all[46] != "gocoll.Seg.Broadcast" || all[48] != "gocoll.Tnp.Broadcast" {
		t.Fatalf("opNames() = %v", all)
	}
	tnp := func(ops ...string) []string {
		for i, o := range ops {
			ops[i] = imagesPrefix + o
		}
		return ops
	}
	for _, c := range []struct {
		in   string
		want []string
		t    int
	}{
		{"all", all, 0},
		{"ALL", all, 0},
		{"allreduce,bcast", []string{"Bcast", "Allreduce"}, 0},
		{" Bcast , bcast ,", []string{"Bcast"}, 0},
		{"reduce_scatter_block,ReduceScatterBlock", []string{"ReduceScatterBlock"}, 0},
		{"pingpong,iallreduce", []string{"PingPong", "Iallreduce"}, 0},
		{"allreduce_init,Bcast_Init,reduce_scatter,neighboralltoall", []string{"Allreduce_init", "Bcast_init", "ReduceScatter", "NeighborAlltoall"}, 0},
		{"alltoallv,GATHERV,allgatherv", []string{"Gatherv", "Allgatherv", "Alltoallv"}, 0},
		{"GOCOLL.exchange,gocoll.gatherallnb", []string{"gocoll.Exchange", "gocoll.GatherAllNB"}, 0},
		{"gocoll.tnp.reduceallm,gocoll.TNP.Broadcast", tnp("Broadcast", "ReduceAllM"), 0},
		// As printed, T spelled out: the same rows, and T is kept.
		{"gocoll.t2.broadcastm,GOCOLL.T2.REDUCEALL,gocoll.Broadcast", append([]string{"gocoll.Broadcast"}, tnp("BroadcastM", "ReduceAll")...), 2},
		{"gocoll.T4.Broadcast,gocoll.Tnp.Broadcast", tnp("Broadcast"), 4},
		{"gocoll.T12.reduce_all", tnp("ReduceAll"), 12},
	} {
		got, gotT, err := parseOps(c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) || gotT != c.t {
			t.Errorf("parseOps(%q) = %v, T %d, %v; want %v, T %d", c.in, got, gotT, err, c.want, c.t)
		}
	}
	for _, in := range []string{
		"", ",", "bcastt", "bcast,nope",
		"gocoll.T2.Broadcast,gocoll.T3.ReduceAll", // two T's
		"gocoll.T2.Nope", "gocoll.T.Broadcast", "gocoll.T0.Broadcast", "gocoll.T+2.Broadcast", "gocoll.T-2.Broadcast",
		"gocoll.T2", "gocoll.T2.", "gocoll.Tx.Broadcast", "gocoll.T2.Scatter",
	} {
		if got, _, err := parseOps(in); err == nil {
			t.Errorf("parseOps(%q) = %v, want an error", in, got)
		}
	}
}

func TestParseArgs(t *testing.T) {
	var out bytes.Buffer
	cfg, err := parseArgs(nil, &out)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.minSize != 8 || cfg.maxSize != 1<<20 || cfg.step != 4 || cfg.iters != defaultIters ||
		cfg.warmup != defaultWarmup || cfg.reps != 3 || !cfg.yield || len(cfg.ops) != len(opNames()) || cfg.csv != "" {
		t.Errorf("defaults: %+v", cfg)
	}
	cfg, err = parseArgs(strings.Fields("--min-size 1K -max-size 64K --iters 50 --warmup 0 --step 2 --ops bcast --csv x.csv --reps 1 --yield=false"), &out)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.minSize != 1024 || cfg.maxSize != 65536 || cfg.iters != 50 || cfg.warmup != 0 || cfg.step != 2 || cfg.reps != 1 || cfg.yield ||
		!reflect.DeepEqual(cfg.ops, []string{"Bcast"}) || cfg.csv != "x.csv" {
		t.Errorf("parsed: %+v", cfg)
	}
	if out.Len() != 0 {
		t.Errorf("good flags printed %q", out.String())
	}

	for _, args := range []string{
		"--bogus", "--iters x", "--iters 0", "--warmup -1", "--min-size 0", "--max-size 1Q",
		"--min-size 2K --max-size 1K", "--step 1", "--reps 0", "--ops nope", "extra", "--iters",
	} {
		out.Reset()
		_, err := parseArgs(strings.Fields(args), &out)
		if err == nil || errors.Is(err, errHelp) {
			t.Errorf("parseArgs(%q): err = %v, want an error", args, err)
		}
	}
}

func TestWrap(t *testing.T) {
	got := wrap("aa bb cc dd", "  ", 8)
	if want := "  aa bb\n  cc dd\n"; got != want {
		t.Errorf("wrap = %q, want %q", got, want)
	}
}

func TestHelpAndExitCodes(t *testing.T) {
	var stdout, stderr bytes.Buffer
	t.Setenv("OMPI_COMM_WORLD_RANK", "0")
	if code := realMain([]string{"--help"}, &stdout, &stderr); code != 0 {
		t.Errorf("--help: exit %d", code)
	}
	help := stdout.String()
	if n := strings.Count(help, "collbench times MPI"); n != 1 {
		t.Errorf("--help printed the usage %d times", n)
	}
	for _, want := range []string{
		"mpirun", "--bind-to none", "-min-size", "-max-size", "-iters", "-warmup", "-ops", "-csv", "ReduceScatterBlock",
		// the images-per-node rows: listed, and what T is and who measures
		"gocoll.Tnp.Broadcast", "gocoll.Tnp.ReduceAllM", "T = np images", "rank 0 runs them alone", "\"images per node\"",
	} {
		if !strings.Contains(help, want) {
			t.Errorf("--help output lacks %q:\n%s", want, help)
		}
	}

	stdout.Reset()
	if code := realMain([]string{"--max-size", "huge"}, &stdout, &stderr); code != 2 {
		t.Errorf("bad flag: exit %d, want 2", code)
	}
	if !strings.Contains(stderr.String(), "--max-size") || !strings.Contains(stderr.String(), "--help") || stdout.Len() != 0 {
		t.Errorf("bad flag: stdout %q, stderr %q", stdout.String(), stderr.String())
	}

	// Ranks other than 0 stay quiet about flags.
	stderr.Reset()
	t.Setenv("OMPI_COMM_WORLD_RANK", "1")
	if code := realMain([]string{"--ops", "nope"}, &stdout, &stderr); code != 2 || stderr.Len() != 0 {
		t.Errorf("rank 1, bad flag: exit %d, stderr %q", code, stderr.String())
	}
}

func TestPlotFlags(t *testing.T) {
	var out bytes.Buffer
	cfg, err := parseArgs([]string{"--plot", "fig.png", "--quiet"}, &out)
	if err != nil || cfg.plot != "fig.png" || !cfg.quiet || cfg.fromCSV != "" {
		t.Errorf("--plot fig.png --quiet: %+v, %v", cfg, err)
	}
	if cfg, err := parseArgs([]string{"--plot", "f.png", "--from-csv", "r.csv"}, &out); err != nil || cfg.fromCSV != "r.csv" {
		t.Errorf("--from-csv: %+v, %v", cfg, err)
	}
	for _, args := range [][]string{{"--plot", "fig.svg"}, {"--from-csv", "r.csv"}} {
		if _, err := parseArgs(args, &out); err == nil {
			t.Errorf("%q accepted", args)
		}
	}
}
