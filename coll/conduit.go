package coll

// Conduit is what gocoll's collectives need from a network: nonblocking
// tagged point-to-point transfers between nodes, and a batched poll for
// completions. It uses only basic types, so mpiconduit.Conduit (MPI) and
// colltest's in-process conduit implement it without importing this package.
//
// Transfers between the same pair of nodes with the same tag must not
// overtake one another (MPI's rule). A buffer handed to Isend or Irecv
// belongs to the conduit until its token comes back from Poll.
type Conduit interface {
	// Node is this node's number, 0 <= Node() < Nodes().
	Node() int
	// Nodes is the number of nodes.
	Nodes() int
	// MaxTag is the largest tag the conduit carries.
	MaxTag() int
	// Isend starts sending b to node dst with tag; token comes back from
	// Poll once b may be reused.
	Isend(dst, tag int, b []byte, token uint64) error
	// Irecv starts receiving exactly len(b) bytes from node src with tag into
	// b; token comes back from Poll once b holds them.
	Irecv(src, tag int, b []byte, token uint64) error
	// Poll makes progress and appends to done the tokens of transfers
	// completed since the last call.
	Poll(done []uint64) ([]uint64, error)
}
