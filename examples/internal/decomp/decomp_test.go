package decomp

import "testing"

// Every n is covered once, in order, by blocks whose sizes differ by at most one.
func TestSpan(t *testing.T) {
	for n := 1; n <= 20; n++ {
		for p := 1; p <= n; p++ {
			next, lo, hi := 0, n, 0
			for b := range p {
				s, k := Span(n, p, b)
				if s != next {
					t.Fatalf("Span(%d, %d, %d) starts at %d, want %d", n, p, b, s, next)
				}
				next += k
				lo, hi = min(lo, k), max(hi, k)
			}
			if next != n || hi-lo > 1 {
				t.Fatalf("n %d p %d: covered %d, sizes %d..%d", n, p, next, lo, hi)
			}
		}
	}
}

func TestDims(t *testing.T) {
	for np, want := range map[int][2]int{1: {1, 1}, 2: {2, 1}, 3: {3, 1}, 4: {2, 2}, 6: {3, 2}, 8: {4, 2}, 12: {4, 3}} {
		if py, px := Dims(np); py != want[0] || px != want[1] {
			t.Errorf("Dims(%d) = %dx%d, want %dx%d", np, py, px, want[0], want[1])
		}
	}
}
