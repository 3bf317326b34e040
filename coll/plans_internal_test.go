package coll

import (
	"reflect"
	"slices"
	"testing"
	"unsafe"

	"github.com/gocoll/gocoll/coll/internal/alg"
	"github.com/gocoll/gocoll/coll/internal/plan"
	gsync "github.com/gocoll/gocoll/sync"
)

// A cached schedule runs again only once the operation that last ran it is
// retired; busy entries are never evicted; keys differ by every argument.
func TestPlanCache(t *testing.T) {
	var c planCache
	n := &node{}
	tn := &teamNode{n: n}
	buf := make([]byte, 16)
	key := func(root int) plan.Key {
		return plan.Key{Kind: plan.Broadcast, Flags: gsync.InMySync | gsync.OutMySync | gsync.Local, Root: root, N: 8, Dst: plan.IDOf(buf[:8]), Src: plan.IDOf(buf[8:])}
	}
	newOp := func(k plan.Key) *schedOp {
		return newSchedOp(n, tn, &plan.Call{Key: k, Dst: [][]byte{buf[:8]}, Src: [][]byte{buf[8:]}}, []alg.Round{{Sends: []alg.Xfer{{Peer: 1, Buf: buf[:8], Client: true}}}}, &alg.Scratch{})
	}
	k0 := key(0)
	if c.take(&plan.Call{Key: k0, Dst: [][]byte{buf[:8]}, Src: [][]byte{buf[8:]}}) != nil {
		t.Fatal("empty cache returned a schedule")
	}
	o := newOp(k0)
	c.keep(o)
	if !o.cached {
		t.Fatal("a small schedule was not cached")
	}
	if c.take(&plan.Call{Key: k0, Dst: [][]byte{buf[:8]}, Src: [][]byte{buf[8:]}}) != nil {
		t.Fatal("a busy schedule was handed out")
	}
	o.next, o.left = 1, 0 // as after a run
	o.Retire()
	got := c.take(&plan.Call{Key: k0, Dst: [][]byte{buf[:8]}, Src: [][]byte{buf[8:]}})
	if got != o {
		t.Fatal("an idle cached schedule was not reused")
	}
	if got.next != 0 || got.posted || got.state[0].sendLeft != 1 || got.clientLeft != 1 {
		t.Fatalf("reused schedule not reset: next %d posted %v sendLeft %d clientLeft %d",
			got.next, got.posted, got.state[0].sendLeft, got.clientLeft)
	}
	k1 := key(1)
	if c.take(&plan.Call{Key: k1, Dst: [][]byte{buf[:8]}, Src: [][]byte{buf[8:]}}) != nil {
		t.Fatal("a schedule was handed out for another root")
	}
	// o is busy again: filling every way must not evict it.
	for r := 2; r < 2+2*planWays; r++ {
		c.keep(newOp(key(r)))
	}
	o.Retire()
	if c.take(&plan.Call{Key: k0, Dst: [][]byte{buf[:8]}, Src: [][]byte{buf[8:]}}) != o {
		t.Fatal("a busy schedule was evicted")
	}
}

// The schedules a node caches hold at most planBudget bytes together, and
// one over it is never cached.
func TestPlanBudget(t *testing.T) {
	var c planCache
	n := &node{}
	tn := &teamNode{n: n}
	buf := make([]byte, 16)
	newOp := func(k plan.Key) *schedOp {
		return newSchedOp(n, tn, &plan.Call{Key: k, Dst: [][]byte{buf[:8]}, Src: [][]byte{buf[8:]}}, []alg.Round{{Sends: []alg.Xfer{{Peer: 1, Buf: buf[:8], Client: true}}}}, &alg.Scratch{})
	}
	big := make([]byte, planBudget/2)
	kb := plan.Key{Kind: plan.Broadcast, N: len(big), Dst: plan.IDOf(big)}
	ob := newOp(kb)
	c.keep(ob)
	if !ob.cached {
		t.Fatal("a schedule within the budget was not cached")
	}
	kb.Root = 1
	ob2 := newOp(kb)
	c.keep(ob2)
	if !ob2.cached {
		t.Fatal("a second schedule within the budget was not cached")
	}
	kb.Root = 2
	ob3 := newOp(kb)
	c.keep(ob3)
	if ob3.cached {
		t.Fatalf("a schedule past the budget was cached: %d bytes held", c.held.Load())
	}
	ob.Retire()
	c.keep(ob3) // in place of ob, idle now: within the budget again
	if !ob3.cached || c.held.Load() > planBudget {
		t.Fatalf("a schedule that replaces an idle one was not cached, or the budget not kept: %d bytes held", c.held.Load())
	}
	huge := plan.Key{Kind: plan.Gather, N: planBudget + 1, Dst: plan.BufID{N: planBudget + 1}}
	oh := newOp(huge)
	c.keep(oh)
	if oh.cached {
		t.Fatal("a schedule over the whole budget was cached")
	}
}

