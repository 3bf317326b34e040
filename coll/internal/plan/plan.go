// Package plan is what names one collective call on a node: its Kind, the
// Key of every argument its schedule depends on (the plan cache's key, and
// what the wire headers hash), the Call (the key and each member's
// buffers), and the Sig, the arguments that the images of a team must
// pass alike, as checked mode agrees on them and messages carry their hash
// (ErrMismatch when they differ). It sits below the executor, which reads
// a call's key on every run, and above the algorithms (package alg),
// whose layouts a key holds.
package plan

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"unsafe"

	"github.com/gocoll/gocoll/coll/internal/alg"
	"github.com/gocoll/gocoll/images"
	gsync "github.com/gocoll/gocoll/sync"
)

// Kind names a collective in a Key.
type Kind uint8

const (
	Barrier Kind = iota
	Broadcast
	Scatter
	Gather
	GatherAll
	Exchange
	// the v-variants: a count per rank (vcall.go)
	GatherV
	ScatterV
	GatherAllV
	ExchangeV
	NeighborExchange // a count per neighbour on a grid (vcall.go)
	Reduce
	ReduceAll
	Prefix
	ExclusivePrefix
	ReduceScatter // a count per rank, as the v-variants (vcall.go)
	NumKinds
)

// kindNames are the kinds as the API names them (errors, ErrMismatch and
// ErrStalled messages).
var kindNames = [NumKinds]string{"Barrier", "Broadcast", "Scatter", "Gather", "GatherAll", "Exchange",
	"GatherV", "ScatterV", "GatherAllV", "ExchangeV", "NeighborExchange", "Reduce", "ReduceAll", "PrefixReduce", "ExclusivePrefixReduce",
	"ReduceScatter"}

