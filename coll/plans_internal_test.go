package coll

import (
	"testing"

	gsync "github.com/gocoll/gocoll/sync"
)

// A cached schedule runs again only once the operation that last ran it is
// retired; busy entries are never evicted; keys differ by every argument.
func TestPlanCache(t *testing.T) {
	var c planCache
	n := &node{}
	tn := &teamNode{n: n}
	buf := make([]byte, 16)
	key := func(root int) planKey {
		return planKey{kind: kBroadcast, f: gsync.InMySync | gsync.OutMySync | gsync.Local, root: root, n: 8, dst: idOf(buf[:8]), src: idOf(buf[8:])}
	}
	newOp := func(k planKey) *schedOp {
		return newSchedOp(n, tn, &call{key: k, dst: [][]byte{buf[:8]}, src: [][]byte{buf[8:]}}, []round{{sends: []xfer{{peer: 1, buf: buf[:8], client: true}}}}, &scratch{})
	}
	k0 := key(0)
	if c.take(&call{key: k0, dst: [][]byte{buf[:8]}, src: [][]byte{buf[8:]}}) != nil {
		t.Fatal("empty cache returned a schedule")
	}
	o := newOp(k0)
	c.keep(o)
	if !o.cached {
		t.Fatal("a small schedule was not cached")
	}
	if c.take(&call{key: k0, dst: [][]byte{buf[:8]}, src: [][]byte{buf[8:]}}) != nil {
		t.Fatal("a busy schedule was handed out")
	}
	o.next, o.left = 1, 0 // as after a run
	o.Retire()
	got := c.take(&call{key: k0, dst: [][]byte{buf[:8]}, src: [][]byte{buf[8:]}})
	if got != o {
		t.Fatal("an idle cached schedule was not reused")
	}
	if got.next != 0 || got.posted || got.state[0].sendLeft != 1 || got.clientLeft != 1 {
		t.Fatalf("reused schedule not reset: next %d posted %v sendLeft %d clientLeft %d",
			got.next, got.posted, got.state[0].sendLeft, got.clientLeft)
	}
	k1 := key(1)
	if c.take(&call{key: k1, dst: [][]byte{buf[:8]}, src: [][]byte{buf[8:]}}) != nil {
		t.Fatal("a schedule was handed out for another root")
	}
	// o is busy again: filling every way must not evict it.
	for r := 2; r < 2+2*planWays; r++ {
		c.keep(newOp(key(r)))
	}
	o.Retire()
	if c.take(&call{key: k0, dst: [][]byte{buf[:8]}, src: [][]byte{buf[8:]}}) != o {
		t.Fatal("a busy schedule was evicted")
	}
	// Large client buffers are not cached.
	big := make([]byte, cacheMaxBytes+1)
	kb := planKey{kind: kBroadcast, n: len(big), dst: idOf(big)}
	ob := newOp(kb)
	c.keep(ob)
	if ob.cached {
		t.Fatal("a schedule over a large buffer was cached")
	}
}
