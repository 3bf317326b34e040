package alg

import (
	"math/rand/v2"
	"testing"
)

// LocalLen finds the end of an image's last run without listing its runs;
// it must agree with the listing for every layout.
func TestLocalLenMatchesRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		P := 1 + rng.IntN(9)
		d := Dist{Layout: Layout{BlockSize: rng.IntN(6), Offset: rng.IntN(20)}, P: P, Count: 1 + rng.IntN(40)}
		if d.BlockSize == 0 {
			d.Offset %= P
		}
		for p := range P {
			want := 0
			if rs := d.Runs(p); len(rs) > 0 {
				want = rs[len(rs)-1].Local + rs[len(rs)-1].N
			}
			if got := d.LocalLen(p); got != want {
				t.Fatalf("%+v image %d: localLen %d, runs end at %d", d, p, got, want)
			}
		}
	}
}
