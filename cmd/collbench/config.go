package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	gsync "github.com/gocoll/gocoll/sync"
)

// Defaults. Messages up to scaleAbove bytes run the full iteration counts;
// larger ones run proportionally fewer (never fewer than minIters), as OSU
// does, so that a default run at np 2 takes a few seconds.
const (
	defaultIters  = 10000
	defaultWarmup = 1000
	defaultMin    = 8
	defaultMax    = 1 << 20
	defaultStep   = 4
	defaultReps   = 3
	scaleAbove    = 8 << 10
	minIters      = 10
	maxSizeLimit  = 1 << 30
)

// config is everything the flags select.
type config struct {
	minSize, maxSize int
	step             int
	iters, warmup    int
	reps             int
	ops              []string // canonical names, in table order
	imagesT          int      // T spelled out in --ops (gocoll.T2.Broadcast), 0 when not
	csv              string
	yield            bool
	cpuProfile       string
	progress         gsync.ProgressMode // gocoll's progress mode (--progress)
	check            bool               // gocoll's checked mode (--check)
	overlap          bool               // print the overlap table instead (--overlap, overlap.go)
	model            bool               // --model: fit and print the LogGP model after the table (model.go)
	predict          bool               // --predict: print loggp.Default's predictions, no measurement
	plot             string             // --plot: the latency figure's PNG file (plot.go)
	fromCSV          string             // --from-csv: plot this file's rows instead of measuring
	quiet            bool               // --quiet: no status line
	status           io.Writer          // where the status line goes (nil: none); set by realMain
}

// errHelp is returned by parseArgs for --help: usage was printed, exit 0.
var errHelp = flag.ErrHelp

