package main

// The tables of BENCHMARKS.md (scripts/benchmarks.sh renders them with
// -markdown and draws its figures from the files -median writes): collbench
// CSV files of one build, a group of rounds per configuration, summarized
// as markdown. Every figure is a median over the group's rounds, and with
// -spread also its least and greatest.

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strconv"
	"strings"
)

// group is the rounds of one configuration (a rank count, a progress mode):
// its label, a column's head in the modes table, and its runs.
type group struct {
	label string
	runs  []run
}

// mdConfig is what -markdown draws.
type mdConfig struct {
	kind   string   // the table (mdKinds)
	ops    []string // patterns of the rows drawn (path.Match); nil: the kind's default
	sizes  sizeSet  // the sizes drawn; empty: every size
	limit  float64  // check: the greatest median ratio that meets the aim
	spread bool     // ratio cells with (least..greatest) when there are rounds
	roots  bool     // a rooted row's root line after it
}

// mdKinds are the tables -markdown draws, with the rows they draw when
// -ops does not say.
var mdKinds = map[string][]string{
	// one line per gocoll collective of one image per process, a cell per
	// size with its blocking and NB ratio, with -roots "X, root" lines
	"collectives": {"gocoll.*"},
	// one line per row, a cell per size with the median ratio: Go/C, or the
	// images-per-node ratio of an A/B row
	"ratios": {"gocoll.*"},
	// one line per row, a cell per size with the median gocoll and native µs
	"latency": {"gocoll.*"},
	// one line per row and size, a column per group with its median µs and
	// its median Go/C
	"modes": {"gocoll.*"},
	// one sentence: whether every row's median ratio at the sizes drawn is
	// at most -limit, and which are not
	"check": {"gocoll.*"},
}

// sizeSet is a list of sizes and ranges of them ("8,64K-" is 8 bytes and
// every size from 64 KiB up).
type sizeSet []struct{ lo, hi int }

func (s sizeSet) has(n int) bool {
	if len(s) == 0 {
		return true
	}
	for _, r := range s {
		if n >= r.lo && n <= r.hi {
			return true
		}
	}
	return false
}

// parseSizes reads a sizeSet: comma-separated sizes N, ranges N-M and
// open ranges N-, each a byte count with an optional K, M or G (binary).
func parseSizes(s string) (sizeSet, error) {
	var out sizeSet
	for f := range strings.SplitSeq(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		a, b, isRange := strings.Cut(f, "-")
		lo, err := parseSize(a)
		if err != nil {
			return nil, err
		}
		hi := lo
		switch {
		case isRange && b == "":
			hi = int(^uint(0) >> 1)
		case isRange:
			if hi, err = parseSize(b); err != nil {
				return nil, err
			}
		}
		if hi < lo {
			return nil, fmt.Errorf("size range %q: the end is below the start", f)
		}
		out = append(out, struct{ lo, hi int }{lo, hi})
	}
	return out, nil
}

// parseSize reads a byte count with an optional binary suffix K, M or G.
func parseSize(s string) (int, error) {
	t, mult := strings.ToUpper(strings.TrimSpace(s)), 1
	for _, suf := range []struct {
		s string
		m int
	}{{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}} {
		if v, ok := strings.CutSuffix(t, suf.s); ok {
			t, mult = v, suf.m
			break
		}
	}
	n, err := strconv.Atoi(t)
	if err != nil || n < 0 || n > 1<<30 {
		return 0, fmt.Errorf("bad size %q: want a byte count like 8, 64K, 1M", s)
	}
	return n * mult, nil
}

// sizeName is a size as the tables head their columns: 8 B, 2 KiB, 1 MiB.
func sizeName(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.Itoa(n>>20) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.Itoa(n>>10) + " KiB"
	}
	return strconv.Itoa(n) + " B"
}

// parseGroup reads a group from the command line: "file.csv,file.csv" or
// "label=file.csv,file.csv", one file per round.
func parseGroup(arg string) (group, error) {
	label, files, ok := strings.Cut(arg, "=")
	if !ok {
		label, files = "", arg
	}
	runs, err := readRuns(strings.Split(files, ","))
	return group{label: label, runs: runs}, err
}

