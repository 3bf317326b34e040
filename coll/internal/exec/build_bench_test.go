package exec

import (
	"testing"

	"github.com/gocoll/gocoll/coll/internal/alg"
	"github.com/gocoll/gocoll/coll/internal/plan"
	"github.com/gocoll/gocoll/images"
	gsync "github.com/gocoll/gocoll/sync"
)

// BenchmarkNewSched times the making of a schedule the cache does not
// hold: a root's broadcast to one other node (its rounds and the Sched with
// its message headers), what a stream of calls whose earlier runs are
// still in flight pays on every call.
//
//	go test -run xxx -bench NewSched ./coll/internal/exec
func BenchmarkNewSched(b *testing.B) {
	t := images.OnePerNode(2).All()
	tn := &TeamNode{Team: t, N: &Node{}, Mem: t.Members(0)}
	buf := make([]byte, 128<<10)
	k := plan.Key{Kind: plan.Broadcast, Team: t, Flags: gsync.InNoSync | gsync.OutNoSync | gsync.Local, N: len(buf), Dst: plan.IDOf(buf), Src: plan.IDOf(buf)}
	c := &plan.Call{Key: k, Dst: [][]byte{buf}, Src: [][]byte{buf}}
	b.ReportAllocs()
	for b.Loop() {
		g := tn.Geom(k.N)
		NewSched(tn, c, alg.WithSync(g, k.Flags, alg.BroadcastSched(g, alg.Binomial, 0, c.Dst, c.Src)), g.Scratch, 0)
	}
}
