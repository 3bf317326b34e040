package images

import (
	"errors"
	"fmt"
	"slices"
)

// Errors of team construction; test with errors.Is.
var (
	// ErrColor: a Split color that is negative but not NoColor.
	ErrColor = errors.New("gocoll: split color must be >= 0 or NoColor")
	// ErrMembers: a member list that names an image twice, an image outside
	// the parent team, or no image at all.
	ErrMembers = errors.New("gocoll: invalid team member list")
)

// NoColor is the Split color of an image that joins no team (MPI_UNDEFINED).
const NoColor = -1

// Team is an immutable set of images that take part in a collective, ranked
// in the order given when it was made. TeamAll holds every image in image
// order. Besides the rank <-> image maps (O(1) both ways, so membership is
// O(1)), a team knows how its images sit on nodes: the nodes hosting members
// (its node ranks, ordered by their lowest member's rank) and each node's
// members. The collectives run between nodes over node ranks and move data
// among a node's members through memory.
type Team struct {
	id      uint64
	context int
	table   *Table
	parent  *Team
	images  []int   // rank -> image
	rankOf  []int32 // image -> rank, -1 outside the team
	// node geometry
	nodes     []int   // node rank -> node
	nodeRank  []int32 // node -> node rank, -1 when it hosts no member
	members   [][]int // node rank -> team ranks on it, ascending
	nodeMajor bool
}

// All is the team of every image of t (GASNET_TEAM_ALL); its ID and its
// context are 0.
func (t *Table) All() *Team {
	imgs := make([]int, t.Images())
	for i := range imgs {
		imgs[i] = i
	}
	tm, err := newTeam(t, nil, imgs, 0, 0)
	if err != nil {
		panic(err) // a table always makes a valid TeamAll
	}
	return tm
}

// NewTeam makes the team of the given images of parent, ranked in list
// order. id and context are what the team's creator agreed on for it on every
// member (see package coll); context names the team's messages on the wire.
func NewTeam(parent *Team, imgs []int, id uint64, context int) (*Team, error) {
	if parent == nil {
		return nil, fmt.Errorf("%w: no parent team", ErrMembers)
	}
	if err := parent.CheckMembers(imgs); err != nil {
		return nil, err
	}
	return newTeam(parent.table, parent, slices.Clone(imgs), id, context)
}

// CheckMembers reports whether imgs can make a team under tm: at least one
// image, every image a member of tm, none twice.
func (tm *Team) CheckMembers(imgs []int) error {
	if len(imgs) == 0 {
		return fmt.Errorf("%w: no images", ErrMembers)
	}
	seen := make(map[int]bool, len(imgs))
	for _, img := range imgs {
		switch {
		case !tm.Contains(img):
			return fmt.Errorf("%w: image %d is not in the parent team", ErrMembers, img)
		case seen[img]:
			return fmt.Errorf("%w: image %d given twice", ErrMembers, img)
		}
		seen[img] = true
	}
	return nil
}

func newTeam(tb *Table, parent *Team, imgs []int, id uint64, context int) (*Team, error) {
	tm := &Team{id: id, context: context, table: tb, parent: parent, images: imgs,
		rankOf: make([]int32, tb.Images()), nodeRank: make([]int32, tb.Nodes())}
	for i := range tm.rankOf {
		tm.rankOf[i] = -1
	}
	for i := range tm.nodeRank {
		tm.nodeRank[i] = -1
	}
	for r, img := range imgs {
		if img < 0 || img >= tb.Images() || tm.rankOf[img] >= 0 {
			return nil, fmt.Errorf("%w: image %d", ErrMembers, img)
		}
		tm.rankOf[img] = int32(r)
		n := tb.NodeOf(img)
		if tm.nodeRank[n] < 0 {
			tm.nodeRank[n] = int32(len(tm.nodes))
			tm.nodes = append(tm.nodes, n)
			tm.members = append(tm.members, nil)
		}
		q := tm.nodeRank[n]
		tm.members[q] = append(tm.members[q], r) // ranks come in ascending order
	}
	// Node-major: the ranks of node rank 0 come first, then node rank 1's,
	// and so on, so that a node's blocks are one run of the rank order.
	tm.nodeMajor = true
	next := 0
	for _, ms := range tm.members {
		for _, r := range ms {
			if r != next {
				tm.nodeMajor = false
			}
			next++
		}
	}
	return tm, nil
}

