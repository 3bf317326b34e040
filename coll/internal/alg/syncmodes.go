package alg

import (
	gsync "github.com/gocoll/gocoll/sync"
)

// Sub-tags (below subBits of the tag): data messages use 0..SubEntry-1,
// the barriers their own ranges, so that they never match data.
const (
	subReblock = SubEntry - 1 // the redistribution of prefix results
	SubEntry   = 160          // + round, entry barrier
	SubExit    = 192          // + round, exit barrier
	SubBar     = 224          // + round, the Barrier collective
)

// BarrierRounds is a dissemination barrier [Mellor-Crummey91]: in round i
// node p signals (p+2^i) mod P and waits for (p-2^i) mod P; after
// ceil(lg P) rounds every node knows that every node has arrived.
func BarrierRounds(g Geom, sub int) []Round {
	var rs []Round
	for i := 0; 1<<i < g.P; i++ {
		d := 1 << i
		rs = append(rs, Round{
			Sends: []Xfer{{Peer: g.node((g.Me + d) % g.P), Sub: sub + i, Buf: []byte{}}},
			Recvs: []Xfer{{Peer: g.node((g.Me - d + g.P) % g.P), Sub: sub + i, Buf: []byte{}}},
		})
	}
	return rs
}

// WithSync wraps a data schedule with what the flags' sync modes need beyond
// point-to-point transfers. It is the one place where input sync modes are
// enforced:
//
//   - IN_NOSYNC and IN_MYSYNC need nothing: a transfer reads its source only
//     once the sending node has entered (it posts the send) and writes its
//     destination only once the receiving node has entered (it posts the
//     receive), which is IN_MYSYNC, and IN_MYSYNC implies IN_NOSYNC.
//   - IN_ALLSYNC prepends a dissemination barrier: no copy or send of the
//     data rounds starts before every node has entered.
//
// OUT_ALLSYNC appends a second barrier that starts only once every transfer
// of this node is complete (afterSends); OUT_MYSYNC and OUT_NOSYNC are
// decided by the executor's Syncable.
func WithSync(g Geom, f gsync.Flags, data []Round) []Round {
	if f.In() != gsync.InAllSync && f.Out() != gsync.OutAllSync {
		return data
	}
	var rs []Round
	if f.In() == gsync.InAllSync {
		rs = append(rs, BarrierRounds(g, SubEntry)...)
	}
	rs = append(rs, data...)
	if f.Out() == gsync.OutAllSync {
		exit := BarrierRounds(g, SubExit)
		if len(exit) > 0 {
			exit[0].AfterSends = true
		}
		rs = append(rs, exit...)
	}
	return rs
}
