package sync

import (
	"errors"
	"math/bits"
	"strconv"
	"strings"
	"testing"
)

// FuzzFlagsValidate checks Validate against its rule written apart (no
// unknown bit, exactly one flag of each category), the error's category,
// and that String names every bit so that the flags can be read back.
func FuzzFlagsValidate(f *testing.F) {
	for _, s := range []uint32{0, uint32(InMySync | OutAllSync | Single), uint32(InNoSync | OutNoSync | Local | Aggregate | AllThreads | SrcInSegment | DstInSegment),
		uint32(InMySync | InNoSync | OutMySync | Local), uint32(InMySync | Local), uint32(InMySync | OutMySync | Single | Local), 1 << 31, uint32(allFlags), ^uint32(0)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v uint32) {
		fl := Flags(v)
		err := fl.Validate()
		var want error
		switch {
		case fl&^allFlags != 0:
			want = ErrUnknownFlag
		case fl&InMask == 0:
			want = ErrNoInSync
		case bits.OnesCount32(uint32(fl&InMask)) > 1:
			want = ErrManyInSync
		case fl&OutMask == 0:
			want = ErrNoOutSync
		case bits.OnesCount32(uint32(fl&OutMask)) > 1:
			want = ErrManyOutSync
		case fl&AddrMask == 0:
			want = ErrNoAddressing
		case fl&AddrMask == AddrMask:
			want = ErrManyAddressing
		}
		if want == nil {
			if err != nil {
				t.Fatalf("%v: %v, want no error", fl, err)
			}
			if bits.OnesCount32(uint32(fl.In())) != 1 || bits.OnesCount32(uint32(fl.Out())) != 1 {
				t.Fatalf("%v: In %v, Out %v", fl, fl.In(), fl.Out())
			}
		} else if !errors.Is(err, want) || !errors.Is(err, ErrFlags) {
			t.Fatalf("%v: %v, want %v", fl, err, want)
		}
		if got := parseFlags(t, fl.String()); got != fl {
			t.Fatalf("%#x prints as %q, which reads back as %#x", v, fl.String(), uint32(got))
		}
	})
}

// parseFlags reads back Flags.String.
func parseFlags(t *testing.T, s string) Flags {
	if s == "0" {
		return 0
	}
	var fl Flags
	for _, part := range strings.Split(s, "|") {
		if i := indexOf(part); i >= 0 {
			fl |= 1 << i
			continue
		}
		v, err := strconv.ParseUint(part, 0, 32)
		if err != nil {
			t.Fatalf("%q: part %q: %v", s, part, err)
		}
		fl |= Flags(v)
	}
	return fl
}

func indexOf(name string) int {
	for i, n := range flagNames {
		if n == name {
			return i
		}
	}
	return -1
}