// selected are the rows of the runs that match pats, in the order of the
// first run that has them, and the sizes they come in, ascending, of those
// that sizes lets through. A row without a size (Barrier) is left out.
func selected(runs []run, pats []string, sizes sizeSet) (ops []string, szs []int) {
	seenOp, seenSize := map[string]bool{}, map[int]bool{}
	for _, r := range runs {
		for _, k := range r.order {
			if k.size <= 0 || !sizes.has(k.size) || !matchAny(pats, k.op) {
				continue
			}
			if !seenOp[k.op] {
				seenOp[k.op] = true
				ops = append(ops, k.op)
			}
			if !seenSize[k.size] {
				seenSize[k.size] = true
				szs = append(szs, k.size)
			}
		}
	}
	slices.Sort(szs)
	return ops, szs
}

// matchAny reports whether op matches one of pats (path.Match: * stops at
// a /, so gocoll.* does not take the images ratio rows gocoll.T2.X/gocoll.Y).
func matchAny(pats []string, op string) bool {
	for _, p := range pats {
		if ok, _ := path.Match(p, op); ok {
			return true
		}
	}
	return false
}

// ratioOf is the ratio a row's line shows: an images ratio row's T images
// over one image, any other row's Go/C, or at the root its root's.
func ratioOf(r run, k key, atRoot bool) (float64, bool) {
	switch {
	case strings.Contains(k.op, "/"):
		p, ok := images(r, k)
		return p.v, ok
	case atRoot:
		x := r.rows[k]
		return ratio(x.goRoot, x.cRoot)
	}
	x := r.rows[k]
	return ratio(x.goAvg, x.cAvg)
}

// over is f's value in each run where it has one.
func over(runs []run, f func(run) (float64, bool)) []float64 {
	var out []float64
	for _, r := range runs {
		if v, ok := f(r); ok {
			out = append(out, v)
		}
	}
	return out
}

// ratios is the ratio of a row's line at a size over the rounds.
func ratios(runs []run, k key, atRoot bool) []float64 {
	return over(runs, func(r run) (float64, bool) { return ratioOf(r, k, atRoot) })
}

// rooted reports whether the row has root figures in some run.
func rooted(runs []run, op string) bool {
	for _, r := range runs {
		for k, x := range r.rows {
			if k.op == op && x.goRoot > 0 {
				return true
			}
		}
	}
	return false
}

// cell is a summary as a table shows it: the median, and its spread when
// asked for and there is one.
func cell(xs []float64, spread bool) string {
	if len(xs) == 0 {
		return "–"
	}
	s := summarize(xs)
	if spread && len(xs) > 1 {
		return s.String()
	}
	return fmt.Sprintf("%.2f", s.med)
}

// mdTable writes a markdown table.
type mdTable struct {
	w   io.Writer
	err error
}

func (t *mdTable) line(cells ...string) {
	if t.err == nil {
		_, t.err = fmt.Fprintf(t.w, "| %s |\n", strings.Join(cells, " | "))
	}
}

// head writes the head row and the alignment row: the first column left,
// the others right.
func (t *mdTable) head(cells ...string) {
	t.line(cells...)
	align := []string{"---"}
	for range cells[1:] {
		align = append(align, "---:")
	}
	t.line(align...)
}

