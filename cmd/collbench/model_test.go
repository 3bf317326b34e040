package main

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

// synthRows are PingPong and Stream rows (C side) that a machine with the
// model's parameters m would give, at sizes 8 B .. 1 MiB.
func synthRows(m logGP) []row {
	var rs []row
	for k := 8; k <= 1<<20; k *= 4 {
		rs = append(rs,
			row{op: "PingPong", size: k, cAvg: m.deliver(float64(k))},
			row{op: "Stream", size: k, cAvg: m.gap(float64(k))})
	}
	return rs
}

func TestFitRecoversParameters(t *testing.T) {
	want := logGP{L: 0.7, o: 0.15, g: 0.15, G: 1.0 / 9000}
	got, err := fitLogGP(synthRows(want))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"L", got.L, want.L}, {"o", got.o, want.o}, {"g", got.g, want.g}, {"G", got.G, want.G}} {
		if math.Abs(c.got-c.want) > 1e-9*math.Max(1, c.want) {
			t.Errorf("%s = %g, want %g", c.name, c.got, c.want)
		}
	}
}

func TestFitNeedsRows(t *testing.T) {
	rs := synthRows(logGP{L: 1, o: 0.1, g: 0.1, G: 1e-4})
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

// The costs, worked out by hand for L 1, o 0.5, g 0.5, G 0.001 us/B,
// k 1000 B: deliver(k) = 3, deliver(2k) = 4, deliver(k/4) = 2.25,
// gap(k) = 1.5, the exchange step max(g, 2o+kG) = 2 (1.25 for k/4).
func TestCosts(t *testing.T) {
	m := logGP{L: 1, o: 0.5, g: 0.5, G: 0.001}
	cost := func(coll, name string, P int, k float64) float64 {
		for _, a := range algorithms {
			if a.coll == coll && a.name == name {
				return a.cost(m, P, k)
			}
		}
		t.Fatalf("no algorithm %s %s", coll, name)
		return 0
	}
	for _, c := range []struct {
		coll, name string
		P          int
		k, want    float64
	}{
		{"Broadcast", "binomial", 2, 1000, 3}, // one delivery: the ping-pong
		// Root 0 serves [1,2) at 3, then [2,4) a gap later (4.5), whose root serves 3: 7.5.
		{"Broadcast", "binomial", 4, 1000, 7.5},
		{"Broadcast", "binomial", 5, 1000, 7.5}, // [4,5) arrives at 6, within 7.5
		{"Broadcast", "flat", 4, 1000, 2*1.5 + 3},
		// Binary over 4: [1,3) at 3 serves 2 at 6; [3,4) at 4.5.
		{"Broadcast", "binary", 4, 1000, 6},
		// [1,2) gets 1 block at 3; [2,4) 2 blocks a gap later, 1.5+4, then 3 more.
		{"Scatter", "binomial", 4, 1000, 8.5},
		{"GatherAll", "dissemination", 4, 1000, 3 + 4}, // 1 block, then 2
		{"GatherAll", "exchange", 4, 1000, 2*2 + 3},
		{"Exchange", "exchange", 2, 1000, 3},
		{"ReduceAll", "reduce-scatter+gather_all", 4, 1000, 2 * (2*1.25 + 2.25)},
		{"PrefixReduce", "dissemination scan", 8, 1000, 9},
	} {
		if got := cost(c.coll, c.name, c.P, c.k); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s %s P %d k %g: %g, want %g", c.coll, c.name, c.P, c.k, got, c.want)
		}
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
	m := logGP{L: 0.7, o: 0.15, g: 0.15, G: 1.0 / 9000}
	rs := append(synthRows(m), row{op: "gocoll.Broadcast", size: 8, goAvg: 2 * m.deliver(8)})
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
