package local

import (
	"testing"

	"github.com/gocoll/gocoll/coll/internal/alg"
	"github.com/gocoll/gocoll/coll/internal/plan"
	"github.com/gocoll/gocoll/images"
)

// TestSig: the signature that a local team's members compare (local.go)
// tells apart keys that differ in any one field it covers, as a member
// line keeps it, and ignores the buffers.
func TestSig(t *testing.T) {
	t1, t2 := &images.Team{}, &images.Team{}
	base := plan.Key{Kind: plan.ReduceAll, Team: t1, Flags: 1 << 3, Root: 1, N: 8, ElemSize: 8, Count: 4, Fn: 1, Arg: 2,
		SrcLayout: alg.Layout{BlockSize: 1}, DstLayout: alg.Layout{BlockSize: 2, Offset: 1}}
	vary := map[string]func(k *plan.Key){
		"kind":      func(k *plan.Key) { k.Kind = plan.Reduce },
		"team":      func(k *plan.Key) { k.Team = t2 },
		"flags":     func(k *plan.Key) { k.Flags |= 1 << 6 },
		"root":      func(k *plan.Key) { k.Root = 2 },
		"n":         func(k *plan.Key) { k.N = 1<<32 + 8 },
		"es":        func(k *plan.Key) { k.ElemSize = 16 },
		"count":     func(k *plan.Key) { k.Count = 5 },
		"fn":        func(k *plan.Key) { k.Fn = 0 },
		"arg":       func(k *plan.Key) { k.Arg = -2 },
		"sl":        func(k *plan.Key) { k.SrcLayout.BlockSize = 2 },
		"sl.Offset": func(k *plan.Key) { k.SrcLayout.Offset = 1 },
		"dl":        func(k *plan.Key) { k.DstLayout.BlockSize = 3 },
		"dl.Offset": func(k *plan.Key) { k.DstLayout.Offset = 0 },
	}
	for name, f := range vary {
		k := base
		f(&k)
		if lineWord(&k)&lineSig == lineWord(&base)&lineSig {
			t.Errorf("%s: same signature %#x", name, lineWord(&k))
		}
	}
	k := base
	k.Dst, k.Src, k.BH = plan.IDOf(make([]byte, 8)), plan.IDOf(make([]byte, 3)), 7
	if lineWord(&k) != lineWord(&base) {
		t.Error("the buffers change the signature")
	}
}
