package plan

import (
	"testing"

	"github.com/gocoll/gocoll/coll/internal/alg"
	gsync "github.com/gocoll/gocoll/sync"
)

// FuzzSig: the signature encoding round-trips, and two signatures
// that differ in any argument encode differently, hash differently with
// high probability (not asserted: a 32-bit hash collides sometimes) and
// name the argument that differs.
func FuzzSig(f *testing.F) {
	f.Add(uint8(1), uint32(gsync.InMySync|gsync.OutMySync|gsync.Local), uint64(0), uint64(1), 0, 8, 0, 0, 0, 0, 1, 0, 0, 0, 3, int64(1))
	f.Add(uint8(7), uint32(gsync.InAllSync|gsync.OutNoSync|gsync.Single), uint64(5), uint64(1<<40), 2, 0, 16, 100, 3, -1, 0, 2, 4, 1, 13, int64(-7))
	f.Fuzz(func(t *testing.T, k uint8, fl uint32, team, seq uint64, root, n, es, count, fn, arg, sb, so, db, do, field int, delta int64) {
		s := Sig{kind: Kind(k), flags: gsync.Flags(fl), team: team, Seq: seq, root: root, n: n, es: es,
			count: count, fn: fn, arg: arg, sl: alg.Layout{BlockSize: sb, Offset: so}, dl: alg.Layout{BlockSize: db, Offset: do}}
		b := make([]byte, SigSize)
		s.Encode(b)
		if got := DecodeSig(b); got != s {
			t.Fatalf("round trip: %#v became %#v", s, got)
		}
		if delta == 0 {
			return
		}
		// u differs from s in one argument
		u := bump(s, ((field%sigWords)+sigWords)%sigWords, delta)
		if u == s {
			return // the change vanished in the field's type
		}
		c := make([]byte, SigSize)
		u.Encode(c)
		if string(b) == string(c) {
			t.Fatalf("%v and %v encode alike", s, u)
		}
		if s.differs(&u) == "" || s.differs(&s) != "" {
			t.Fatalf("differs: %q between %v and %v, %q with itself", s.differs(&u), s, u, s.differs(&s))
		}
	})
}

// bump adds d to argument i (in words' order) of s.
func bump(s Sig, i int, d int64) Sig {
	switch i {
	case 0:
		s.kind += Kind(d)
	case 1:
		s.flags += gsync.Flags(d)
	case 2:
		s.team += uint64(d)
	case 3:
		s.Seq += uint64(d)
	case 4:
		s.root += int(d)
	case 5:
		s.n += int(d)
	case 6:
		s.es += int(d)
	case 7:
		s.count += int(d)
	case 8:
		s.fn += int(d)
	case 9:
		s.arg += int(d)
	case 10:
		s.sl.BlockSize += int(d)
	case 11:
		s.sl.Offset += int(d)
	case 12:
		s.dl.BlockSize += int(d)
	default:
		s.dl.Offset += int(d)
	}
	return s
}

// TestSigHashSeq: the hash leaves the sequence number out (the header
// carries it in full) and sees every other argument.
func TestSigHashSeq(t *testing.T) {
	s := Sig{kind: Broadcast, n: 8}
	u := s
	u.Seq = 99
	if s.Hash() != u.Hash() {
		t.Fatal("the sequence number changed the hash")
	}
	for i := range sigWords {
		if i == 3 {
			continue
		}
		if v := bump(s, i, 1); v.Hash() == s.Hash() {
			t.Errorf("word %d: hash unchanged", i)
		}
	}
}
