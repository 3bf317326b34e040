package core

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math/bits"
	stdsync "sync"

	"github.com/gocoll/gocoll/images"
	gsync "github.com/gocoll/gocoll/sync"
)

// Teams. A team is made by a collective over its parent team (Split, or
// TeamFromImages), called by every image of the parent, and is unmade by
// Destroy, which each member calls for itself. A team is backed by a tag
// context: a few bits of every message's tag that tell its messages apart
// from those of other teams sharing nodes (node.go), so making a team costs
// two gather_alls on the parent and no call into the conduit, and a team
// hosted by one node needs no context at all. Contexts are few (64 with
// MPI's 31-bit tags); a node holds a context while a team with it lives
// there, and a new team takes one that is free on all of its nodes:
//
//  1. every image gives its color, key, a hash of its member list and its
//     node's contexts in use, by a gather_all over the parent;
//  2. every node computes the same groups and picks for each group on two
//     nodes or more the first context free on all of them (not taken by an
//     earlier group of this call on a shared node), starting from a place
//     derived from the call, so that concurrent creations seldom collide;
//  3. each node reserves its groups' contexts; a context taken meanwhile by
//     a concurrent creation on another team is a conflict;
//  4. a second gather_all spreads the conflicts; with any, every node
//     releases what it reserved and the creation tries again (up to
//     maxAttempts), else the teams exist.

const maxAttempts = 16

// createKey names a team creation on a node: the parent and its ordinal.
type createKey struct {
	tn *teamNode
	k  uint64
}

// creation is the node's shared state of one team creation: what its
// images computed once for all of them.
type creation struct {
	mu       stdsync.Mutex
	left     int            // local members of the parent still in it
	reserved map[int]uint64 // attempt -> contexts this node reserved
	conflict map[int]bool   // attempt -> a reservation failed
	released map[int]bool
	teams    []*images.Team // by group; nil where the node hosts no member
}

func (im *Image) makeTeam(parent *images.Team, color, key int, list []int) (*images.Team, error) {
	if err := im.checkNotPlanning(); err != nil {
		return nil, err
	}
	if err := im.noAggregate(parent); err != nil {
		return nil, err
	}
	it, err := im.team(parent)
	if err != nil {
		return nil, err
	}
	n, tn := im.n, it.tn
	byList := list != nil
	var listHash uint64
	if byList {
		h := fnv.New64a()
		for _, img := range list {
			_ = binary.Write(h, binary.LittleEndian, int64(img))
		}
		listHash = h.Sum64() | 1 // never 0, the hash of Split
		color, key = images.NoColor, 0
		for i, img := range list {
			if img == im.image {
				color, key = 0, i
			}
		}
	}
	ck := createKey{tn, it.creations}
	it.creations++
	cr := n.creationOf(ck, len(tn.Mem))
	defer n.leaveCreation(ck, cr)

	P := parent.Size()
	const entry = 32
	mine := make([]byte, entry)
	all := make([]byte, entry*P)
	for attempt := 0; ; attempt++ {
		binary.LittleEndian.PutUint64(mine, uint64(int64(color)))
		binary.LittleEndian.PutUint64(mine[8:], uint64(int64(key)))
		binary.LittleEndian.PutUint64(mine[16:], listHash)
		binary.LittleEndian.PutUint64(mine[24:], n.contexts())
		if err := Wait(im.GatherAll(parent, all, nil, mine, nil, false, entry, gsync.InMySync|gsync.OutMySync|gsync.Local|gsync.AllThreads, false)); err != nil {
			return nil, err
		}
		colors, keys := make([]int, P), make([]int, P)
		masks := make(map[int]uint64) // node -> contexts in use there
		for p := range P {
			e := all[entry*p:]
			colors[p] = int(int64(binary.LittleEndian.Uint64(e)))
			keys[p] = int(int64(binary.LittleEndian.Uint64(e[8:])))
			if h := binary.LittleEndian.Uint64(e[16:]); h != listHash {
				return nil, fmt.Errorf("%w: rank %d of the parent gave another member list", images.ErrMembers, p)
			}
			masks[n.table.NodeOf(parent.Image(p))] |= binary.LittleEndian.Uint64(e[24:])
		}
		if byList {
			if err := parent.CheckMembers(list); err != nil {
				return nil, err
			}
		}
		groups, _, err := images.SplitMembers(colors, keys)
		if err != nil {
			return nil, err
		}
		ctxs, err := n.pickContexts(parent, groups, masks, uint64(parent.ID())^ck.k*0x9e3779b97f4a7c15^uint64(attempt))
		if err != nil {
			return nil, err
		}
		conflict := cr.reserve(n, attempt, parent, groups, ctxs)
		var flag [8]byte
		if conflict {
			flag[0] = 1
		}
		flags := make([]byte, 8*P)
		if err := Wait(im.GatherAll(parent, flags, nil, flag[:], nil, false, 8, gsync.InMySync|gsync.OutMySync|gsync.Local|gsync.AllThreads, false)); err != nil {
			return nil, err
		}
		anyConflict := false
		for p := range P {
			anyConflict = anyConflict || flags[8*p] != 0
		}
		if anyConflict {
			cr.release(n, attempt)
			if attempt+1 == maxAttempts {
				return nil, fmt.Errorf("%w: concurrent team creations kept taking the same contexts", ErrTooManyTeams)
			}
			continue
		}
		t, err := cr.make(n, parent, groups, ctxs, ck, im.image)
		if err != nil || t == nil {
			return nil, err
		}
		if im.teams == nil {
			im.teams = map[*images.Team]*imageTeam{}
		}
		im.teams[t] = newImageTeam(n.teamNodeOf(t), t.Rank(im.image))
		return t, nil
	}
}