// markdown writes cfg's table of the groups (all but modes draw the first).
func markdown(w io.Writer, cfg mdConfig, groups []group) error {
	pats, ok := mdKinds[cfg.kind]
	if !ok {
		return fmt.Errorf("unknown table %q (want collectives, ratios, latency, modes or check)", cfg.kind)
	}
	if len(groups) == 0 || len(groups[0].runs) == 0 {
		return errors.New("no CSV files")
	}
	if cfg.ops != nil {
		pats = cfg.ops
	}
	runs := groups[0].runs
	ops, szs := selected(runs, pats, cfg.sizes)
	if len(ops) == 0 {
		return fmt.Errorf("no rows match %s at the sizes asked for", strings.Join(pats, ","))
	}
	t := &mdTable{w: w}
	heads := []string{""}
	for _, s := range szs {
		heads = append(heads, sizeName(s))
	}
	switch cfg.kind {
	case "collectives":
		collectivesTable(t, runs, ops, szs, heads, cfg)
	case "ratios":
		heads[0] = "gocoll / MPI"
		if !slices.ContainsFunc(ops, func(op string) bool { return !strings.Contains(op, "/") }) {
			heads[0] = "T images / 1 image per process"
		}
		t.head(heads...)
		for _, op := range ops {
			for _, atRoot := range rootLines(runs, op, cfg.roots) {
				cells := []string{lineName(op, atRoot)}
				for _, s := range szs {
					cells = append(cells, cell(ratios(runs, key{op, s}, atRoot), cfg.spread))
				}
				t.line(cells...)
			}
		}
	case "latency":
		heads[0] = "µs: gocoll / MPI"
		t.head(heads...)
		for _, op := range ops {
			cells := []string{op}
			for _, s := range szs {
				k := key{op, s}
				g := over(runs, func(r run) (float64, bool) { x, ok := r.rows[k]; return x.goAvg, ok && x.goAvg > 0 })
				c := over(runs, func(r run) (float64, bool) { x, ok := r.rows[k]; return x.cAvg, ok && x.cAvg > 0 })
				cells = append(cells, latencyCell(g, c))
			}
			t.line(cells...)
		}
	case "modes":
		modesTable(t, groups, ops, szs)
	case "check":
		t.err = check(w, runs, ops, szs, cfg)
	}
	return t.err
}

// rootLines are the lines of a row: its average, and its root when asked
// for and it has one.
func rootLines(runs []run, op string, roots bool) []bool {
	if roots && rooted(runs, op) {
		return []bool{false, true}
	}
	return []bool{false}
}

func lineName(op string, atRoot bool) string {
	if atRoot {
		return op + ", root"
	}
	return op
}

