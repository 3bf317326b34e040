package coll

import (
	gsync "github.com/gocoll/gocoll/sync"
)

// barrierRounds is a dissemination barrier [Mellor-Crummey91]: in round i
// node p signals (p+2^i) mod P and waits for (p-2^i) mod P; after
// ceil(lg P) rounds every node knows that every node has arrived.
func barrierRounds(g geom, sub int) []round {
	var rs []round
	for i := 0; 1<<i < g.P; i++ {
		d := 1 << i
		rs = append(rs, round{
			sends: []xfer{{peer: g.node((g.me + d) % g.P), sub: sub + i, buf: []byte{}}},
			recvs: []xfer{{peer: g.node((g.me - d + g.P) % g.P), sub: sub + i, buf: []byte{}}},
		})
	}
	return rs
}

// withSync wraps a data schedule with what the flags' sync modes need beyond
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
func withSync(g geom, f gsync.Flags, data []round) []round {
	if f.In() != gsync.InAllSync && f.Out() != gsync.OutAllSync {
		return data
	}
	var rs []round
	if f.In() == gsync.InAllSync {
		rs = append(rs, barrierRounds(g, subEntry)...)
	}
	rs = append(rs, data...)
	if f.Out() == gsync.OutAllSync {
		exit := barrierRounds(g, subExit)
		if len(exit) > 0 {
			exit[0].afterSends = true
		}
		rs = append(rs, exit...)
	}
	return rs
}
