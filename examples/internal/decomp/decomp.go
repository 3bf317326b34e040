// Package decomp splits the examples' grids into blocks, one per image, the
// same way as their C twins do (span and dims in the C files).
package decomp

// Span is the part of n rows (or columns) that block b of p holds: its first
// index and its size. The first n%p blocks have one more.
func Span(n, p, b int) (start, size int) {
	q, r := n/p, n%p
	start, size = b*q+min(b, r), q
	if b < r {
		size++
	}
	return start, size
}

// Dims is the most square grid of np blocks, py rows by px columns with
// py >= px (as MPI_Dims_create in two dimensions).
func Dims(np int) (py, px int) {
	px = 1
	for d := 1; d*d <= np; d++ {
		if np%d == 0 {
			px = d
		}
	}
	return np / px, px
}
