package coll

import (
	"testing"
	"unsafe"
)

// TestMemberLineLayout: a member line is two cache lines, what the others
// poll and read in a small call (at, word, val) on the first.
func TestMemberLineLayout(t *testing.T) {
	var ln memberLine
	if s, d := unsafe.Sizeof(ln), unsafe.Offsetof(ln.dst); s != 128 || d != 64 {
		t.Fatalf("memberLine: size %d, dst at %d; want 128 and 64", s, d)
	}
}