// planKey.equal must be ==: a key equals its copy, and changing any one
// field (each in turn, found by reflection, so that a field added later is
// covered) makes two keys differ.
func TestPlanKeyEqual(t *testing.T) {
	buf := make([]byte, 16)
	base := plan.Key{Kind: plan.ReduceAll, Flags: gsync.InMySync | gsync.OutMySync | gsync.Local, Root: 1, N: 2,
		Dst: plan.IDOf(buf[:8]), Src: plan.IDOf(buf[8:]), BH: 3, ElemSize: 8, Count: 4, Fn: 5, Arg: 6,
		SrcLayout: alg.Layout{BlockSize: 1, Offset: 2}, DstLayout: alg.Layout{BlockSize: 3, Offset: 4}}
	if k := base; !k.Equal(&base) {
		t.Fatal("a key differs from its copy")
	}
	var paths [][]int // index paths of the leaf fields
	var walk func(typ reflect.Type, at []int)
	walk = func(typ reflect.Type, at []int) {
		if typ.Kind() != reflect.Struct {
			paths = append(paths, at)
			return
		}
		for i := range typ.NumField() {
			walk(typ.Field(i).Type, append(slices.Clone(at), i))
		}
	}
	walk(reflect.TypeOf(base), nil)
	for _, path := range paths {
		k := base
		f := reflect.ValueOf(&k).Elem().FieldByIndex(path)
		f = reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem() // settable, unexported or not
		switch {
		case f.CanInt():
			f.SetInt(f.Int() + 1)
		case f.CanUint():
			f.SetUint(f.Uint() + 1)
		case f.Kind() == reflect.Pointer:
			f.Set(reflect.New(f.Type().Elem()))
		default:
			t.Fatalf("field %v of kind %v: teach this test to change it", path, f.Kind())
		}
		if k.Equal(&base) || base.Equal(&k) {
			t.Errorf("keys that differ in field %v are equal", path)
		}
	}
	if len(paths) < 17 {
		t.Fatalf("only %d fields checked", len(paths))
	}
}

// TestAggregateBudget: a team's cached aggregates count in the node's
// budget with its cached schedules: one that would pass it is not kept
// unless it replaces an idle one, and a destroyed team's give their bytes
// back.
func TestAggregateBudget(t *testing.T) {
	var pc planCache
	var ag aggregate
	big := make([]byte, planBudget/2)
	newAgg := func() *aggOp { return &aggOp{members: []aggCall{{dst: big}}} }
	a1, a2, a3 := newAgg(), newAgg(), newAgg()
	ag.keep(&pc, a1)
	ag.keep(&pc, a2)
	if !a1.cached || !a2.cached || pc.held.Load() != planBudget {
		t.Fatalf("two aggregates within the budget: cached %v %v, %d bytes held", a1.cached, a2.cached, pc.held.Load())
	}
	n := &node{}
	buf := make([]byte, 16)
	o := newSchedOp(n, &teamNode{n: n}, &plan.Call{Key: plan.Key{Kind: plan.Broadcast, N: 8, Dst: plan.IDOf(buf[:8]), Src: plan.IDOf(buf[8:])}, Dst: [][]byte{buf[:8]}, Src: [][]byte{buf[8:]}},
		[]alg.Round{{Sends: []alg.Xfer{{Peer: 1, Buf: buf[:8], Client: true}}}}, &alg.Scratch{})
	pc.keep(o)
	if o.cached {
		t.Fatal("a schedule was cached past the budget the aggregates hold")
	}
	ag.keep(&pc, a3)
	if a3.cached {
		t.Fatal("an aggregate was cached in place of running ones")
	}
	a1.idle.Store(true) // as its Retire does
	ag.keep(&pc, a3)
	if !a3.cached || pc.held.Load() != planBudget {
		t.Fatalf("an aggregate in place of an idle one: cached %v, %d bytes held", a3.cached, pc.held.Load())
	}
	ag.drop(&pc)
	if pc.held.Load() != 0 {
		t.Fatalf("a dropped team's aggregates left %d bytes in the budget", pc.held.Load())
	}
}
