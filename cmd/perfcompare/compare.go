package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gocoll/gocoll/cmd/internal/benchcsv"
)

// key names a collbench row: its operation and message size.
type key struct {
	op   string
	size int
}

// row is what perfcompare needs of a collbench CSV row.
type row struct {
	goAvg, cAvg, allocs float64
	goRoot, cRoot       float64 // 0: no root figures (an older file, or no root)
}

// run is one collbench CSV file: its rows, and their keys in file order.
type run struct {
	order []key
	rows  map[key]row
}

// readRun reads a collbench CSV file.
func readRun(r io.Reader) (run, error) {
	recs, err := benchcsv.Read(r)
	if err != nil {
		return run{}, err
	}
	out := run{rows: map[key]row{}}
	for _, c := range recs {
		k := key{c.Op, c.Size}
		out.rows[k] = row{goAvg: c.GoAvg, cAvg: c.CAvg, allocs: c.Allocs, goRoot: c.GoRoot, cRoot: c.CRoot}
		out.order = append(out.order, k)
	}
	return out, nil
}

// point is one round's figures of a line on one side: v, the figure
// compared between the builds, and native, the same against the native MPI
// collective timed beside it in the same run.
type point struct{ v, native float64 }

// A measure takes a line's point out of a run: ok is false when the run
// lacks the row or a figure.
type measure func(r run, k key) (p point, ok bool)

// ratio is a / b, or not ok when either is not positive.
func ratio(a, b float64) (float64, bool) {
	if a <= 0 || b <= 0 {
		return 0, false
	}
	return a / b, true
}

// avg is a gocoll row's average over ranks, against the native collective.
func avg(r run, k key) (point, bool) {
	x := r.rows[k]
	n, ok := ratio(x.goAvg, x.cAvg)
	return point{x.goAvg, n}, ok
}

// root is a rooted gocoll row's root figures, against the native
// collective's root.
func root(r run, k key) (point, bool) {
	x := r.rows[k]
	n, ok := ratio(x.goRoot, x.cRoot)
	return point{x.goRoot, n}, ok
}

// images is an images-per-node ratio row A/B (collbench writes row A's Go
// average in its go column and row B's in its c column): the ratio A/B,
// and its "per native" (collbench's column of that name), the two rows'
// own Go/C divided, which cancels a change of the machine's speed between
// the two rows.
func images(r run, k key) (point, bool) {
	a, b, _ := strings.Cut(k.op, "/")
	x, y := r.rows[key{a, k.size}], r.rows[key{b, k.size}]
	v, ok1 := ratio(x.goAvg, y.goAvg)
	ra, ok2 := ratio(x.goAvg, x.cAvg)
	rb, ok3 := ratio(y.goAvg, y.cAvg)
	n, ok4 := ratio(ra, rb)
	return point{v, n}, ok1 && ok2 && ok3 && ok4
}

// kind is a kind of line: its suffix to the row's name, and its measure.
type kind struct {
	suffix string
	m      measure
}

// line is one line of the comparison: one measure of one row at one size,
// over the rounds in which both builds have it, paired by round.
type line struct {
	name                   string
	size                   int
	images                 bool // an images-per-node ratio line (the second table)
	base, head             []point
	baseAllocs, headAllocs []float64 // a row's average line only
}

// lines builds the comparison's lines in the order of base's first file:
// every gocoll.* row, followed by its root when it has one, and the
// images-per-node ratio rows. missing are the rows that one build lacks.
func lines(base, head []run) (ls []line, missing []string) {
	seen := map[key]bool{}
	var order []key
	for _, rs := range [][]run{base, head} {
		for _, r := range rs {
			for _, k := range r.order {
				if !seen[k] && strings.HasPrefix(k.op, "gocoll.") {
					seen[k] = true
					order = append(order, k)
				}
			}
		}
	}
	for _, k := range order {
		isImages := strings.Contains(k.op, "/")
		kinds := []kind{{"", avg}, {":root", root}}
		if isImages {
			kinds = []kind{{"", images}}
		}
		for i, kind := range kinds {
			l := line{name: k.op + kind.suffix, size: k.size, images: isImages}
			for round := range min(len(base), len(head)) {
				b, okb := kind.m(base[round], k)
				h, okh := kind.m(head[round], k)
				if !okb || !okh {
					continue
				}
				l.base, l.head = append(l.base, b), append(l.head, h)
				if i == 0 && !isImages {
					l.baseAllocs = append(l.baseAllocs, base[round].rows[k].allocs)
					l.headAllocs = append(l.headAllocs, head[round].rows[k].allocs)
				}
			}
			switch {
			case len(l.base) > 0:
				ls = append(ls, l)
			case i == 0: // a root line is simply absent in a row without a root
				missing = append(missing, fmt.Sprintf("%s %d", k.op, k.size))
			}
		}
	}
	return ls, missing
}

