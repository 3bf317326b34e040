package alg

import (
	"bytes"
	"fmt"
	"testing"
)

// CopyData is copy: for every size around its pieces and its limits, into
// another buffer and within one buffer (overlapping either way, and
// identical), it leaves what copy leaves and returns what copy returns.
func TestCopyData(t *testing.T) {
	for _, n := range []int{0, 1, copyPiece, copyPiece + 1, 3*copyPiece - 5, cachedCopyMax, cachedCopyMax + 1} {
		src := make([]byte, n)
		for i := range src {
			src[i] = byte(i*7 + i>>9)
		}
		for _, short := range []int{0, 3} { // dst shorter than src
			dst := make([]byte, max(0, n-short))
			if got := CopyData(dst, src); got != len(dst) || !bytes.Equal(dst, src[:len(dst)]) {
				t.Fatalf("%d bytes into %d: returned %d, contents differ: %v", n, len(dst), got, !bytes.Equal(dst, src[:len(dst)]))
			}
		}
		for _, shift := range []int{-copyPiece - 3, -1, 0, 1, copyPiece + 3} {
			if n == 0 {
				continue
			}
			pad := copyPiece + 3
			want := make([]byte, n+2*pad)
			copy(want[pad:], src)
			got := bytes.Clone(want)
			copy(want[pad+shift:pad+shift+n], want[pad:pad+n])
			CopyData(got[pad+shift:pad+shift+n], got[pad:pad+n])
			if !bytes.Equal(got, want) {
				t.Fatalf("%d bytes shifted by %d within one buffer: not what copy leaves", n, shift)
			}
		}
	}
}

// BenchmarkCopyData: CopyData against copy at sizes around Go's
// non-temporal threshold, into a buffer that is read again at once (as a
// collective's destination is).
//
//	go test -run xxx -bench CopyData ./coll
func BenchmarkCopyData(b *testing.B) {
	for _, n := range []int{512 << 10, 1 << 20, 4 << 20, 16 << 20} {
		src, dst := make([]byte, n), make([]byte, n)
		for i := range src { // touched: untouched pages all read the zero page
			src[i], dst[i] = byte(i), byte(i)
		}
		for _, f := range []struct {
			name string
			cp   func(d, s []byte) int
		}{{"copy", func(d, s []byte) int { return copy(d, s) }}, {"copyData", CopyData}} {
			b.Run(fmt.Sprintf("%s/%d", f.name, n), func(b *testing.B) {
				b.SetBytes(int64(n))
				for b.Loop() {
					f.cp(dst, src)
				}
			})
		}
	}
}