// contexts is the set of contexts in use on the node.
func (n *node) contexts() uint64 {
	n.ctxMu.Lock()
	defer n.ctxMu.Unlock()
	return n.ctxUsed
}

// pickContexts gives each group on two nodes or more a context free on
// all of its nodes and apart from the contexts given to earlier groups that
// share a node with it; -1 to groups on one node, which send no messages.
func (n *node) pickContexts(parent *images.Team, groups [][]int, masks map[int]uint64, salt uint64) ([]int, error) {
	nctx := 1 << n.ctxBits
	ctxs := make([]int, len(groups))
	nodesOf := make([]map[int]bool, len(groups))
	for g, ranks := range groups {
		nodesOf[g] = map[int]bool{}
		for _, r := range ranks {
			nodesOf[g][n.table.NodeOf(parent.Image(r))] = true
		}
		ctxs[g] = -1
		if len(nodesOf[g]) < 2 {
			continue
		}
		used := uint64(1) // context 0 is TeamAll's
		for nd := range nodesOf[g] {
			used |= masks[nd]
		}
		for e := range g {
			if ctxs[e] < 0 {
				continue
			}
			for nd := range nodesOf[e] {
				if nodesOf[g][nd] {
					used |= 1 << ctxs[e]
					break
				}
			}
		}
		start := int((salt ^ uint64(g)*0xbf58476d1ce4e5b9) % uint64(nctx))
		for i := range nctx {
			c := (start + i) % nctx
			if used&(1<<c) == 0 {
				ctxs[g] = c
				break
			}
		}
		if ctxs[g] < 0 {
			return nil, fmt.Errorf("%w: all %d contexts are in use on the team's nodes", ErrTooManyTeams, nctx-1)
		}
	}
	return ctxs, nil
}

// creationOf finds or starts the node's record of creation k.
func (n *node) creationOf(k createKey, members int) *creation {
	n.mu.Lock()
	defer n.mu.Unlock()
	cr := n.creating[k]
	if cr == nil {
		cr = &creation{left: members, reserved: map[int]uint64{}, conflict: map[int]bool{}, released: map[int]bool{}}
		n.creating[k] = cr
	}
	return cr
}

// leaveCreation drops the record once every local member left it; a
// failed creation releases what it still holds.
func (n *node) leaveCreation(k createKey, cr *creation) {
	n.mu.Lock()
	defer n.mu.Unlock()
	cr.mu.Lock()
	defer cr.mu.Unlock()
	cr.left--
	if cr.left > 0 {
		return
	}
	delete(n.creating, k)
	if cr.teams == nil {
		for a := range cr.reserved {
			if !cr.released[a] {
				n.freeContexts(cr.reserved[a])
			}
		}
	}
}

