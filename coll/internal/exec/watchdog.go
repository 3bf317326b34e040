package exec

import (
	"fmt"
	"slices"

	"github.com/gocoll/gocoll/coll/internal/plan"
	"github.com/gocoll/gocoll/images"
)

// The stall watchdog's coll side (the waits are internal/engine's): the
// timeout, and what a stalled collective says it waits for.

// SeqOf is the full sequence number on the team of the operation with tag
// base tagBase (whose tag holds its low seqBits bits): the latest one with
// those bits taken so far.
func (tn *TeamNode) SeqOf(tagBase int) uint64 {
	low := uint64(tagBase>>SubBits) & (1<<SeqBits - 1)
	taken := tn.Seq.Load()
	if taken == 0 {
		return low
	}
	last := taken - 1
	return last - (last-low)&(1<<SeqBits-1)
}

// Name names the team in messages.
func (tn *TeamNode) Name() string {
	if tn.All {
		return "TeamAll"
	}
	return fmt.Sprintf("team %d", tn.Team.ID())
}

// imagesOn lists the team's images on the given nodes, ascending.
func (tn *TeamNode) imagesOn(nodes []int) []int {
	var imgs []int
	for _, nd := range nodes {
		if q := tn.Team.NodeRank(nd); q >= 0 {
			for _, r := range tn.Team.Members(q) {
				imgs = append(imgs, tn.Team.Image(r))
			}
		}
	}
	slices.Sort(imgs)
	return imgs
}

// peersInFlight are the nodes of the run's transfers in flight: receives
// posted and not complete, sends started and not complete.
func (o *Sched) peersInFlight(nodes []int) []int {
	i := 0
	for r := range o.rounds {
		for _, x := range o.rounds[r].Recvs {
			if o.posted && i < len(o.items) && !o.items[i].done {
				nodes = append(nodes, x.Peer)
			}
			i++
		}
	}
	for r := 0; r < o.next && r < len(o.rounds); r++ {
		for k, x := range o.rounds[r].Sends {
			if idx := o.state[r].sendAt + k; idx < len(o.items) && !o.items[idx].done {
				nodes = append(nodes, x.Peer)
			}
		}
	}
	return nodes
}

// waitsFor says which images the transfers to and from nodes concern.
func (tn *TeamNode) waitsFor(nodes []int) string {
	slices.Sort(nodes)
	nodes = slices.Compact(nodes)
	if len(nodes) == 0 {
		return "no transfer in flight"
	}
	return fmt.Sprintf("waiting for images %v (nodes %v)", tn.imagesOn(nodes), nodes)
}

// Stalled implements engine.Staller.
func (o *Sched) Stalled() string { return o.tn.stalled(o.key.Kind, o.TagBase, o.peersInFlight(nil)) }

// stalled says what the operation of kind k and tag base tagBase waits
// for: transfers to and from nodes.
func (tn *TeamNode) stalled(k plan.Kind, tagBase int, nodes []int) string {
	return fmt.Sprintf("%v #%d on %s (node %d): %s", k, tn.SeqOf(tagBase), tn.Name(), tn.N.Me, tn.waitsFor(nodes))
}

// Stalled implements engine.Staller.
func (a *AggOp) Stalled() string {
	var nodes []int
	for _, o := range a.subs {
		nodes = o.peersInFlight(nodes)
	}
	m := &a.members[len(a.members)-1]
	return fmt.Sprintf("an aggregate of %d collectives ending with %v #%d on %s (node %d): %s",
		len(a.members), m.key.Kind, a.tn.SeqOf(m.tagBase), a.tn.Name(), a.tn.N.Me, a.tn.waitsFor(nodes))
}

// TeamSeq is the team the operation runs on and its sequence number there:
// package coll's ImageGone fails the operations that an image that is gone
// never started.
func (o *Sched) TeamSeq() (*images.Team, uint64) { return o.tn.Team, TagSeq(o.TagBase) }

// TeamSeq is the aggregate's team and the sequence number of its last
// member: a node starts an aggregate once its last member is called.
func (a *AggOp) TeamSeq() (*images.Team, uint64) {
	return a.tn.Team, TagSeq(a.members[len(a.members)-1].tagBase)
}
