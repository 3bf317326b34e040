// Package images says who takes part in gocoll's collectives: nodes (MPI
// processes), the images on each node in node-major order (Table), and
// teams (Team): immutable sets of images with rank <-> image maps both ways
// (O(1) membership), translation to the parent team, and the team's node
// geometry (node ranks and each node's members) that the collectives run
// over. SplitMembers computes MPI_Comm_split's grouping. Making a team on
// the wire (agreeing on its context) is package coll's job; this package
// does no communication.
package images

import (
	"errors"
	"fmt"
)

// ErrTable: an images table that cannot describe a job.
var ErrTable = errors.New("gocoll: invalid images table")

// Table gives the number of images on each node. Images are numbered
// node-major: node 0's images first, then node 1's, and so on.
type Table struct {
	perNode []int
	first   []int // first[n] is the first image of node n; first[nodes] is the total
	nodeOf  []int // image -> node
}

// New makes a table from the image count of each node; every count must be > 0.
func New(perNode []int) (*Table, error) {
	if len(perNode) == 0 {
		return nil, fmt.Errorf("%w: no nodes", ErrTable)
	}
	t := &Table{perNode: append([]int(nil), perNode...), first: make([]int, len(perNode)+1)}
	for n, k := range perNode {
		if k <= 0 {
			return nil, fmt.Errorf("%w: node %d has %d images", ErrTable, n, k)
		}
		t.first[n+1] = t.first[n] + k
		for range k {
			t.nodeOf = append(t.nodeOf, n)
		}
	}
	return t, nil
}

// OnePerNode is the table of one image on each of nodes nodes.
func OnePerNode(nodes int) *Table {
	per := make([]int, nodes)
	for i := range per {
		per[i] = 1
	}
	t, err := New(per)
	if err != nil {
		panic(err) // nodes <= 0: a programming error of the caller
	}
	return t
}

// Nodes is the number of nodes.
func (t *Table) Nodes() int { return len(t.perNode) }

// Images is the total number of images (NImages in the spec).
func (t *Table) Images() int { return t.first[len(t.perNode)] }

// On is the number of images on node n.
func (t *Table) On(n int) int { return t.perNode[n] }

// First is the first image of node n.
func (t *Table) First(n int) int { return t.first[n] }

// NodeOf is the node hosting image i.
func (t *Table) NodeOf(i int) int { return t.nodeOf[i] }

// PerNode is a copy of the image count of every node.
func (t *Table) PerNode() []int { return append([]int(nil), t.perNode...) }

// Equal reports whether two tables describe the same layout.
func (t *Table) Equal(u *Table) bool {
	if len(t.perNode) != len(u.perNode) {
		return false
	}
	for i := range t.perNode {
		if t.perNode[i] != u.perNode[i] {
			return false
		}
	}
	return true
}
