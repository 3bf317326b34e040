package alg

// A schedule is one node's part of a collective: rounds of transfers and
// local copies, plain data that the algorithms build (movement.go,
// reduce.go, prefix.go, syncmodes.go) and the executor runs (sched.go).

// Xfer is one message to or from a peer node.
type Xfer struct {
	Peer int    // node
	Sub  int    // tag suffix, the same on both sides of the message
	Buf  []byte // client memory when client is set, else an internal buffer
	// Client marks transfers that read or write the caller's data areas:
	// they decide OUT_MYSYNC, and client receives decide OUT_NOSYNC.
	Client bool
}

// CopyOp is local work done when its round starts: a copy of src to dst
// (alias-safe, which covers the spec's identical-block exceptions), or, when
// fn is set, a computation such as a reduction step.
type CopyOp struct {
	Dst, Src []byte
	Client   bool // touches the caller's data areas
	ToClient bool // writes the caller's data areas
	Fn       func()
	// Late copies feed no send of their round, so they run after its sends
	// have started: a large local copy then overlaps the transfers.
	Late bool
}

// compute is local work that is not a copy.
func compute(client, toClient bool, fn func()) CopyOp {
	return CopyOp{Client: client, ToClient: toClient, Fn: fn}
}

// Round is a step of a schedule. Every receive of every round is posted at
// initiation, right after round 0 has started (receives move no data by
// themselves, and posting early keeps MPI's matching in initiation order);
// a round's copies and sends start once every receive of the earlier rounds
// has completed, and, with AfterSends, every earlier send too.
type Round struct {
	Copies     []CopyOp
	Sends      []Xfer
	Recvs      []Xfer
	AfterSends bool
}

// Copy is a copy between buffers of which one or both are the caller's.
func Copy(dst, src []byte, toClient bool) CopyOp {
	return CopyOp{Dst: dst, Src: src, Client: true, ToClient: toClient}
}

// cpOwn is a node's own block copied into its destination, which no send
// of the round reads (a late copy).
func cpOwn(dst, src []byte) CopyOp {
	return CopyOp{Dst: dst, Src: src, Client: true, ToClient: true, Late: true}
}
