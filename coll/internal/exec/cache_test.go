package exec

import (
	"slices"
	"testing"

	"github.com/gocoll/gocoll/coll/internal/alg"
	"github.com/gocoll/gocoll/coll/internal/plan"
	gsync "github.com/gocoll/gocoll/sync"
)

// A cached schedule runs again only once the operation that last ran it is
// retired; busy entries are never evicted; keys differ by every argument.
func TestPlanCache(t *testing.T) {
	var c Cache
	tn := &TeamNode{N: &Node{}}
	buf := make([]byte, 16)
	key := func(root int) plan.Key {
		return plan.Key{Kind: plan.Broadcast, Flags: gsync.InMySync | gsync.OutMySync | gsync.Local, Root: root, N: 8, Dst: plan.IDOf(buf[:8]), Src: plan.IDOf(buf[8:])}
	}
	newOp := func(k plan.Key) *Sched {
		return NewSched(tn, &plan.Call{Key: k, Dst: [][]byte{buf[:8]}, Src: [][]byte{buf[8:]}}, []alg.Round{{Sends: []alg.Xfer{{Peer: 1, Buf: buf[:8], Client: true}}}}, &alg.Scratch{}, 0)
	}
	k0 := key(0)
	if c.Take(&plan.Call{Key: k0, Dst: [][]byte{buf[:8]}, Src: [][]byte{buf[8:]}}) != nil {
		t.Fatal("empty cache returned a schedule")
	}
	o := newOp(k0)
	c.Keep(o)
	if !o.Cached {
		t.Fatal("a small schedule was not cached")
	}
	if c.Take(&plan.Call{Key: k0, Dst: [][]byte{buf[:8]}, Src: [][]byte{buf[8:]}}) != nil {
		t.Fatal("a busy schedule was handed out")
	}
	o.next, o.left = 1, 0 // as after a run
	o.Retire()
	got := c.Take(&plan.Call{Key: k0, Dst: [][]byte{buf[:8]}, Src: [][]byte{buf[8:]}})
	if got != o {
		t.Fatal("an idle cached schedule was not reused")
	}
	if got.next != 0 || got.posted || got.state[0].sendLeft != 1 || got.clientLeft != 1 {
		t.Fatalf("reused schedule not reset: next %d posted %v sendLeft %d clientLeft %d",
			got.next, got.posted, got.state[0].sendLeft, got.clientLeft)
	}
	k1 := key(1)
	if c.Take(&plan.Call{Key: k1, Dst: [][]byte{buf[:8]}, Src: [][]byte{buf[8:]}}) != nil {
		t.Fatal("a schedule was handed out for another root")
	}
	// o is busy again: filling every way must not evict it.
	for r := 2; r < 2+2*planWays; r++ {
		c.Keep(newOp(key(r)))
	}
	o.Retire()
	if c.Take(&plan.Call{Key: k0, Dst: [][]byte{buf[:8]}, Src: [][]byte{buf[8:]}}) != o {
		t.Fatal("a busy schedule was evicted")
	}
}

// The schedules a node caches hold at most planBudget bytes together, and
// one over it is never cached.
func TestPlanBudget(t *testing.T) {
	var c Cache
	tn := &TeamNode{N: &Node{}}
	buf := make([]byte, 16)
	newOp := func(k plan.Key) *Sched {
		return NewSched(tn, &plan.Call{Key: k, Dst: [][]byte{buf[:8]}, Src: [][]byte{buf[8:]}}, []alg.Round{{Sends: []alg.Xfer{{Peer: 1, Buf: buf[:8], Client: true}}}}, &alg.Scratch{}, 0)
	}
	big := make([]byte, planBudget/2)
	kb := plan.Key{Kind: plan.Broadcast, N: len(big), Dst: plan.IDOf(big)}
	ob := newOp(kb)
	c.Keep(ob)
	if !ob.Cached {
		t.Fatal("a schedule within the budget was not cached")
	}
	kb.Root = 1
	ob2 := newOp(kb)
	c.Keep(ob2)
	if !ob2.Cached {
		t.Fatal("a second schedule within the budget was not cached")
	}
	kb.Root = 2
	ob3 := newOp(kb)
	c.Keep(ob3)
	if ob3.Cached {
		t.Fatalf("a schedule past the budget was cached: %d bytes held", c.held.Load())
	}
	ob.Retire()
	c.Keep(ob3) // in place of ob, idle now: within the budget again
	if !ob3.Cached || c.held.Load() > planBudget {
		t.Fatalf("a schedule that replaces an idle one was not cached, or the budget not kept: %d bytes held", c.held.Load())
	}
	huge := plan.Key{Kind: plan.Gather, N: planBudget + 1, Dst: plan.BufID{N: planBudget + 1}}
	oh := newOp(huge)
	c.Keep(oh)
	if oh.Cached {
		t.Fatal("a schedule over the whole budget was cached")
	}
}