// SplitMembers groups the ranks of a team of len(color) images by color, as
// MPI_Comm_split does: each group holds the ranks with one color (NoColor
// ranks join none), ordered by key with ties broken by rank; the groups come
// in increasing order of color. group[r] is the index of rank r's group, or
// -1 for NoColor. The result is the same on every image given the same
// colors and keys.
func SplitMembers(color, key []int) (groups [][]int, group []int, err error) {
	if len(color) != len(key) {
		return nil, nil, fmt.Errorf("%w: %d colors, %d keys", ErrMembers, len(color), len(key))
	}
	ranks := make([]int, 0, len(color))
	for r, c := range color {
		if c < 0 && c != NoColor {
			return nil, nil, fmt.Errorf("%w: rank %d has color %d", ErrColor, r, c)
		}
		if c != NoColor {
			ranks = append(ranks, r)
		}
	}
	slices.SortStableFunc(ranks, func(a, b int) int {
		if color[a] != color[b] {
			return color[a] - color[b]
		}
		if key[a] != key[b] {
			if key[a] < key[b] {
				return -1
			}
			return 1
		}
		return a - b
	})
	group = make([]int, len(color))
	for i := range group {
		group[i] = -1
	}
	for i, r := range ranks {
		if i == 0 || color[r] != color[ranks[i-1]] {
			groups = append(groups, nil)
		}
		g := len(groups) - 1
		groups[g] = append(groups[g], r)
		group[r] = g
	}
	return groups, group, nil
}

// ID is the team's identifier, the same on every member. Teams that exist
// at the same time and share a node have different IDs.
func (tm *Team) ID() uint64 { return tm.id }

// Context is the number that tells the team's messages apart from other
// teams' on the wire, agreed by its members when it was made (0 for
// TeamAll). Teams that share two nodes and exist at the same time have
// different contexts; a team on one node sends no messages.
func (tm *Team) Context() int { return tm.context }

// Size is the number of images in the team.
func (tm *Team) Size() int { return len(tm.images) }

// Image is the image of team rank r (the translation to TeamAll).
func (tm *Team) Image(r int) int { return tm.images[r] }

// Images is a copy of the team's images in rank order.
func (tm *Team) Images() []int { return slices.Clone(tm.images) }

// Rank is the team rank of image img (the translation from TeamAll), or -1
// when img is not a member.
func (tm *Team) Rank(img int) int {
	if img < 0 || img >= len(tm.rankOf) {
		return -1
	}
	return int(tm.rankOf[img])
}

// Contains reports whether image img is a member; O(1).
func (tm *Team) Contains(img int) bool { return tm.Rank(img) >= 0 }

// Parent is the team this one was made from; nil for TeamAll.
func (tm *Team) Parent() *Team { return tm.parent }

// ParentRank is the rank in the parent team of team rank r (r itself for TeamAll).
func (tm *Team) ParentRank(r int) int {
	if tm.parent == nil {
		return r
	}
	return tm.parent.Rank(tm.images[r])
}

// FromParent is the team rank of the parent team's rank pr, or -1 when that
// image is not a member.
func (tm *Team) FromParent(pr int) int {
	if tm.parent == nil {
		return pr
	}
	if pr < 0 || pr >= tm.parent.Size() {
		return -1
	}
	return tm.Rank(tm.parent.Image(pr))
}

// Table is the images table the team belongs to.
func (tm *Team) Table() *Table { return tm.table }

// Equal reports whether two teams hold the same images in the same rank
// order. Equal teams made separately are still separate teams: each has its
// own sequence of collectives.
func (tm *Team) Equal(u *Team) bool {
	return tm != nil && u != nil && tm.table.Equal(u.table) && slices.Equal(tm.images, u.images)
}

// Nodes is the number of nodes hosting members: the team's node ranks.
func (tm *Team) Nodes() int { return len(tm.nodes) }

// NodeAt is the node of node rank q.
func (tm *Team) NodeAt(q int) int { return tm.nodes[q] }

// NodeRank is the node rank of node n, or -1 when n hosts no member.
func (tm *Team) NodeRank(n int) int {
	if n < 0 || n >= len(tm.nodeRank) {
		return -1
	}
	return int(tm.nodeRank[n])
}

// Members are the team ranks hosted by node rank q, ascending. The slice
// belongs to the team: do not modify it.
func (tm *Team) Members(q int) []int { return tm.members[q] }

// NodeMajor reports whether rank order runs node by node: node rank 0's
// members are ranks 0..k-1, node rank 1's the next ones, and so on. TeamAll
// is node-major, and so is any team whose members keep the image order of
// their nodes. Where a team is node-major a node's blocks form one run and
// non-commutative reductions fold a node's members before leaving it.
func (tm *Team) NodeMajor() bool { return tm.nodeMajor }
