package coll

import (
	"math/rand/v2"
	"testing"
)

// localLen finds the end of an image's last run without listing its runs;
// it must agree with the listing for every layout.
func TestLocalLenMatchesRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		P := 1 + rng.IntN(9)
		d := dist{Layout: Layout{BlockSize: rng.IntN(6), Offset: rng.IntN(20)}, P: P, count: 1 + rng.IntN(40)}
		if d.BlockSize == 0 {
			d.Offset %= P
		}
		for p := range P {
			want := 0
			if rs := d.runs(p); len(rs) > 0 {
				want = rs[len(rs)-1].local + rs[len(rs)-1].n
			}
			if got := d.localLen(p); got != want {
				t.Fatalf("%+v image %d: localLen %d, runs end at %d", d, p, got, want)
			}
		}
	}
}