// TestAggregateBudget: a team's cached aggregates count in the node's
// budget with its cached schedules: one that would pass it is not kept
// unless it replaces an idle one, and a destroyed team's give their bytes
// back.
func TestAggregateBudget(t *testing.T) {
	var pc Cache
	var ag Aggregate
	big := make([]byte, planBudget/2)
	newAgg := func() *AggOp { return &AggOp{members: []aggCall{{dst: big}}} }
	a1, a2, a3 := newAgg(), newAgg(), newAgg()
	ag.keep(&pc, a1)
	ag.keep(&pc, a2)
	if !a1.cached || !a2.cached || pc.held.Load() != planBudget {
		t.Fatalf("two aggregates within the budget: cached %v %v, %d bytes held", a1.cached, a2.cached, pc.held.Load())
	}
	o := smallBroadcast()
	pc.Keep(o)
	if o.Cached {
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
	ag.Drop(&pc)
	if pc.held.Load() != 0 {
		t.Fatalf("a dropped team's aggregates left %d bytes in the budget", pc.held.Load())
	}
}

// TestPlanEviction: a schedule that would pass the budget takes the room
// of idle ones, the least recently run first, whatever their kind; a
// running one is never dropped.
func TestPlanEviction(t *testing.T) {
	var c Cache
	tn := &TeamNode{N: &Node{}}
	small := make([]byte, 8)
	quarter := func(kind plan.Kind, root int) (*plan.Call, *Sched) {
		big := make([]byte, planBudget/4) // four (and their small sources) pass the budget
		cl := &plan.Call{Key: plan.Key{Kind: kind, Root: root, N: len(big), Dst: plan.IDOf(big), Src: plan.IDOf(small)}, Dst: [][]byte{big}, Src: [][]byte{small}}
		return cl, NewSched(tn, cl, []alg.Round{{Sends: []alg.Xfer{{Peer: 1, Buf: small, Client: true}}}}, &alg.Scratch{}, 0)
	}
	ran := func(o *Sched) {
		o.next, o.left = 1, 0 // as after a run
		o.Retire()
	}
	var calls [3]*plan.Call
	var ops [3]*Sched
	for r := range 3 {
		calls[r], ops[r] = quarter(plan.Gather, r)
		c.Keep(ops[r])
		if !ops[r].Cached {
			t.Fatalf("schedule %d within the budget was not cached", r)
		}
		ran(ops[r])
	}
	// Root 0 runs again: root 1 is now the least recently run.
	if c.Take(calls[0]) != ops[0] {
		t.Fatal("an idle cached schedule was not reused")
	}
	ran(ops[0])
	_, nb := quarter(plan.Broadcast, 0)
	c.Keep(nb)
	if !nb.Cached || c.held.Load() > planBudget {
		t.Fatalf("a schedule was not cached in the room of idle ones of another kind (%d bytes held)", c.held.Load())
	}
	if c.Take(calls[1]) != nil {
		t.Fatal("the least recently run schedule was kept")
	}
	for _, r := range []int{0, 2} {
		o := c.Take(calls[r])
		if o != ops[r] {
			t.Fatalf("schedule %d, run more recently, was dropped", r)
		}
		defer ran(o)
	}
	// Everything cached runs now (nb was never retired): nothing is dropped.
	_, nb2 := quarter(plan.Broadcast, 1)
	c.Keep(nb2)
	if nb2.Cached {
		t.Fatal("a schedule was cached in the room of running ones")
	}
}

// TestAggregateEviction: idle aggregates of a team take part in the
// eviction as schedules do (the least recently run first), so that a
// phase's aggregates do not keep the next phase's schedules out; a running
// one is never dropped.
func TestAggregateEviction(t *testing.T) {
	var pc Cache
	var ag Aggregate
	newAgg := func() *AggOp { return &AggOp{members: []aggCall{{dst: make([]byte, planBudget/2)}}} }
	a1, a2 := newAgg(), newAgg()
	ag.keep(&pc, a1)
	ag.keep(&pc, a2)
	a1.idle.Store(true) // as their Retire does; a2 still runs
	o := smallBroadcast()
	pc.Keep(o)
	if !o.Cached || slices.Contains(ag.cache[:], a1) {
		t.Fatalf("a schedule was not cached in the room of an idle aggregate: cached %v, aggregates %v", o.Cached, ag.cache)
	}
	if !slices.Contains(ag.cache[:], a2) {
		t.Fatal("a running aggregate was dropped")
	}
	ag.Drop(&pc)
	if len(pc.aggs) != 0 {
		t.Fatal("a dropped team's aggregate cache is still listed")
	}
}

// smallBroadcast is the schedule of an 8-byte Broadcast to one peer.
func smallBroadcast() *Sched {
	buf := make([]byte, 16)
	return NewSched(&TeamNode{N: &Node{}}, &plan.Call{Key: plan.Key{Kind: plan.Broadcast, N: 8, Dst: plan.IDOf(buf[:8]), Src: plan.IDOf(buf[8:])}, Dst: [][]byte{buf[:8]}, Src: [][]byte{buf[8:]}},
		[]alg.Round{{Sends: []alg.Xfer{{Peer: 1, Buf: buf[:8], Client: true}}}}, &alg.Scratch{}, 0)
}
