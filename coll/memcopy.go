package coll

// Go's copy moves 1 MiB and more with non-temporal stores, which write
// around the cache: right for a copy larger than the cache, slow for the
// collectives' blocks, which the application, a send or a fold reads soon
// after. copyData copies up to cachedCopyMax bytes in pieces below Go's
// threshold, so that they stay in the cache; BenchmarkCopyData measures
// both.
const (
	copyPiece     = 512 << 10
	cachedCopyMax = 8 << 20
)

// copyData is copy (alias-safe) for a collective's data.
func copyData(dst, src []byte) int {
	n := min(len(dst), len(src))
	if n <= copyPiece || n > cachedCopyMax || overlap(dst[:n], src[:n]) {
		return copy(dst, src)
	}
	for k := 0; k < n; k += copyPiece {
		e := min(k+copyPiece, n)
		copy(dst[k:e], src[k:e])
	}
	return n
}
