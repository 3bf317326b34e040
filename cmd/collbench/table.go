package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"

	"github.com/gocoll/gocoll/cmd/internal/benchcsv"
)

// row is one line of the result: latencies in microseconds across ranks.
type row struct {
	op                  string
	size                int  // bytes (per block for the data movement collectives)
	sized               bool // false: size-less operation, size not shown
	ranks               int
	iters, warmup       int
	goAvg, goMin, goMax float64
	cAvg, cMin, cMax    float64
	allocs              float64 // Go heap allocations per iteration, worst rank
	// rooted: a rooted collective's row, whose goRoot and cRoot are the
	// root's (rank 0's) own latencies, Go and C
	rooted        bool
	goRoot, cRoot float64
	// perNative, in an images-per-node ratio row only: the two rows' Go/C
	// ratios divided, each row's gocoll figure taken against the native
	// collective timed beside it (0 when either has no C figure)
	perNative float64
}

// ratio is Go avg over C avg (0 when C took no measurable time).
func (r row) ratio() float64 {
	if r.cAvg <= 0 {
		return 0
	}
	return r.goAvg / r.cAvg
}

// rootRatio is the root's Go over its C (0 when C took no measurable time).
func (r row) rootRatio() float64 {
	if r.cRoot <= 0 {
		return 0
	}
	return r.goRoot / r.cRoot
}

type headerInfo struct {
	ranks      int
	library    string
	thread     string
	gomaxprocs int
	cfg        config
}

// table writes the OSU-style text table and, optionally, the CSV rows.
type table struct {
	out io.Writer
	csv *csv.Writer
	err error
}

func newTable(out, csvOut io.Writer) *table {
	t := &table{out: out}
	if csvOut != nil {
		t.csv = csv.NewWriter(csvOut)
		t.err = t.csv.Write(benchcsv.Header)
	}
	return t
}

// The operation column fits gocoll.T2.ReduceAllM. The root's columns come
// last, so that the columns before them stay where scripts find them.
const rowFormat = "%-20s %9s %10s %10s %10s %10s %7s %9s %10s %9s\n"

func (t *table) printf(format string, args ...any) {
	if t.err == nil {
		_, t.err = fmt.Fprintf(t.out, format, args...)
	}
}

func (t *table) header(h headerInfo) {
	t.printf("# gocoll collbench: MPI through mpiconduit/mpi (Go) vs the same calls from C, one run\n")
	t.printf("# %s, np %d, %s, GOMAXPROCS %d\n", h.library, h.ranks, h.thread, h.gomaxprocs)
	t.printf("# iterations %d, warm-up %d (scaled down above %s, at least %d); latency in us;\n",
		h.cfg.iters, h.cfg.warmup, formatSize(scaleAbove), min(h.cfg.iters, minIters))
	t.printf("# best of %d repetitions (Go and C alternating) of warm-up, barrier, timed loop;\n", max(1, h.cfg.reps))
	t.printf("# avg/min/max across ranks of each rank's average; Go/C = Go avg / C avg;\n")
	t.printf("# rooted collectives (root: rank 0): Go root = the root's Go, root Go/C = the root's Go / its C\n")
	t.printf(rowFormat, "# Operation", "Size(B)", "Go avg", "Go min", "Go max", "C avg", "Go/C", "allocs/op", "Go root", "root Go/C")
}

func (t *table) note(s string) {
	t.printf("# %s\n", s)
}

func us(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

func (t *table) row(r row) error {
	size := "-"
	if r.sized {
		size = strconv.Itoa(r.size)
	}
	goRoot, rootRatio := "-", "-"
	if r.rooted {
		goRoot, rootRatio = us(r.goRoot), strconv.FormatFloat(r.rootRatio(), 'f', 2, 64)
	}
	t.printf(rowFormat, r.op, size, us(r.goAvg), us(r.goMin), us(r.goMax), us(r.cAvg),
		strconv.FormatFloat(r.ratio(), 'f', 2, 64), strconv.FormatFloat(r.allocs, 'f', 2, 64), goRoot, rootRatio)
	t.csvRow(r)
	return t.err
}

// csvRow writes r to the CSV file, if any.
func (t *table) csvRow(r row) {
	if t.csv == nil || t.err != nil {
		return
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
	goRoot, cRoot := "", "" // no root: empty, not a latency of 0
	if r.rooted {
		goRoot, cRoot = f(r.goRoot), f(r.cRoot)
	}
	t.err = t.csv.Write([]string{
		r.op, strconv.Itoa(r.size), strconv.Itoa(r.ranks), strconv.Itoa(r.iters), strconv.Itoa(r.warmup),
		f(r.goAvg), f(r.goMin), f(r.goMax), f(r.cAvg), f(r.cMin), f(r.cMax),
		f(r.ratio()), f(r.allocs), goRoot, cRoot,
	})
}

// imagesNote heads the images-per-node rows in the main table: their Go
// figures are not across ranks.
func (t *table) imagesNote(np int) {
	t.note(fmt.Sprintf("%s* rows: T = np = %d images on ONE process (rank 0, conduit over MPI_COMM_SELF) while the",
		imagesLabel(imagesPrefix, np), np))
	t.note(fmt.Sprintf("other ranks sleep: Go avg/min/max are rank 0's alone; C is native MPI over %d ranks, avg across ranks", np))
}

const ratioFormat = "%-38s %9s %10s %10s %7s %10s\n"

// imagesTable ends the output with the images-per-node ratios (rows made
// by imagesRatios), when there are any; they go to the CSV file too, after
// the main rows, named A/B, with row A's Go figures in the go columns and
// row B's in the c columns.
func (t *table) imagesTable(rs []row, np int) {
	if len(rs) == 0 {
		return
	}
	t.printf("#\n# images per node, T = np = %d: gocoll with T images on one process (rank 0) over gocoll with\n", np)
	t.printf("# one image on each of %d processes; ratio = Go avg / Go avg of the two rows, same run (< 1: one process is faster);\n", np)
	t.printf("# per native = the two rows' Go/C divided: each row against the same native collective timed beside it,\n")
	t.printf("# which cancels a change of the machine's speed between the rows (BENCHMARKS.md, \"Two machine states\")\n")
	t.printf(ratioFormat, "# Rows", "Size(B)", "T images", "1 image", "ratio", "per native")
	for _, r := range rs {
		t.printf(ratioFormat, r.op, strconv.Itoa(r.size), us(r.goAvg), us(r.cAvg), strconv.FormatFloat(r.ratio(), 'f', 2, 64),
			strconv.FormatFloat(r.perNative, 'f', 2, 64))
		t.csvRow(r)
	}
}

// flush ends the table and writes out buffered CSV rows.
func (t *table) flush() error {
	if t.csv != nil {
		t.csv.Flush()
		if t.err == nil {
			t.err = t.csv.Error()
		}
	}
	return t.err
}
