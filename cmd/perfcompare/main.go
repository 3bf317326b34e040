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
// Why rounds and medians: on the 2-core machines gocoll is measured on, the
// machine flips between states in which small-message latencies differ 2x
// (BENCHMARKS.md, "Two machine states"), between runs and within one; one
// run of each build says little, and a single slow run must not decide.
package main

import (
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
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: perfcompare -base b1.csv,b2.csv,... -head h1.csv,h2.csv,...\n")
		flag.PrintDefaults()
	}
	flag.Parse()
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