// reserve takes, once for the node, the contexts of the groups it hosts
// members of; it reports whether one was taken already.
func (cr *creation) reserve(n *node, attempt int, parent *images.Team, groups [][]int, ctxs []int) bool {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	if _, done := cr.reserved[attempt]; done {
		return cr.conflict[attempt]
	}
	n.ctxMu.Lock()
	defer n.ctxMu.Unlock()
	var got uint64
	conflict := false
	for g, ranks := range groups {
		if ctxs[g] < 0 || !hosts(n, parent, ranks) {
			continue
		}
		bit := uint64(1) << ctxs[g]
		if n.ctxUsed&bit != 0 {
			conflict = true
			continue
		}
		n.ctxUsed |= bit
		got |= bit
	}
	cr.reserved[attempt], cr.conflict[attempt] = got, conflict
	return conflict
}

// release gives back, once for the node, what attempt reserved.
func (cr *creation) release(n *node, attempt int) {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	if cr.released[attempt] {
		return
	}
	cr.released[attempt] = true
	n.freeContexts(cr.reserved[attempt])
}

func (n *node) freeContexts(bits uint64) {
	n.ctxMu.Lock()
	n.ctxUsed &^= bits
	n.ctxMu.Unlock()
}

// make builds, once for the node, the teams it hosts members of, and
// returns img's (nil when it joins none).
func (cr *creation) make(n *node, parent *images.Team, groups [][]int, ctxs []int, k createKey, img int) (*images.Team, error) {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	if cr.teams == nil {
		cr.teams = make([]*images.Team, len(groups))
		for g, ranks := range groups {
			if !hosts(n, parent, ranks) {
				continue
			}
			imgs := make([]int, len(ranks))
			for i, r := range ranks {
				imgs[i] = parent.Image(r)
			}
			h := fnv.New64a()
			_ = binary.Write(h, binary.LittleEndian, [3]uint64{parent.ID(), k.k, uint64(g)})
			t, err := images.NewTeam(parent, imgs, h.Sum64(), ctxs[g])
			if err != nil {
				return nil, err
			}
			cr.teams[g] = t
			n.addTeam(t)
		}
	}
	for _, t := range cr.teams {
		if t != nil && t.Contains(img) {
			return t, nil
		}
	}
	return nil, nil
}

// hosts reports whether node n hosts one of the parent ranks.
func hosts(n *node, parent *images.Team, ranks []int) bool {
	for _, r := range ranks {
		if n.table.NodeOf(parent.Image(r)) == n.Me {
			return true
		}
	}
	return false
}

// addTeam records the node's state of a new team.
func (n *node) addTeam(t *images.Team) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.teams == nil {
		n.teams = map[*images.Team]*teamNode{}
	}
	n.teams[t] = n.newTeamNode(t)
}

func (n *node) teamNodeOf(t *images.Team) *teamNode {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.teams[t]
}

// Split is coll.Image.Split.
func (im *Image) Split(parent *images.Team, color, key int) (*images.Team, error) {
	return im.makeTeam(parent, color, key, nil)
}

// TeamFromImages is coll.Image.TeamFromImages.
func (im *Image) TeamFromImages(parent *images.Team, list []int) (*images.Team, error) {
	return im.makeTeam(parent, 0, 0, list)
}

// Destroy is coll.Image.Destroy.
func (im *Image) Destroy(t *images.Team) error {
	if err := im.checkNotPlanning(); err != nil {
		return err
	}
	it, err := im.team(t)
	if err != nil {
		return err
	}
	if it == im.allTeam {
		return fmt.Errorf("%w: TeamAll cannot be destroyed", ErrTeam)
	}
	if it.aggOpen {
		return ErrAggregateOpen
	}
	delete(im.teams, t)
	tn := it.tn
	if int(tn.destroyed.Add(1)) < len(tn.Mem) {
		return nil
	}
	if err := im.n.eng.WaitUntil(context.Background(), func() bool { return tn.Unfinished.Load() == 0 }); err != nil {
		return err
	}
	n := im.n
	tn.Agg.Drop(&n.Plans)
	n.mu.Lock()
	delete(n.teams, t)
	n.mu.Unlock()
	if tn.Ctx > 0 {
		n.freeContexts(1 << tn.Ctx)
	}
	return nil
}

// TeamsLive is coll.Image.TeamsLive.
func (im *Image) TeamsLive() int {
	im.n.mu.Lock()
	defer im.n.mu.Unlock()
	return len(im.n.teams)
}

// ContextsInUse is coll.Image.ContextsInUse.
func (im *Image) ContextsInUse() int { return bits.OnesCount64(im.n.contexts()) }