const usageText = `collbench times MPI point-to-point and the native MPI collectives through
gocoll's Go binding (mpiconduit/mpi) and, in the same run, from a C loop calling
the same MPI functions on MPI_COMM_WORLD, and prints an OSU-style latency
table with the Go/C ratio, i.e. the cost of the Go layer.

Run it under mpirun (it also runs as a singleton, np 1, without PingPong):

  go build -o bin/collbench ./cmd/collbench
  mpirun --allow-run-as-root --oversubscribe --bind-to none -np 2 bin/collbench
  mpirun ... -np 4 bin/collbench --ops allreduce,bcast --max-size 64K --csv out.csv

(--allow-run-as-root only as root; --oversubscribe when ranks exceed cores;
--bind-to none lets the Go runtime use every core.) scripts/collbench.sh does
all of this; GOCOLL_NP sets the rank count. Built with -tags mpich it
links MPICH instead of Open MPI: run it under mpirun.mpich -bind-to none
(GOCOLL_MPI=mpich scripts/collbench.sh).

Method (as the OSU micro-benchmarks): for each operation and size, warm-up
iterations, a barrier, a timed loop of back-to-back calls; each rank's
latency is the loop time over the iterations, and rank 0 prints min/avg/max
across ranks. (Without a barrier per iteration, rooted collectives such as
Bcast or Reduce pipeline: at small sizes they show the per-call cost more
than a full latency.) Go and C are each measured --reps times, alternating,
and each keeps its fastest repetition, so that noise from other processes
does not land on one side of the ratio only. Both yield to the Go scheduler
every ~4 ms of a timed loop (see --yield).

PingPong (ranks 0 and 1 only) reports half the round trip; Stream (ranks 0
and 1) the time per message of a stream of them from rank 0 to rank 1, in
windows of 64 nonblocking sends (OSU's osu_bw). --model fits a LogGP model
to both and predicts gocoll's algorithms from it. Reductions use
float64 and MPI_SUM on max(1, size/8) elements (per rank for
ReduceScatterBlock and ReduceScatter); data movement uses bytes, size bytes
per block (per rank for Gather, Scatter, Allgather, Alltoall and their v
forms). Root is rank 0. The rooted collectives' rows (Bcast, Reduce,
Gather, Scatter, Ibcast, Bcast_init, Gatherv, and gocoll's Broadcast,
Scatter, Gather, Reduce with their NB, Seg, NoNo and Agg16 forms) also show
the root's own latency (Go root) and its Go over its C (root Go/C), which
the average over ranks hides: the CSV file has them as go_root_us and
c_root_us, empty in the other rows. Nonblocking operations are started and
waited for in each iteration. The persistent rows (Allreduce_init,
Bcast_init) make their request once per size, in the warm-up, and start it
and wait for it in each iteration. The v rows (Gatherv, Allgatherv,
Alltoallv, ReduceScatter) pass equal counts and contiguous displacements,
so that they compare with the plain rows. NeighborAlltoall exchanges size
bytes with each of the two neighbours on a periodic ring of all ranks (a
1-D Cartesian grid, made once).
Buffers are allocated once and shared by the Go and the C loops. allocs/op
is Go heap allocations per iteration on the worst rank.

The gocoll.* rows run gocoll's collectives, one image per process, against
the native collective. The gocoll.Plan.* rows start a plan (coll.Plan, made
in the warm-up) against the native persistent collective (MPI_Start and
MPI_Wait of MPI_Bcast_init or MPI_Allreduce_init); gocoll.GatherV,
gocoll.GatherAllV and gocoll.ExchangeV have equal counts, against
MPI_Gatherv, MPI_Allgatherv and MPI_Alltoallv; gocoll.ReduceScatter is
ReduceScatterOf of size bytes of float64 per rank, against
MPI_Reduce_scatter; gocoll.NeighborExchange exchanges size bytes with each
neighbour on the same ring as NeighborAlltoall (an images.Grid), against
MPI_Neighbor_alltoall. The gocoll.Tnp.* rows put T = np images (goroutines)
on ONE process against those rows' one image on each of np processes, the
same number of images: rank 0 runs them alone, on a conduit over
MPI_COMM_SELF, while the other ranks sleep, so their Go min/avg/max are rank
0's. In Broadcast and ReduceAll every image calls for itself (AllThreads);
in BroadcastM and ReduceAllM one goroutine calls for the T images. Their C
side is MPI_Bcast or MPI_Allreduce over the np ranks, as in gocoll.Broadcast
and gocoll.ReduceAll. They print with T spelled out (gocoll.T2.Broadcast at
np 2; --ops takes either name) and are skipped at np 1. A last table,
"images per node", divides each one's Go avg by that of gocoll.Broadcast or
gocoll.ReduceAll at the same size, and (per native) the two rows' Go/C: both
C columns time the same native call, so that figure cancels a change of the
machine's speed between the two rows. The CSV file gets the table as rows
named A/B, with row A's Go figures in the go_* columns and row B's in the
c_* columns.

--plot FILE.png draws the gocoll.* rows when the table is done (rank 0):
FILE.png, each collective's average latency by size on log-log axes, gocoll
blocking and NB against native MPI blocking and nonblocking, and
FILE-ratios.png, gocoll over MPI with the line at 1; a rooted collective
has a second panel of the root's figures. With --from-csv it
draws an earlier run's --csv file instead, without MPI. While collbench
runs, a status line on stderr names the row being measured and what is
left, when stderr (under mpirun: mpirun's) is a terminal and not --quiet.

Sizes accept a plain byte count or a binary suffix: 8, 512B, 1K, 64KiB, 1M.
Iterations apply up to 8 KiB; above, they scale down with the size (at least
10), and so does the warm-up.

Flags:
`

