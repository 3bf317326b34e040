package core

import (
	"encoding/binary"
	"fmt"

	"github.com/gocoll/gocoll/coll/internal/alg"
	"github.com/gocoll/gocoll/coll/internal/exec"
	"github.com/gocoll/gocoll/coll/internal/plan"
	gsync "github.com/gocoll/gocoll/sync"
)

// Argument agreement: what every image of a team must pass alike to a
// collective, in one place. The spec calls a collective whose arguments
// differ across images erroneous; gocoll turns it into plan.ErrMismatch at two
// prices.
//
// Checked mode (Options.Check, or GOCOLL_CHECK=1 at Init): before a
// collective moves data, its nodes gather every node's 16-byte block (a
// 64-bit hash of the agreed arguments and the collective's full sequence
// number on the team) with one small gather_all of their own, on the
// collective's own tag with sub-tags no data message uses. The team's
// agreement schedule is built once and run again by every checked call
// (agreement), so the price is that one small collective and no
// allocation. Every node then holds every block, so every node sees the
// same disagreement; only then do they gather the full signatures
// (sigSize bytes, nameMismatch) to name the argument and both calls. No
// data moves and no receive of the collective is posted. A gather_all of
// blocks costs what a min/max reduce-all of hashes would at the sizes
// gocoll runs (one message per peer, or ceil(lg P) rounds of
// dissemination). The initiation waits for the agreement, so a
// non-blocking collective gives up its overlap in checked mode.
//
// Default mode: every non-empty message of a collective carries a 16-byte
// header: the collective's full sequence number on the team, a hash of the
// agreed arguments and the payload's length (internal/exec/wire.go). The tag already
// holds the context, the sequence number modulo 2^seqBits and the sub-tag,
// so a message of another collective never matches a receive (MPI tags
// have no room for more: MPI_TAG_UB may be 2^31-1, which the tag fills); a
// message that matches (same sequence number, so the same call by count)
// but was sent with other arguments, another length, or 2^seqBits
// collectives earlier and left unmatched, fails the receiving operation
// with plan.ErrMismatch before a byte reaches the caller's memory. A mismatch
// that makes a node expect a message nobody sends (another root, another
// tree) leaves it waiting, not writing: a hang that the stall watchdog
// turns into an error.

// subAgree is where the agreement's sub-tags start: above the one-sided
// path's (internal/exec/segment.go), below the prefix redistribution's (subReblock).
const subAgree = 128

// A node's signature block in the agreement: a 64-bit hash of the agreed
// arguments and the full sequence number. Equal blocks are taken for equal
// calls (two different calls collide with odds of 2^-64); a difference
// makes every node gather the full signatures (sigSize bytes) to name it.
const blockSize = 16

// agreement is a team's cached agreement schedule: its block, every node's
// blocks, and the schedule that gathers them, run again once idle. The
// agreements of one team never overlap (initiations on a team come one at
// a time), so one suffices; a busy one (a failed run may leave a receive
// pending) is replaced.
type agreement struct {
	op        *exec.Sched
	mine, all []byte
}

// agreeOn runs, in checked mode, the agreement on call c's arguments
// among the team's nodes under the call's tag base, and waits for it. The
// error, if any, is the same on every node: the first node rank whose
// signature differs from node rank 0's, against node rank 0's.
func (n *node) agreeOn(tn *teamNode, c *plan.Call, base int) error {
	if !n.checking(tn) {
		return nil
	}
	s := plan.SigOf(&c.Key)
	s.Seq = exec.TagSeq(base)
	ag := tn.agreement(n)
	binary.LittleEndian.PutUint64(ag.mine, s.Hash64())
	binary.LittleEndian.PutUint64(ag.mine[8:], s.Seq)
	ag.op.TagBase = base
	if err := Wait(n.eng.Start(ag.op)); err != nil {
		return err
	}
	for q := blockSize; q < len(ag.all); q += blockSize {
		if string(ag.all[q:q+blockSize]) != string(ag.all[:blockSize]) {
			return n.nameMismatch(tn, &s, base)
		}
	}
	return nil
}

// agreement returns tn's agreement schedule, reset and claimed.
func (tn *teamNode) agreement(n *node) *agreement {
	if ag := tn.agree.Load(); ag != nil && ag.op.Idle.CompareAndSwap(true, false) {
		ag.op.Reset()
		return ag
	}
	g := tn.Geom(blockSize)
	ag := &agreement{mine: make([]byte, blockSize), all: make([]byte, g.P*blockSize)}
	ag.op = agreeOp(n, tn, g, ag.mine, ag.all, 0, 0)
	ag.op.Hold() // idle once retired: see Retire
	tn.agree.Store(ag)
	return ag
}

// nameMismatch gathers every node's full signature (the blocks differed,
// on every node alike) and returns the error naming the first difference.
func (n *node) nameMismatch(tn *teamNode, s *plan.Sig, base int) error {
	g := tn.Geom(plan.SigSize)
	mine, all := make([]byte, plan.SigSize), make([]byte, g.P*plan.SigSize)
	s.Encode(mine)
	if err := Wait(n.eng.Start(agreeOp(n, tn, g, mine, all, base, agreeSubs))); err != nil {
		return err
	}
	t := tn.Team
	for q := 1; q < g.P; q++ {
		if string(all[q*plan.SigSize:(q+1)*plan.SigSize]) != string(all[:plan.SigSize]) {
			s0, sq := plan.DecodeSig(all[:plan.SigSize]), plan.DecodeSig(all[q*plan.SigSize:(q+1)*plan.SigSize])
			return plan.MismatchErr(t.Image(t.Members(0)[0]), &s0, t.Image(t.Members(q)[0]), &sq)
		}
	}
	// Blocks differ only where signatures do; equal signatures here would
	// be a broken hash.
	return fmt.Errorf("%w: signature blocks differ but signatures agree (call %d)", plan.ErrMismatch, s.Seq)
}

// agreeSubs is the number of sub-tags one gather of the agreement may use
// (dissemination's rounds, at most lg 2^14); the full signatures' gather
// takes the next ones, below subReblock.
const agreeSubs = 15

// agreeOp gathers every node's block (mine, of len(mine) bytes) into all,
// one block per node rank, on the sub-tags from subAgree+sub of tag base
// base.
func agreeOp(n *node, tn *teamNode, g alg.Geom, mine, all []byte, base, sub int) *exec.Sched {
	po := make([]int, g.P+1)
	for q := range po {
		po[q] = q
	}
	algo := n.gatherAllAlgo(g.P, len(mine))
	if g.P > 1<<14 { // dissemination's sub-tags would reach subReblock
		algo = alg.GatherAllExchange
	}
	rs := alg.GatherAllRounds(g, algo, all, true, po, [][]byte{mine}) // client: synced once all is filled
	for r := range rs {
		for i := range rs[r].Sends {
			rs[r].Sends[i].Sub += subAgree + sub
		}
		for i := range rs[r].Recvs {
			rs[r].Recvs[i].Sub += subAgree + sub
		}
	}
	key := plan.Key{Kind: plan.GatherAll, Team: tn.Team, Flags: gsync.InNoSync | gsync.OutMySync | gsync.Local, N: len(mine)}
	op := exec.NewRawOp(&tn.TeamNode, key, rs, gsync.OutMySync, nil, base)
	op.Preset = true
	return op
}
