package exec

import "testing"

// TestTagSeq: the full sequence number survives the tag base, and the wire
// tag keeps the tag's bits only.
func TestTagSeq(t *testing.T) {
	tn := &TeamNode{Ctx: 5}
	for _, start := range []uint64{0, 1<<SeqBits - 1, 1 << 40} {
		tn.Seq.Store(start)
		base := tn.NextTagBase()
		if got := TagSeq(base); got != start {
			t.Errorf("TagSeq: %d, want %d", got, start)
		}
		tag := wireTag(base, 3)
		if tag > 1<<31-1 || tag>>(SeqBits+SubBits) != 5 || tag&(1<<SubBits-1) != 3 {
			t.Errorf("wire tag %#x of seq %d", tag, start)
		}
	}
}