// collectivesTable draws one line per collective of one image per process
// (gocoll.X and gocoll.XNB, X without a dot), each cell "blocking / NB",
// and with roots after a rooted one a line of its root's figures.
func collectivesTable(t *mdTable, runs []run, ops []string, szs []int, heads []string, cfg mdConfig) {
	var names []string
	for _, op := range ops {
		name, ok := strings.CutPrefix(op, "gocoll.")
		if !ok || strings.ContainsAny(name, "./") {
			continue
		}
		name = strings.TrimSuffix(name, "NB")
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	heads[0] = "gocoll / MPI: blocking / NB"
	t.head(heads...)
	for _, name := range names {
		b, nb := "gocoll."+name, "gocoll."+name+"NB"
		for _, atRoot := range rootLines(runs, b, cfg.roots) {
			cells := []string{lineName(name, atRoot)}
			for _, s := range szs {
				x, y := ratios(runs, key{b, s}, atRoot), ratios(runs, key{nb, s}, atRoot)
				switch {
				case len(y) == 0:
					cells = append(cells, cell(x, cfg.spread))
				default:
					cells = append(cells, cell(x, cfg.spread)+" / "+cell(y, cfg.spread))
				}
			}
			t.line(cells...)
		}
	}
}

// latencyCell is "gocoll / MPI" in µs, each a median.
func latencyCell(g, c []float64) string {
	if len(g) == 0 || len(c) == 0 {
		return "–"
	}
	return us(summarize(g).med) + " / " + us(summarize(c).med)
}

// us prints a latency with three significant digits, at least two decimals
// below 10 µs.
func us(v float64) string {
	switch {
	case v < 10:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case v < 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

// modesTable draws one line per row and size, a column per group with the
// medians of the row's Go average over the group's rounds and of its Go/C
// (against the native collective timed beside it, which cancels much of a
// change of the machine's state between the groups' runs).
func modesTable(t *mdTable, groups []group, ops []string, szs []int) {
	heads := []string{"µs (gocoll / MPI)"}
	for i, g := range groups {
		label := g.label
		if label == "" {
			label = "group " + strconv.Itoa(i+1)
		}
		heads = append(heads, label)
	}
	t.head(heads...)
	for _, op := range ops {
		for _, s := range szs {
			k := key{op, s}
			cells := []string{op + ", " + sizeName(s)}
			for _, g := range groups {
				xs := over(g.runs, func(r run) (float64, bool) { x, ok := r.rows[k]; return x.goAvg, ok && x.goAvg > 0 })
				if len(xs) == 0 {
					cells = append(cells, "–")
					continue
				}
				cells = append(cells, fmt.Sprintf("%s (%s)", us(summarize(xs).med), cell(ratios(g.runs, k, false), false)))
			}
			t.line(cells...)
		}
	}
}

// maxListed is how many figures above the limit check names.
const maxListed = 6

// check writes one sentence: whether the median ratio of every row (and
// with roots, of their roots) at every size drawn is at most the limit,
// and if not, which figures are above it, the greatest first.
func check(w io.Writer, runs []run, ops []string, szs []int, cfg mdConfig) error {
	type fig struct {
		name string
		size int
		xs   []float64
	}
	var all, above []fig
	for _, op := range ops {
		for _, atRoot := range rootLines(runs, op, cfg.roots) {
			for _, s := range szs {
				if xs := ratios(runs, key{op, s}, atRoot); len(xs) > 0 {
					f := fig{lineName(op, atRoot), s, xs}
					all = append(all, f)
					if summarize(xs).med > cfg.limit {
						above = append(above, f)
					}
				}
			}
		}
	}
	if len(all) == 0 {
		return errors.New("check: no figures")
	}
	desc := func(f fig) string { // gocoll.X at 8 B: X's figure, short
		return fmt.Sprintf("%s at %s %s", strings.ReplaceAll(f.name, "gocoll.", ""), sizeName(f.size), cell(f.xs, true))
	}
	byMedian := func(a, b fig) int { return -cmpFloat(summarize(a.xs).med, summarize(b.xs).med) }
	limit := strconv.FormatFloat(cfg.limit, 'f', -1, 64)
	var err error
	if len(above) == 0 {
		worst := slices.MinFunc(all, byMedian)
		_, err = fmt.Fprintf(w, "**met**: all %d figures at most %s× (the greatest: %s).\n", len(all), limit, desc(worst))
		return err
	}
	slices.SortStableFunc(above, byMedian)
	var ds []string
	for _, f := range above[:min(len(above), maxListed)] {
		ds = append(ds, desc(f))
	}
	more := ""
	if len(above) > maxListed {
		more = fmt.Sprintf("; %d more", len(above)-maxListed)
	}
	_, err = fmt.Fprintf(w, "**not met**: %d of %d figures above %s×: %s%s.\n", len(above), len(all), limit, strings.Join(ds, "; "), more)
	return err
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// medianCSV writes, for every row and size of the files (rounds of one
// build), the row of the round whose ratio_go_c is the median (the lower
// one of an even count), as collbench wrote it: a collbench CSV file
// whose every figure was measured, whose ratios are the median ones, for
// collbench --plot --from-csv and for readers of collbench's files.
func medianCSV(w io.Writer, files []string, open func(string) (io.ReadCloser, error)) error {
	var header []string
	var order []key
	recs := map[key][][]string{}
	ratioCol := -1
	for _, name := range files {
		f, err := open(name)
		if err != nil {
			return err
		}
		rs, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if len(rs) == 0 {
			return fmt.Errorf("%s: empty", name)
		}
		switch {
		case header == nil:
			header = rs[0]
			ratioCol = slices.Index(header, "ratio_go_c")
			if len(header) < 2 || header[0] != "op" || header[1] != "size_bytes" || ratioCol < 0 {
				return fmt.Errorf("%s: not a collbench CSV file", name)
			}
		case !slices.Equal(header, rs[0]):
			return fmt.Errorf("%s: its columns are not those of %s", name, files[0])
		}
		for _, rec := range rs[1:] {
			size, err := strconv.Atoi(rec[1])
			if err != nil {
				return fmt.Errorf("%s: size %q: %w", name, rec[1], err)
			}
			k := key{rec[0], size}
			if _, ok := recs[k]; !ok {
				order = append(order, k)
			}
			recs[k] = append(recs[k], rec)
		}
	}
	cw := csv.NewWriter(w)
	cw.Write(header)
	for _, k := range order {
		rs := recs[k]
		num := func(rec []string) float64 {
			v, err := strconv.ParseFloat(rec[ratioCol], 64)
			if err != nil {
				return 0
			}
			return v
		}
		slices.SortStableFunc(rs, func(a, b []string) int { return cmpFloat(num(a), num(b)) })
		cw.Write(rs[(len(rs)-1)/2])
	}
	cw.Flush()
	return cw.Error()
}
