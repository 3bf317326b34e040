package local

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

// TestRingFree: member 0 may write the ring's slot of call n only when
// every other member's fin is past n-ringCalls (ring.go); its own fin
// does not count, and it reads the others' again only when what it saw
// before does not suffice.
func TestRingFree(t *testing.T) {
	it := &Member{team: &Team{fins: make([]finLine, 3)}}
	fins := func(v ...uint64) {
		for m, x := range v {
			it.team.fins[m].v.Store(x)
		}
	}
	for _, c := range []struct {
		fins []uint64
		n    uint64
		free bool
		safe uint64 // it.safe after
	}{
		{[]uint64{0, 0, 0}, 0, true, 0},
		{[]uint64{0, 0, 0}, ringCalls - 1, true, 0},
		{[]uint64{0, 0, 0}, ringCalls, false, 0},
		{[]uint64{0, 40, 10}, ringCalls + 9, true, 10},
		{[]uint64{0, 40, 10}, ringCalls + 10, false, 10},
		{[]uint64{99, 40, 11}, ringCalls + 10, true, 11}, // member 0's own fin left out
		{[]uint64{0, 40, 50}, ringCalls + 39, true, 40},
		{[]uint64{0, 0, 0}, ringCalls + 39, true, 40}, // what it saw still holds: not read again
		{[]uint64{0, 0, 0}, ringCalls + 40, false, 0},
	} {
		fins(c.fins...)
		if got := it.ringFree(c.n, 0); got != c.free || it.safe != c.safe {
			t.Errorf("fins %v, call %d: free %v (safe %d), want %v (safe %d)", c.fins, c.n, got, it.safe, c.free, c.safe)
		}
	}
}