// summary is a median over rounds with its spread, the least and the
// greatest value.
type summary struct{ med, lo, hi float64 }

// summarize is the summary of xs (not empty).
func summarize(xs []float64) summary {
	s := slices.Sorted(slices.Values(xs))
	n := len(s)
	med := s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	return summary{med, s[0], s[n-1]}
}

func (s summary) String() string {
	return fmt.Sprintf("%.2f (%.2f..%.2f)", s.med, s.lo, s.hi)
}

// newOld is head over base of f's figure in each round.
func (l line) newOld(f func(point) float64) []float64 {
	out := make([]float64, len(l.base))
	for i := range l.base {
		out[i] = f(l.head[i]) / f(l.base[i])
	}
	return out
}

// values is f's figure of each round of one side.
func values(ps []point, f func(point) float64) []float64 {
	out := make([]float64, len(ps))
	for i, p := range ps {
		out[i] = f(p)
	}
	return out
}

func pv(p point) float64      { return p.v }
func pnative(p point) float64 { return p.native }

// defaultThreshold is the least change flagged: 5%. Two comparisons of
// identical builds in six alternated rounds of the full table flagged
// nothing, and one row at one size of 270 (with a "?"), while a 10% slowdown
// of every row was flagged in two thirds of the rows of 32 KiB and more
// (scripts/perf-compare.sh's header says more).
const defaultThreshold = 0.05

// overlapShare is the share of the pairs (a round of head, a round of
// base) that may go against a verdict before it gets a "?". Some rows are
// bimodal from run to run (gocoll.GatherAll at 1 MiB takes 98 or 120 us,
// a third of the runs the former), and when one build drew the fast mode
// in three rounds of six and the other in none, all three figures of
// verdict moved; the rounds of the two builds still interleave, which a
// real change of 5% on a stable row does not do. At six rounds the share
// allows 5 pairs of 36, the one-sided Mann-Whitney test at 2%.
const overlapShare = 0.15

// verdict is the flag rule. A latency line (a row's average, or its root)
// is "slower" when all three of these say head is slower by the threshold t
// or more, "faster" when all three say it is faster by as much (1/(1+t)):
//
//   - the median over rounds of new/old, head over base in the same round:
//     the pair ran back to back, so a spell of the machine longer than a
//     pair cancels;
//   - the median over rounds of new/old of the Go/C ratios, which cancels a
//     machine state that slows the native collective timed beside the row
//     as much as gocoll's;
//   - the fastest rounds: for "slower", head's fastest round over base's
//     second fastest, for "faster" head's second fastest over base's
//     fastest. The machine's slow state only ever adds time, so a side's
//     fastest rounds are its figures least touched by it; taking the other
//     side's second fastest asks the change to exceed the spread of the
//     fast rounds too.
//
// Each alone flags noise: a slow state that caught one build in four
// rounds of six moves the first median by 40% at small sizes; the state
// hits gocoll and the native collective unequally (the second); the
// fastest rounds of two sides differ by a few percent by chance (the
// third). A real change moves all three.
//
// A latency verdict whose rounds overlap (overlaps) gets a "?": "slower?"
// says the medians moved but the rounds of the builds interleave, as those
// of a bimodal row do; more rounds tell.
//
// An images-per-node ratio line (A/B) is a ratio of two rows that flip
// between states independently, so that its fastest round means nothing:
// it is flagged only when new/old moved by t in every round, and the
// median new/old of per native with it. (Rows A and B have latency lines
// of their own.)
func (l line) verdict(t float64) string {
	newOld, native := summarize(l.newOld(pv)), summarize(l.newOld(pnative)).med
	up, down := []float64{newOld.lo, native}, []float64{newOld.hi, native}
	if !l.images {
		b, h := sortedValues(l.base), sortedValues(l.head)
		second := func(s []float64) float64 { return s[min(1, len(s)-1)] }
		up = []float64{newOld.med, native, h[0] / second(b)}
		down = []float64{newOld.med, native, second(h) / b[0]}
	}
	v := ""
	switch {
	case slices.Min(up) >= 1+t:
		v = "slower"
	case slices.Max(down) <= 1/(1+t):
		v = "faster"
	}
	if v != "" && !l.images && l.overlaps(v == "slower") {
		v += "?"
	}
	return v
}

