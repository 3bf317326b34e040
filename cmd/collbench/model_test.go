package main

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gocoll/gocoll/loggp"
)

// synthRows are PingPong and Stream rows (C side) that a machine with the
// model's parameters m would give, at sizes 8 B .. 1 MiB.
func synthRows(m loggp.Params) []row {
	var rs []row
	for k := 8; k <= 1<<20; k *= 4 {
		rs = append(rs,
			row{op: "PingPong", size: k, cAvg: m.Deliver(float64(k))},
			row{op: "Stream", size: k, cAvg: m.Next(float64(k))})
	}
	return rs
}

// The fit reads the rows' C side (loggp's Fit is tested in its package).
func TestFitFromRows(t *testing.T) {
	want := loggp.Params{L: 0.7, O: 0.15, Gap: 0.15, G: 1.0 / 9000, Fold: loggp.Default.Fold}
	got, err := fitLogGP(synthRows(want))
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got.L-want.L) > 1e-9 || math.Abs(got.O-want.O) > 1e-9 || math.Abs(got.G-want.G) > 1e-12 || got.Fold != want.Fold {
		t.Errorf("fit %+v, want %+v", got, want)
	}
}

func TestFitNeedsRows(t *testing.T) {
	rs := synthRows(loggp.Params{L: 1, O: 0.1, Gap: 0.1, G: 1e-4})
	var noStream []row
	for _, r := range rs {
		if r.op != "Stream" {
			noStream = append(noStream, r)
		}
	}
	if _, err := fitLogGP(noStream); err != errModelRows {
		t.Errorf("fit without Stream rows: %v, want errModelRows", err)
	}
	if _, err := fitLogGP(rs[:2]); err != errModelRows {
		t.Errorf("fit on one PingPong row: %v, want errModelRows", err)
	}
}

// Exactly one algorithm of each collective is gocoll's pick at every P and
// size, and every pick names the row that measures it.
func TestOnePickEach(t *testing.T) {
	for _, P := range []int{2, 3, 4, 16, 17, 64, 4096} {
		for _, k := range []int{8, 32 << 10, 1 << 20} {
			picks := map[string]int{}
			for _, a := range algorithms {
				if a.picked(P, k) {
					picks[a.coll]++
					if a.row == "" {
						t.Errorf("%s %s picked at P %d but measured by no row", a.coll, a.name, P)
					}
				} else {
					picks[a.coll] += 0
				}
			}
			for coll, n := range picks {
				if n != 1 {
					t.Errorf("P %d k %d: %s has %d picks", P, k, coll, n)
				}
			}
		}
	}
}

func TestPrintModel(t *testing.T) {
	m := loggp.Params{L: 0.7, O: 0.15, Gap: 0.15, G: 1.0 / 9000}
	rs := append(synthRows(m), row{op: "gocoll.Broadcast", size: 8, goAvg: 2 * m.Deliver(8)})
	var out bytes.Buffer
	if err := printModel(&out, rs, 2); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{"L 0.700 us, o 0.150 us, g 0.150 us", "Broadcast", "-50%", "P=4096"} {
		if !strings.Contains(s, want) {
			t.Errorf("the model's output lacks %q:\n%s", want, s)
		}
	}
}

func TestModelFlagSelectsRows(t *testing.T) {
	var out bytes.Buffer
	cfg, err := parseArgs([]string{"--model"}, &out)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(cfg.ops, ",") != strings.Join(modelRows(), ",") {
		t.Errorf("--model ops %v, want %v", cfg.ops, modelRows())
	}
}

// fitFold recovers the fold of ReduceAll rows that follow the model.
func TestFitFold(t *testing.T) {
	m := loggp.Params{L: 0.7, O: 0.15, Gap: 0.15, G: 1.0 / 9000}
	want := m
	want.Fold = 0.0004
	var rs []row
	for _, k := range []int{8, 1 << 10, 64 << 10, 1 << 20} {
		for _, a := range algorithms {
			if a.coll == "ReduceAll" && a.picked(2, k) {
				rs = append(rs, row{op: "gocoll.ReduceAll", size: k, goAvg: a.cost(want, 2, float64(k))})
			}
		}
	}
	got, n := fitFold(rs, 2, m)
	if n != 3 || math.Abs(got-want.Fold) > 1e-12 {
		t.Errorf("fitFold: %g from %d rows, want %g from 3 (the 8 B row left out)", got, n, want.Fold)
	}
	if _, n := fitFold(synthRows(m), 2, m); n != 0 {
		t.Errorf("fitFold without ReduceAll rows used %d", n)
	}
}

// --predict prints loggp.Default's table without MPI: every algorithm at
// every P, its figures the model's, and gocoll's choice marked.
func TestPredictFlag(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := realMain([]string{"--predict"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	s := stdout.String()
	m := loggp.Default
	for _, a := range algorithms {
		want := fmt.Sprintf("  %-13s %-26s %8d", a.coll, a.name, 1<<20)
		for _, P := range []int{2, 4, 16, 64, 256, 1024, 4096} {
			mark := " "
			if a.picked(P, 1<<20) {
				mark = "*"
			}
			want += fmt.Sprintf(" %9.1f%s", a.cost(m, P, 1<<20), mark)
		}
		if !strings.Contains(s, want+"\n") {
			t.Errorf("--predict lacks the row\n%s\nin\n%s", want, s)
		}
	}
	if !strings.Contains(s, fmt.Sprintf("o %.3f us", m.O)) {
		t.Errorf("--predict does not print loggp.Default's parameters:\n%s", s)
	}
}
