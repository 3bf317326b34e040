package colltest

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/images"
	gsync "github.com/gocoll/gocoll/sync"
)

// AggregateConfig sizes Aggregates.
type AggregateConfig struct {
	// Members are the aggregate sizes tried, in turn (default 1, 2, 3, 7,
	// 16, 64).
	Members []int
	// Rounds is how many aggregates of each size (default 2).
	Rounds int
	// Seed picks the members (the same on every image).
	Seed uint64
	// Sizes, when set, are the block sizes members draw from; by default
	// 1 to 300 bytes.
	Sizes []int
}

// Aggregates checks aggregation (the Aggregate flag) on team t; every image
// of t calls it, nd being its node. Each aggregate has members of random
// kinds, roots, block sizes (cfg.Sizes) and sync modes (all nine),
// initiated with Aggregate, and a Last member without it, blocking or
// not; the Last's sync must complete every member, whose destinations are
// then checked as if each had run alone. Aggregates alternate between
// every image calling (AllThreads) and a representative calling the m
// forms for its node.
func Aggregates(im *coll.Image, nd *Node, t *images.Team, cfg AggregateConfig) error {
	if cfg.Members == nil {
		cfg.Members = []int{1, 2, 3, 7, 16, 64}
	}
	if cfg.Rounds == 0 {
		cfg.Rounds = 2
	}
	P := t.Size()
	me := t.Rank(im.ImageNum())
	local := t.Members(t.NodeRank(im.Node()))
	rng := rand.New(rand.NewPCG(cfg.Seed, uint64(P)))
	group := fmt.Sprintf("aggregates %d", t.ID())
	it := 500000
	ins := []gsync.Flags{gsync.InNoSync, gsync.InMySync, gsync.InAllSync}
	outs := []gsync.Flags{gsync.OutNoSync, gsync.OutMySync, gsync.OutAllSync}
	for _, members := range cfg.Members {
		for round := range cfg.Rounds {
			rep := round%2 == 1
			addr := []gsync.Flags{gsync.Local, gsync.Single}[rng.IntN(2)]
			lastBlocking := rng.IntN(2) == 0
			ranks, fm := []int{me}, EveryImage
			if rep {
				ranks, fm = local, Representative
			}
			calling := !rep || local[0] == me
			var cs []*mcall
			var relaxed bool // a member in OUT_NOSYNC: complete only once every node synced
			for i := range members {
				it++
				k := &kinds[rng.IntN(len(kinds))]
				root := rng.IntN(P)
				n := 1 + rng.IntN(300)
				if cfg.Sizes != nil {
					n = cfg.Sizes[rng.IntN(len(cfg.Sizes))]
				}
				f := ins[rng.IntN(3)] | outs[rng.IntN(3)] | addr
				relaxed = relaxed || f.Out() == gsync.OutNoSync
				if !rep {
					f |= gsync.AllThreads
				}
				if i < members-1 {
					f |= gsync.Aggregate
				}
				if !k.rooted {
					root = 0
				}
				if calling {
					cs = append(cs, newMCall(im, t, k, it, root, n, f, fm, ranks))
				}
			}
			if rep {
				nd.Rendezvous(group, len(local))
			}
			var last gsync.Handle
			for i, c := range cs {
				h, err := c.start(im)
				if err == nil && i == len(cs)-1 && lastBlocking {
					err = h.Wait(context.Background())
					h = gsync.Handle{}
				}
				if err != nil {
					return fmt.Errorf("aggregate of %d, member %d (%s root %d n=%d %v): %w", members, i, c.k.name, c.root, c.n, c.f, err)
				}
				if i < len(cs)-1 && h.Valid() {
					return fmt.Errorf("aggregate of %d, member %d: a member's handle is valid", members, i)
				}
				last = h
			}
			if err := last.Wait(context.Background()); err != nil {
				return fmt.Errorf("aggregate of %d: %w", members, err)
			}
			if rep {
				nd.Rendezvous(group, len(local))
			}
			if relaxed { // OUT_NOSYNC: a node's data may still be moving until every node synced
				if err := im.Barrier(t); err != nil {
					return err
				}
			}
			for i, c := range cs {
				if err := c.check(); err != nil {
					return fmt.Errorf("aggregate of %d, member %d (%s root %d n=%d %v): %w", members, i, c.k.name, c.root, c.n, c.f, err)
				}
			}
		}
	}
	return im.Barrier(t)
}
