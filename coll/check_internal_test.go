package coll

import (
	"testing"

	"github.com/gocoll/gocoll/coll/internal/alg"
	"github.com/gocoll/gocoll/images"
	gsync "github.com/gocoll/gocoll/sync"
)

// FuzzCallSig: the signature encoding round-trips, and two signatures
// that differ in any argument encode differently, hash differently with
// high probability (not asserted: a 32-bit hash collides sometimes) and
// name the argument that differs.
func FuzzCallSig(f *testing.F) {
	f.Add(uint8(1), uint32(gsync.InMySync|gsync.OutMySync|gsync.Local), uint64(0), uint64(1), 0, 8, 0, 0, 0, 0, 1, 0, 0, 0, 3, int64(1))
	f.Add(uint8(7), uint32(gsync.InAllSync|gsync.OutNoSync|gsync.Single), uint64(5), uint64(1<<40), 2, 0, 16, 100, 3, -1, 0, 2, 4, 1, 13, int64(-7))
	f.Fuzz(func(t *testing.T, k uint8, fl uint32, team, seq uint64, root, n, es, count, fn, arg, sb, so, db, do, field int, delta int64) {
		s := callSig{kind: kind(k), flags: gsync.Flags(fl), team: team, seq: seq, root: root, n: n, es: es,
			count: count, fn: fn, arg: arg, sl: alg.Layout{BlockSize: sb, Offset: so}, dl: alg.Layout{BlockSize: db, Offset: do}}
		b := make([]byte, sigSize)
		s.encode(b)
		if got := decodeSig(b); got != s {
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
		c := make([]byte, sigSize)
		u.encode(c)
		if string(b) == string(c) {
			t.Fatalf("%v and %v encode alike", s, u)
		}
		if s.differs(&u) == "" || s.differs(&s) != "" {
			t.Fatalf("differs: %q between %v and %v, %q with itself", s.differs(&u), s, u, s.differs(&s))
		}
	})
}

// bump adds d to argument i (in words' order) of s.
func bump(s callSig, i int, d int64) callSig {
	switch i {
	case 0:
		s.kind += kind(d)
	case 1:
		s.flags += gsync.Flags(d)
	case 2:
		s.team += uint64(d)
	case 3:
		s.seq += uint64(d)
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
	s := callSig{kind: kBroadcast, n: 8}
	u := s
	u.seq = 99
	if s.hash() != u.hash() {
		t.Fatal("the sequence number changed the hash")
	}
	for i := range sigWords {
		if i == 3 {
			continue
		}
		if v := bump(s, i, 1); v.hash() == s.hash() {
			t.Errorf("word %d: hash unchanged", i)
		}
	}
}

// TestSeqOf: the full sequence number survives the tag base, and the wire
// tag keeps the tag's bits only.
func TestSeqOf(t *testing.T) {
	tn := &teamNode{ctx: 5}
	for _, start := range []uint64{0, 1<<seqBits - 1, 1 << 40} {
		tn.seq.Store(start)
		base := tn.nextTagBase()
		if got := seqOf(base); got != start {
			t.Errorf("seqOf: %d, want %d", got, start)
		}
		tag := wireTag(base, 3)
		if tag > 1<<31-1 || tag>>(seqBits+subBits) != 5 || tag&(1<<subBits-1) != 3 {
			t.Errorf("wire tag %#x of seq %d", tag, start)
		}
	}
}

// TestSig: the signature that a local team's members compare (local.go)
// tells apart keys that differ in any one field it covers, as a member
// line keeps it, and ignores the buffers.
func TestSig(t *testing.T) {
	t1, t2 := &images.Team{}, &images.Team{}
	base := planKey{kind: kReduceAll, team: t1, f: 1 << 3, root: 1, n: 8, es: 8, count: 4, fn: 1, arg: 2,
		sl: alg.Layout{BlockSize: 1}, dl: alg.Layout{BlockSize: 2, Offset: 1}}
	vary := map[string]func(k *planKey){
		"kind":      func(k *planKey) { k.kind = kReduce },
		"team":      func(k *planKey) { k.team = t2 },
		"flags":     func(k *planKey) { k.f |= 1 << 6 },
		"root":      func(k *planKey) { k.root = 2 },
		"n":         func(k *planKey) { k.n = 1<<32 + 8 },
		"es":        func(k *planKey) { k.es = 16 },
		"count":     func(k *planKey) { k.count = 5 },
		"fn":        func(k *planKey) { k.fn = 0 },
		"arg":       func(k *planKey) { k.arg = -2 },
		"sl":        func(k *planKey) { k.sl.BlockSize = 2 },
		"sl.Offset": func(k *planKey) { k.sl.Offset = 1 },
		"dl":        func(k *planKey) { k.dl.BlockSize = 3 },
		"dl.Offset": func(k *planKey) { k.dl.Offset = 0 },
	}
	for name, f := range vary {
		k := base
		f(&k)
		if lineWord(&k)&lineSig == lineWord(&base)&lineSig {
			t.Errorf("%s: same signature %#x", name, lineWord(&k))
		}
	}
	k := base
	k.dst, k.src, k.bh = bufID{p: new(byte), n: 8}, bufID{n: 3}, 7
	if lineWord(&k) != lineWord(&base) {
		t.Error("the buffers change the signature")
	}
}
