// Command perfcompare tells a regression from noise in collbench's CSV
// files of two builds, base and head, run in alternated rounds
// (scripts/perf-compare.sh builds and runs them, then calls it):
//
//	perfcompare -base b1.csv,b2.csv,... -head h1.csv,h2.csv,...
//
// The files pair up by position: round i is b_i and h_i, run one right after
// the other. For each gocoll.* row and size, each rooted row's root (the line
// "op:root") and each images-per-node ratio row (A/B), it prints the median
// over the rounds of new/old (head over base in the same round) and of each
// build's ratio to the native collective timed beside it, each with its
// spread (least..greatest), and a flag: "slower" or "faster" by the rule of
// verdict, "allocs" when the allocations per operation changed.
//
// It also renders the tables of BENCHMARKS.md from the rounds of one build
// (scripts/benchmarks.sh; markdown.go):
//
//	perfcompare -markdown TABLE [-ops PATTERNS] [-sizes LIST] [-limit X] [-spread] [-roots] GROUP...
//	perfcompare -median OUT.csv r1.csv,r2.csv,...
//
// A GROUP is the rounds of one configuration, r1.csv,r2.csv,..., or
// label=r1.csv,... where the table has a column per group (modes).
//
// Why rounds and medians: on the 2-core machines gocoll is measured on, the
// machine flips between states in which small-message latencies differ 2x
// (BENCHMARKS.md, "Two machine states"), between runs and within one; one
// run of each build says little, and a single slow run must not decide.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	base := flag.String("base", "", "the base build's collbench CSV `files`, comma-separated, one per round")
	head := flag.String("head", "", "the head build's collbench CSV `files`, comma-separated, in the same round order")
	threshold := flag.Float64("threshold", defaultThreshold, "the least relative change flagged (0.05: 5%)")
	var md mdConfig
	flag.StringVar(&md.kind, "markdown", "", "write the markdown `table` of the rounds of one build given as arguments:\n"+
		"collectives, ratios, latency, modes or check (see markdown.go)")
	ops := flag.String("ops", "", "with -markdown: the rows drawn, comma-separated `patterns` (path.Match; default gocoll.*)")
	sizes := flag.String("sizes", "", "with -markdown: the sizes drawn, a comma-separated `list` of N, N-M and N- (8,64K-)")
	flag.Float64Var(&md.limit, "limit", 1, "with -markdown check: the greatest median ratio that meets the aim")
	flag.BoolVar(&md.spread, "spread", false, "with -markdown ratios and collectives: each median's least and greatest round too")
	flag.BoolVar(&md.roots, "roots", false, "with -markdown collectives, ratios and check: a line of a rooted row's root (rank 0) too")
	median := flag.String("median", "", "write to `file` each row of the argument files (rounds) at its median ratio_go_c")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: perfcompare -base b1.csv,b2.csv,... -head h1.csv,h2.csv,...\n"+
			"       perfcompare -markdown TABLE [flags] [label=]r1.csv,r2.csv,... ...\n"+
			"       perfcompare -median OUT.csv r1.csv,r2.csv,...\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if md.kind != "" || *median != "" {
		if err := doc(md, *ops, *sizes, *median, flag.Args()); err != nil {
			fmt.Fprintf(os.Stderr, "perfcompare: %v\n", err)
			os.Exit(1)
		}
		return
	}
	if *base == "" || *head == "" || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := compareFiles(os.Stdout, strings.Split(*base, ","), strings.Split(*head, ","), *threshold); err != nil {
		fmt.Fprintf(os.Stderr, "perfcompare: %v\n", err)
		os.Exit(1)
	}
}

// compareFiles reads the rounds' files of both builds and writes the
// comparison to w.
func compareFiles(w io.Writer, baseFiles, headFiles []string, threshold float64) error {
	if len(baseFiles) != len(headFiles) {
		return fmt.Errorf("%d base files and %d head files: the rounds pair them, one of each", len(baseFiles), len(headFiles))
	}
	base, err := readRuns(baseFiles)
	if err != nil {
		return err
	}
	head, err := readRuns(headFiles)
	if err != nil {
		return err
	}
	return report(w, base, head, threshold)
}

// readRuns reads collbench CSV files.
func readRuns(names []string) ([]run, error) {
	runs := make([]run, len(names))
	for i, name := range names {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		runs[i], err = readRun(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	return runs, nil
}

// doc is -markdown (to stdout) or -median.
func doc(md mdConfig, ops, sizes, median string, args []string) error {
	if len(args) == 0 {
		return errors.New("no CSV files")
	}
	if median != "" {
		if md.kind != "" || len(args) > 1 {
			return errors.New("-median takes one group of files and no -markdown")
		}
		f, err := os.Create(median)
		if err != nil {
			return err
		}
		open := func(name string) (io.ReadCloser, error) { return os.Open(name) }
		if err := medianCSV(f, strings.Split(args[0], ","), open); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	if ops != "" {
		md.ops = strings.Split(ops, ",")
	}
	var err error
	if md.sizes, err = parseSizes(sizes); err != nil {
		return err
	}
	groups := make([]group, len(args))
	for i, a := range args {
		if groups[i], err = parseGroup(a); err != nil {
			return err
		}
	}
	return markdown(os.Stdout, md, groups)
}