// parseArgs parses the command line. Usage and errors go to out; the error
// is errHelp after --help.
func parseArgs(args []string, out io.Writer) (config, error) {
	cfg := config{}
	fs := flag.NewFlagSet("collbench", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprint(w, usageText)
		fs.PrintDefaults()
		fmt.Fprintf(w, "\nOperations (--ops, case-insensitive, or \"all\"):\n%s", wrap(strings.Join(opNames(), ", "), "  ", 78))
	}
	minS := fs.String("min-size", strconv.Itoa(defaultMin), "smallest message `size` in bytes (8, 1K, 1M style)")
	maxS := fs.String("max-size", "1M", "largest message `size` in bytes (8, 1K, 1M style)")
	fs.IntVar(&cfg.step, "step", defaultStep, "size `factor` between rows (2: powers of 2); max-size is always measured")
	fs.IntVar(&cfg.iters, "iters", defaultIters, "timed iterations per row for messages up to 8 KiB (scaled down above)")
	fs.IntVar(&cfg.warmup, "warmup", defaultWarmup, "warm-up iterations per row for messages up to 8 KiB (scaled down above)")
	fs.IntVar(&cfg.reps, "reps", defaultReps, "measure Go and C this many `times` each, alternating, and keep each one's fastest\n(per rank); 1 is the plain OSU method")
	opsS := fs.String("ops", "all", "comma-separated `list` of operations to run")
	fs.BoolVar(&cfg.yield, "yield", true, "yield to the Go scheduler every ~4 ms of a timed loop, Go and C alike (false: see the\nGo runtime's sysmon retake its P from a goroutine making back-to-back cgo calls)")
	fs.StringVar(&cfg.csv, "csv", "", "also write the rows as CSV to `file` (rank 0)")
	fs.Func("progress", "gocoll's progress `mode`: polling (default), goroutine or periodic (see package sync)", func(v string) error {
		for _, m := range []gsync.ProgressMode{gsync.Polling, gsync.Goroutine, gsync.Periodic} {
			if strings.EqualFold(v, m.String()) {
				cfg.progress = m
				return nil
			}
		}
		return fmt.Errorf("unknown progress mode %q", v)
	})
	fs.BoolVar(&cfg.check, "check", false, "run gocoll in checked mode (coll.Options.Check: every collective agrees on its arguments first),\nas GOCOLL_CHECK=1 does")
	fs.BoolVar(&cfg.overlap, "overlap", false, "measure how much of gocoll's and native MPI's non-blocking Broadcast and ReduceAll\noverlaps computation (OSU method; gocoll with a progress goroutine and with polling)\ninstead of the latency table")
	fs.BoolVar(&cfg.model, "model", false, "fit a LogGP model (L, o, g, G) to the PingPong and Stream rows and print, after the\ntable, gocoll's measured rows against the model's prediction for this np and the predicted\nlatency of each algorithm for P = 2 .. 4096; without --ops it measures only the rows it needs")
	fs.BoolVar(&cfg.predict, "predict", false, "print loggp.Default (the model gocoll's defaults come from) and its predicted latency\nof each algorithm for P = 2 .. 4096, then exit: no measurement, no MPI")
	fs.StringVar(&cfg.plot, "plot", "", "also draw the gocoll.* rows into `file`.png (latency by size, log-log, gocoll blocking and NB\nagainst native MPI) and file-ratios.png (gocoll over MPI, with the line at 1), on rank 0")
	fs.StringVar(&cfg.fromCSV, "from-csv", "", "with --plot: draw the rows of an earlier run's --csv `file` instead of measuring (no MPI)")
	fs.BoolVar(&cfg.quiet, "quiet", false, "no status line on stderr (it shows only when stderr is a terminal)")
	fs.StringVar(&cfg.cpuProfile, "cpuprofile", "", "write rank 0's Go CPU profile to `file`, every rank's if it contains %r (replaced by the rank)")

	// Errors are reported by the caller, once, with the usage hint.
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	fs.SetOutput(out)
	if errors.Is(err, flag.ErrHelp) {
		fs.Usage()
		return cfg, errHelp
	}
	if err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if cfg.minSize, err = parseSize(*minS); err != nil {
		return cfg, fmt.Errorf("--min-size: %w", err)
	}
	if cfg.maxSize, err = parseSize(*maxS); err != nil {
		return cfg, fmt.Errorf("--max-size: %w", err)
	}
	if cfg.minSize > cfg.maxSize {
		return cfg, fmt.Errorf("--min-size %d is larger than --max-size %d", cfg.minSize, cfg.maxSize)
	}
	if cfg.step < 2 {
		return cfg, fmt.Errorf("--step %d: must be at least 2", cfg.step)
	}
	if cfg.iters < 1 {
		return cfg, fmt.Errorf("--iters %d: must be at least 1", cfg.iters)
	}
	if cfg.reps < 1 {
		return cfg, fmt.Errorf("--reps %d: must be at least 1", cfg.reps)
	}
	if cfg.warmup < 0 {
		return cfg, fmt.Errorf("--warmup %d: must not be negative", cfg.warmup)
	}
	if cfg.plot != "" && !strings.HasSuffix(cfg.plot, ".png") {
		return cfg, fmt.Errorf("--plot %q: the file name must end in .png", cfg.plot)
	}
	if cfg.fromCSV != "" && cfg.plot == "" {
		return cfg, errors.New("--from-csv needs --plot")
	}
	if cfg.model && *opsS == "all" {
		*opsS = strings.Join(modelRows(), ",")
	}
	if cfg.ops, cfg.imagesT, err = parseOps(*opsS); err != nil {
		return cfg, fmt.Errorf("--ops: %w", err)
	}
	return cfg, nil
}

