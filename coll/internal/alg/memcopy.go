package alg

import "unsafe"

// Go's copy moves 1 MiB and more with non-temporal stores, which write
// around the cache: right for a copy larger than the cache, slow for the
// collectives' blocks, which the application, a send or a fold reads soon
// after. CopyData copies up to cachedCopyMax bytes in pieces below Go's
// threshold, so that they stay in the cache; BenchmarkCopyData measures
// both.
const (
	copyPiece     = 512 << 10
	cachedCopyMax = 8 << 20
)

// CopyData is copy (alias-safe) for a collective's data.
func CopyData(dst, src []byte) int {
	n := min(len(dst), len(src))
	if n <= copyPiece || n > cachedCopyMax || Overlap(dst[:n], src[:n]) {
		return copy(dst, src)
	}
	for k := 0; k < n; k += copyPiece {
		e := min(k+copyPiece, n)
		copy(dst[k:e], src[k:e])
	}
	return n
}

// Overlap reports whether x and y share a byte.
func Overlap(x, y []byte) bool {
	if len(x) == 0 || len(y) == 0 {
		return false
	}
	px, py := uintptr(unsafe.Pointer(&x[0])), uintptr(unsafe.Pointer(&y[0]))
	return px < py+uintptr(len(y)) && py < px+uintptr(len(x))
}

// Identical: same address and length.
func Identical(x, y []byte) bool {
	return len(x) == len(y) && len(x) > 0 && &x[0] == &y[0]
}