// String is the kind as the API names it.
func (k Kind) String() string {
	if k < NumKinds {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Key is every argument a schedule depends on. Where the node has
// several members, dst and src are member 0's buffers and bh a hash of
// every member's; the schedule keeps the full list to compare (bufs).
type Key struct {
	Kind     Kind
	Team     *images.Team
	Flags    gsync.Flags
	Root, N  int
	Dst, Src BufID
	BH       uint64
	// the computational collectives (the v-variants: ElemSize is the unit
	// of counts and displacements)
	ElemSize, Count, Fn, Arg int
	SrcLayout, DstLayout     alg.Layout
	// the v-variants (vcall.go): a hash of the counts every image passes
	// alike (VC), and of every member's extents (VH, set with BH)
	VC, VH uint64
}

// Equal reports whether k and o are the same key: what == says, field by
// field, since the compiler's == of a struct this size calls memequal
// (the plan cache compares keys on every call).
// TestPlanKeyEqual checks that it sees every field.
func (k *Key) Equal(o *Key) bool {
	return k.Kind == o.Kind && k.Team == o.Team && k.Flags == o.Flags && k.Root == o.Root && k.N == o.N &&
		k.Dst == o.Dst && k.Src == o.Src && k.BH == o.BH &&
		k.ElemSize == o.ElemSize && k.Count == o.Count && k.Fn == o.Fn && k.Arg == o.Arg && k.SrcLayout == o.SrcLayout && k.DstLayout == o.DstLayout &&
		k.VC == o.VC && k.VH == o.VH
}

// BufID identifies a client buffer. A cached schedule holds the buffer, so
// its address cannot be reused for another while the entry exists.
type BufID struct {
	p *byte
	N int
}

// IDOf is b's identity: its address and length.
func IDOf(b []byte) BufID { return BufID{unsafe.SliceData(b), len(b)} }

// Bufs fills the key's buffer identities from c's members.
func (k *Key) Bufs(c *Call) {
	k.Dst, k.Src, k.BH = IDOf(c.Dst[0]), IDOf(c.Src[0]), 0
	if c.V != nil {
		k.VH = hashV(c.V)
	}
	if len(c.Dst) == 1 {
		return
	}
	h := uint64(len(c.Dst))
	for _, l := range [2][][]byte{c.Dst, c.Src} {
		for _, b := range l {
			h = (h ^ uint64(uintptr(unsafe.Pointer(unsafe.SliceData(b))))) * 0x100000001b3
			h = (h ^ uint64(len(b))) * 0x100000001b3
		}
	}
	k.BH = h
}

// BufIDs lists every member's destination, then every member's source.
func BufIDs(c *Call) []BufID {
	ids := make([]BufID, 0, 2*len(c.Dst))
	for _, b := range c.Dst {
		ids = append(ids, IDOf(b))
	}
	for _, b := range c.Src {
		ids = append(ids, IDOf(b))
	}
	return ids
}

// SameCall reports whether two keys name the same collective with the same
// arguments, buffers aside: what a node's images must agree on.
func (k *Key) SameCall(u *Key) bool {
	a, b := *k, *u
	a.Dst, a.Src, a.BH, a.VH = BufID{}, BufID{}, 0, 0
	b.Dst, b.Src, b.BH, b.VH = BufID{}, BufID{}, 0, 0
	return a == b
}

// Call is an initiation as the node runs it: the arguments every member
// agrees on, and each member's buffers.
type Call struct {
	Key      Key
	Dst, Src [][]byte // by member: index k is the node's k-th member
	V        []VArgs  // the v-variants: each member's counts and displacements (vcall.go)
}

// LocalSig is the call's signature as the members of a team that lives on
// one node compare it (package coll's member lines): what the node's
// images must agree on (the key without the buffers), mixed into 64 bits.
// Two lanes of xor-and-multiply (each a bijection of its state for each
// field, so keys that differ in one field differ), then one final mix: two
// calls that differ get different signatures but for a chance of about
// 2^-56 (the bits a member line keeps). It is computed on every call, so
// the lanes run side by side rather than as one chain.
func (k *Key) LocalSig() uint64 {
	const m1, m2 = 0x9e3779b97f4a7c15, 0xc2b2ae3d27d4eb4f
	x := uint64(k.Kind) | uint64(k.Flags)<<8 | uint64(uint32(k.Root))<<32 // kind < 2^8, flags < 2^24, root < 2^31
	y := uint64(uintptr(unsafe.Pointer(k.Team)))
	x = (x ^ uint64(k.N)) * m1
	y = (y ^ uint64(k.ElemSize)) * m2
	x = (x ^ uint64(k.Count)) * m1
	y = (y ^ uint64(k.Arg)) * m2
	x = (x ^ uint64(k.Fn)) * m1
	y = (y ^ uint64(k.SrcLayout.BlockSize)) * m2
	x = (x ^ uint64(k.SrcLayout.Offset)) * m1
	y = (y ^ uint64(k.DstLayout.BlockSize)) * m2
	x = (x ^ uint64(k.DstLayout.Offset)) * m1
	y = (y ^ k.VC) * m2
	h := x ^ (y<<32 | y>>32)
	h ^= h >> 29
	h *= m1
	return h ^ h>>32
}

// ErrMismatch reports a collective whose arguments differ across the
// images of its team (checked mode: on every image; default mode: on the
// images that received a message of a disagreeing call).
var ErrMismatch = errors.New("gocoll: images called a collective with different arguments")

// agreedFlags are the flags every image passes alike: sync modes,
// addressing and the segment assertions. AllThreads and Aggregate say how
// a node's images make the call, which may differ by node.
const agreedFlags = gsync.InMask | gsync.OutMask | gsync.AddrMask | gsync.SrcInSegment | gsync.DstInSegment

// Sig is the agreed arguments of one collective.
type Sig struct {
	kind          Kind
	flags         gsync.Flags
	team, Seq     uint64
	root, n       int
	es, count, fn int
	arg           int
	sl, dl        alg.Layout
	vc            uint64 // the v-variants' agreed counts, hashed
}

// sigWords is the number of 8-byte words of an encoded signature.
const (
	sigWords = 15
	SigSize  = 8 * sigWords
)

// SigOf is the signature of key (its sequence number left 0).
func SigOf(k *Key) Sig {
	s := Sig{kind: k.Kind, flags: k.Flags & agreedFlags, root: k.Root, n: k.N,
		es: k.ElemSize, count: k.Count, fn: k.Fn, arg: k.Arg, sl: k.SrcLayout, dl: k.DstLayout, vc: k.VC}
	if k.Team != nil {
		s.team = k.Team.ID()
	}
	return s
}

func (s *Sig) words() [sigWords]uint64 {
	return [sigWords]uint64{uint64(s.kind), uint64(s.flags), s.team, s.Seq, uint64(s.root), uint64(s.n),
		uint64(s.es), uint64(s.count), uint64(s.fn), uint64(s.arg),
		uint64(s.sl.BlockSize), uint64(s.sl.Offset), uint64(s.dl.BlockSize), uint64(s.dl.Offset), s.vc}
}

// Encode writes s into b (sigSize bytes).
func (s *Sig) Encode(b []byte) {
	for i, w := range s.words() {
		binary.LittleEndian.PutUint64(b[8*i:], w)
	}
}

// DecodeSig reads a signature that encode wrote.
func DecodeSig(b []byte) Sig {
	var w [sigWords]uint64
	for i := range w {
		w[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	i := func(k int) int { return int(w[k]) }
	return Sig{kind: Kind(w[0]), flags: gsync.Flags(w[1]), team: w[2], Seq: w[3], root: i(4), n: i(5),
		es: i(6), count: i(7), fn: i(8), arg: i(9),
		sl: alg.Layout{BlockSize: i(10), Offset: i(11)}, dl: alg.Layout{BlockSize: i(12), Offset: i(13)}, vc: w[14]}
}

// Hash is a 32-bit Hash of the signature's words (sequence number aside:
// the message header carries it in full).
func (s Sig) Hash() uint32 { return uint32(s.Hash64()) }

// Hash64 is a 64-bit hash of the signature's words, sequence number
// aside: a word at a time, each multiplied in and its high half folded
// into the low one, so that every bit of every word reaches the 32 bits
// that Hash keeps. Every schedule built hashes its key (the message
// headers carry it), so it is a word's work, not a byte's.
func (s Sig) Hash64() uint64 {
	s.Seq = 0
	h := uint64(14695981039346656037)
	for _, w := range s.words() {
		h = (h ^ w) * 0x9e3779b97f4a7c15
		h ^= h >> 32
	}
	return h
}

// String shows the call as the caller wrote it, with the arguments that
// apply to its kind.
func (s Sig) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v(", s.kind)
	switch {
	case s.kind == Barrier:
	case s.kind.IsV():
		if s.kind == GatherV || s.kind == ScatterV {
			fmt.Fprintf(&b, "root=%d, ", s.root)
		}
		what := "counts"
		if s.kind == NeighborExchange {
			what = "grid"
		}
		fmt.Fprintf(&b, "%s=%#x, unit=%d, ", what, s.vc, s.es)
	case s.kind < Reduce:
		if s.kind == Broadcast || s.kind == Scatter || s.kind == Gather {
			fmt.Fprintf(&b, "root=%d, ", s.root)
		}
		fmt.Fprintf(&b, "nbytes=%d, ", s.n)
	default:
		if s.kind == Reduce {
			fmt.Fprintf(&b, "root=%d, ", s.root)
		}
		fmt.Fprintf(&b, "elemSize=%d, count=%d, fn=%d, arg=%d, src=%v, ", s.es, s.count, s.fn, s.arg, s.sl)
		if s.kind == ReduceScatter {
			fmt.Fprintf(&b, "counts=%#x, ", s.vc)
		}
		if s.kind == Prefix || s.kind == ExclusivePrefix {
			fmt.Fprintf(&b, "dst=%v, ", s.dl)
		}
	}
	fmt.Fprintf(&b, "flags=%v, team=%d, call=%d)", s.flags, s.team, s.Seq)
	return b.String()
}

// differs names the first argument in which s and u differ, or "".
func (s *Sig) differs(u *Sig) string {
	names := [sigWords]string{"kind", "flags", "team", "call number", "root", "nbytes",
		"elemSize", "count", "function", "arg", "src layout block size", "src layout offset",
		"dst layout block size", "dst layout offset", "counts"}
	a, b := s.words(), u.words()
	for i := range a {
		if a[i] != b[i] {
			return names[i]
		}
	}
	return ""
}

// MismatchErr describes a disagreement: image a called sa, image b sb.
func MismatchErr(a int, sa *Sig, b int, sb *Sig) error {
	return fmt.Errorf("%w (%s): image %d called %v; image %d called %v", ErrMismatch, sa.differs(sb), a, *sa, b, *sb)
}