// wrap breaks text at spaces into lines of at most width, each indented.
func wrap(text, indent string, width int) string {
	var b strings.Builder
	line := indent
	for _, w := range strings.Fields(text) {
		if len(line) > len(indent) && len(line)+1+len(w) > width {
			b.WriteString(line + "\n")
			line = indent
		}
		if len(line) > len(indent) {
			line += " "
		}
		line += w
	}
	b.WriteString(line + "\n")
	return b.String()
}

// parseSize reads a byte count: digits with an optional binary suffix K, M
// or G (also KB/KiB...; case-insensitive) or B. It must be 1..1 GiB.
func parseSize(s string) (int, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	mult := 1
	for _, suf := range []struct {
		s string
		m int
	}{{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"GIB", 1 << 30}, {"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30},
		{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1}} {
		if strings.HasSuffix(t, suf.s) {
			t, mult = strings.TrimSuffix(t, suf.s), suf.m
			break
		}
	}
	n, err := strconv.ParseUint(t, 10, 63)
	if err != nil || t == "" {
		return 0, fmt.Errorf("bad size %q: want a byte count like 8, 512, 1K, 64K, 1M", s)
	}
	if n == 0 {
		return 0, fmt.Errorf("bad size %q: must be at least 1 byte", s)
	}
	if n > math.MaxInt64/uint64(mult) || int(n)*mult > maxSizeLimit {
		return 0, fmt.Errorf("bad size %q: at most 1G", s)
	}
	return int(n) * mult, nil
}

// formatSize is the short form of a byte count: 8, 1K, 64K, 1M.
func formatSize(n int) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return strconv.Itoa(n>>30) + "G"
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.Itoa(n>>20) + "M"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.Itoa(n>>10) + "K"
	}
	return strconv.Itoa(n)
}

// sizes lists the message sizes: min, min*step, ... up to max, and max itself.
func (c config) sizes() []int {
	var out []int
	for s := c.minSize; s < c.maxSize; s *= c.step {
		out = append(out, s)
		if s > c.maxSize/c.step {
			break
		}
	}
	return append(out, c.maxSize)
}

// counts are the warm-up and timed iterations at a message size: the flags
// up to scaleAbove, scaled down in proportion above it.
func (c config) counts(size int) (warmup, iters int) {
	if size <= scaleAbove {
		return c.warmup, c.iters
	}
	scale := func(n, floor int) int {
		v := int(int64(n) * scaleAbove / int64(size))
		return max(v, min(n, floor))
	}
	return scale(c.warmup, 2), scale(c.iters, minIters)
}

// parseOps turns the --ops list into canonical names in table order. The
// images-per-node rows may be named as printed, with T spelled out
// (gocoll.T2.Broadcast for gocoll.Tnp.Broadcast); t is that T, 0 when none
// is.
func parseOps(s string) (ops []string, t int, err error) {
	names := opNames()
	want := map[string]bool{}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if strings.EqualFold(f, "all") {
			return names, 0, nil
		}
		name := f
		if alias, ft, ok := imagesAlias(f); ok {
			if t != 0 && ft != t {
				return nil, 0, fmt.Errorf("%q asks for T = %d, an earlier name for T = %d", f, ft, t)
			}
			name, t = alias, ft
		}
		found := false
		for _, n := range names {
			if strings.EqualFold(name, n) || strings.EqualFold(strings.ReplaceAll(name, "_", ""), n) {
				want[n], found = true, true
			}
		}
		if !found {
			return nil, 0, fmt.Errorf("unknown operation %q (known: %s)", f, strings.Join(names, ", "))
		}
	}
	if len(want) == 0 {
		return nil, 0, errors.New("no operation selected")
	}
	for _, n := range names {
		if want[n] {
			ops = append(ops, n)
		}
	}
	return ops, t, nil
}

// launcherRank is this process's rank as the launcher tells it before MPI
// is initialized (0 when not launched by mpirun), so that flag errors are
// printed once.
func launcherRank() int {
	for _, v := range []string{"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"} {
		if r, err := strconv.Atoi(os.Getenv(v)); err == nil {
			return r
		}
	}
	return 0
}
