package coll

// Conduit is what gocoll's collectives need from a network: nonblocking
// tagged point-to-point transfers between nodes, and a batched poll for
// completions. It uses only basic types, so mpiconduit.Conduit (MPI) and
// colltest's in-process conduit implement it without importing this package.
//
// Transfers between the same pair of nodes with the same tag must not
// overtake one another (MPI's rule). A transfer that completes during
// Isend or Irecv is reported there (done) and its token never comes back;
// otherwise the buffer belongs to the conduit until its token comes back
// from Poll.
type Conduit interface {
	// Node is this node's number, 0 <= Node() < Nodes().
	Node() int
	// Nodes is the number of nodes.
	Nodes() int
	// MaxTag is the largest tag the conduit carries.
	MaxTag() int
	// Isend starts sending b to node dst with tag; done reports that b may
	// be reused already, else token comes back from Poll once it may.
	Isend(dst, tag int, b []byte, token uint64) (done bool, err error)
	// Irecv starts receiving exactly len(b) bytes from node src with tag into
	// b; done reports that b holds them already, else token comes back from
	// Poll once it does.
	Irecv(src, tag int, b []byte, token uint64) (done bool, err error)
	// Poll makes progress and appends to done the tokens of transfers
	// completed since the last call.
	Poll(done []uint64) ([]uint64, error)
}

// Idler is implemented by a conduit that wants to hear when a wait has
// polled and found nothing: Idle may yield the processor, as MPI does when
// processes outnumber processors, so that the process holding the awaited
// data gets to run. It must not block for long.
type Idler interface {
	Idle()
}

// ThreadSafe is implemented by a conduit that can tell whether it may be
// called from any thread (for MPI: MPI_THREAD_MULTIPLE was provided). The
// progress agent calls the conduit from its own goroutine, on any thread;
// a conduit without the method is taken to allow it.
type ThreadSafe interface {
	ThreadMultiple() bool
}

// OneSided is implemented by a conduit that gives every node a segment:
// memory allocated collectively that peers write and read with one-sided
// transfers (for MPI, a window: MPI_Put and MPI_Get). The collectives use
// it for the SrcInSegment and DstInSegment flags: data then lands in (or
// leaves) the segment with no matching receive and no receiver-side copy.
type OneSided interface {
	// AllocSegment allocates this node's segment of size bytes and returns
	// it. It is collective: every node calls it once, sizes may differ
	// (0 is allowed). The memory stays valid until the conduit is closed.
	AllocSegment(size int) ([]byte, error)
	// PutNotify starts writing b into node dst's segment at byte offset
	// off. Once the bytes are in place there, node dst gets a message of
	// zero bytes with tag from this node (an Irecv of an empty buffer
	// matches it), in order with this node's other messages to dst with
	// that tag. done and token are as for Isend: b may be reused once
	// reported.
	PutNotify(dst, off, tag int, b []byte, token uint64) (done bool, err error)
	// Get starts reading len(b) bytes of node src's segment at byte offset
	// off into b; done and token are as for Irecv. The caller makes sure
	// (by a message) that the bytes are ready before it reads them.
	Get(src, off int, b []byte, token uint64) (done bool, err error)
}