// overlaps reports whether more than overlapShare of the pairs (a round of
// head, a round of base) go against head being slower (or faster).
func (l line) overlaps(slower bool) bool {
	against := 0
	for _, h := range l.head {
		for _, b := range l.base {
			if slower && h.v < b.v || !slower && h.v > b.v {
				against++
			}
		}
	}
	return float64(against) > overlapShare*float64(len(l.head)*len(l.base))
}

// sortedValues is the figure compared of each round of one side, sorted.
func sortedValues(ps []point) []float64 { return slices.Sorted(slices.Values(values(ps, pv))) }

// allocsStep is the least change of the median allocations per operation
// flagged: half an allocation. A stray allocation of the runtime counts
// 0.1 per operation in a row of ten iterations; a real one counts 1.
const allocsStep = 0.5

// allocs flags a change of the allocations per operation: "allocs
// OLD->NEW" of the medians over rounds, or "".
func (l line) allocs() string {
	if len(l.baseAllocs) == 0 {
		return ""
	}
	b, h := summarize(l.baseAllocs).med, summarize(l.headAllocs).med
	if math.Abs(h-b) < allocsStep {
		return ""
	}
	return fmt.Sprintf("allocs %.2f->%.2f", b, h)
}

// Formats of the two tables: the operation column fits
// gocoll.Agg16.Broadcast:root, and in the second table
// gocoll.T2.BroadcastM/gocoll.Broadcast.
const (
	mainFormat   = "%-28s %8s %9s %9s  %-20s %-20s %-20s %s\n"
	imagesFormat = "%-40s %8s %9s %9s  %-20s %-20s %-20s %s\n"
)

// report writes the comparison of the rounds of base and head.
func report(w io.Writer, base, head []run, t float64) error {
	ls, missing := lines(base, head)
	var err error
	printf := func(format string, args ...any) {
		if err == nil {
			_, err = fmt.Fprintf(w, format, args...)
		}
	}
	printf("# %d rounds of base and head; new/old = head / base in the same round; Go/C = against the native MPI\n", min(len(base), len(head)))
	printf("# collective timed beside it; median (least..greatest) over the rounds; \"op:root\" = the root's (rank 0's) figures.\n")
	printf("# flag: slower/faster when the median new/old, the median new/old of Go/C and the fastest rounds (one side's\n")
	printf("# fastest against the other's second fastest) all moved by %.0f%% or more the same way; images ratio rows: new/old\n", 100*t)
	printf("# in every round and the median per native; \"?\": yet more than %.0f%% of the pairs (a round of head, a round of\n", 100*overlapShare)
	printf("# base) go the other way; allocs: the median allocations per operation changed by %.1f or more\n", allocsStep)
	var slower, faster, unsure, allocs int
	table := func(images bool, format string, heads ...any) {
		printf(format, heads...)
		for _, l := range ls {
			if l.images != images {
				continue
			}
			flags := []string{l.verdict(t), l.allocs()}
			switch strings.TrimSuffix(flags[0], "?") {
			case "slower":
				slower++
			case "faster":
				faster++
			}
			if strings.HasSuffix(flags[0], "?") {
				unsure++
			}
			if flags[1] != "" {
				allocs++
			}
			printf(format, l.name, strconv.Itoa(l.size),
				fmt.Sprintf("%.2f", summarize(values(l.base, pv)).med), fmt.Sprintf("%.2f", summarize(values(l.head, pv)).med),
				summarize(l.newOld(pv)), summarize(values(l.base, pnative)), summarize(values(l.head, pnative)),
				strings.TrimSpace(strings.Join(flags, " ")))
		}
	}
	table(false, mainFormat, "# op", "size", "old us", "new us", "new/old", "old Go/C", "new Go/C", "flag")
	if slices.ContainsFunc(ls, func(l line) bool { return l.images }) {
		printf("#\n# images per node: ratio = T images on one process over one image per process (collbench's second table);\n")
		printf("# per native = the two rows' Go/C divided\n")
		table(true, imagesFormat, "# rows", "size", "old ratio", "new ratio", "new/old", "old per native", "new per native", "flag")
	}
	if len(missing) > 0 {
		printf("# in one build only: %s\n", strings.Join(missing, ", "))
	}
	printf("# %d lines: %d slower, %d faster (%d of these with \"?\"), %d with other allocations\n", len(ls), slower, faster, unsure, allocs)
	return err
}
