package coll

import (
	"fmt"
	"os"
	"slices"
	"strings"
	stdsync "sync"
	"time"

	"github.com/gocoll/gocoll/coll/internal/plan"
)

// The stall watchdog's coll side (the waits are internal/engine's): the
// timeout, and what a stalled collective says it waits for.

// DefaultStallTimeout is how long a wait may see no progress before it
// fails with ErrStalled, when neither Options.StallTimeout nor GOCOLL_STALL
// says otherwise. Progress is counted only while the node waits, so the
// time is spent by the node's peers: a peer that computes or writes a
// checkpoint for longer before it enters the collective trips it. Ten
// minutes is far beyond the seconds that phases between collectives take
// in the codes gocoll serves, and well inside the hours a batch
// allocation lasts, so that a skipped call, an image that returned early
// or a dead peer ends the job with an error naming the peers it waits for
// instead of burning the allocation in a hang. Codes with longer phases on
// one image raise it or turn it off (GOCOLL_STALL=off).
const DefaultStallTimeout = 10 * time.Minute

// envStall is GOCOLL_STALL, read once: a duration ("90s", "10m"), or "0"
// or "off" for no watchdog; unset is the default.
var envStall = stdsync.OnceValues(func() (time.Duration, error) {
	v, ok := os.LookupEnv("GOCOLL_STALL")
	switch {
	case !ok || v == "":
		return 0, nil
	case v == "off" || v == "0":
		return -1, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%w: GOCOLL_STALL=%q is not a positive duration (such as 90s or 10m), 0 or off", ErrStallTimeout, v)
	}
	return d, nil
})

// stallTimeout is the watchdog's timeout for opts, 0 for none:
// Options.StallTimeout when set (negative: none), else GOCOLL_STALL, else
// DefaultStallTimeout.
func stallTimeout(opts Options) time.Duration {
	d := opts.StallTimeout
	if d == 0 {
		d, _ = envStall()
	}
	switch {
	case d < 0:
		return 0
	case d == 0:
		return DefaultStallTimeout
	}
	return d
}

// seqOf is the full sequence number on the team of the operation with tag
// base tagBase (whose tag holds its low seqBits bits): the latest one with
// those bits taken so far.
func (tn *teamNode) seqOf(tagBase int) uint64 {
	low := uint64(tagBase>>subBits) & (1<<seqBits - 1)
	taken := tn.seq.Load()
	if taken == 0 {
		return low
	}
	last := taken - 1
	return last - (last-low)&(1<<seqBits-1)
}

// name names the team in messages.
func (tn *teamNode) name() string {
	if tn.all {
		return "TeamAll"
	}
	return fmt.Sprintf("team %d", tn.team.ID())
}

// imagesOn lists the team's images on the given nodes, ascending.
func (tn *teamNode) imagesOn(nodes []int) []int {
	var imgs []int
	for _, nd := range nodes {
		if q := tn.team.NodeRank(nd); q >= 0 {
			for _, r := range tn.team.Members(q) {
				imgs = append(imgs, tn.team.Image(r))
			}
		}
	}
	slices.Sort(imgs)
	return imgs
}

// peersInFlight are the nodes of the run's transfers in flight: receives
// posted and not complete, sends started and not complete.
func (o *schedOp) peersInFlight(nodes []int) []int {
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
func (tn *teamNode) waitsFor(nodes []int) string {
	slices.Sort(nodes)
	nodes = slices.Compact(nodes)
	if len(nodes) == 0 {
		return "no transfer in flight"
	}
	return fmt.Sprintf("waiting for images %v (nodes %v)", tn.imagesOn(nodes), nodes)
}

// Stalled implements engine.Staller.
func (o *schedOp) Stalled() string { return o.tn.stalled(o.key.Kind, o.tagBase, o.peersInFlight(nil)) }

// stalled says what the operation of kind k and tag base tagBase waits
// for: transfers to and from nodes.
func (tn *teamNode) stalled(k plan.Kind, tagBase int, nodes []int) string {
	return fmt.Sprintf("%v #%d on %s (node %d): %s", k, tn.seqOf(tagBase), tn.name(), tn.n.me, tn.waitsFor(nodes))
}

// Stalled implements engine.Staller.
func (a *aggOp) Stalled() string {
	var nodes []int
	for _, o := range a.subs {
		nodes = o.peersInFlight(nodes)
	}
	m := &a.members[len(a.members)-1]
	return fmt.Sprintf("an aggregate of %d collectives ending with %v #%d on %s (node %d): %s",
		len(a.members), m.key.Kind, a.tn.seqOf(m.tagBase), a.tn.name(), a.tn.n.me, a.tn.waitsFor(nodes))
}

// Stalled implements engine.Staller.
func (r *arrival) Stalled() string {
	if r.agg != nil {
		return r.agg.Stalled()
	}
	if op := r.inner.Load(); op != nil {
		return op.Stalled()
	}
	return r.waitingFor()
}

// waitingFor says which of the node's members have not called the
// record's collective yet (a pending handle's stalled wait).
func (r *arrival) waitingFor() string {
	tn := r.tn
	if tn == nil {
		return "a collective that ended"
	}
	tn.amu.Lock()
	var missing []int
	for m, ok := range r.joined {
		if !ok {
			missing = append(missing, tn.team.Image(tn.mem[m]))
		}
	}
	tn.amu.Unlock()
	num := fmt.Sprintf("AllThreads call #%d", r.num)
	if !tn.local {
		num = fmt.Sprintf("#%d", tn.seqOf(r.tagBase))
	}
	return fmt.Sprintf("%v %s on %s (node %d): images %s of the node have not called it",
		r.c.Key.Kind, num, tn.name(), tn.n.me, strings.Trim(fmt.Sprint(missing), "[]"))
}
