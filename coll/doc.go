// Package coll is gocoll's collectives: the GASNet collectives design
// (v1.7.1.4) in Go, over any Conduit (MPI through mpiconduit, or the
// in-process conduit of colltest for tests).
//
// # Use
//
// Every node calls Init once with its conduit; the returned Image starts
// collectives. Each collective takes a team (TeamAll for now), exactly one
// input sync mode, one output sync mode and one addressing mode (package
// sync's flags), and has a blocking and a non-blocking (...NB) form. A
// non-blocking collective returns a sync.Handle to Try or Wait on; handles
// are node-local and may be synced in any order on different nodes.
//
// # Where the rules live
//
//   - Flags are validated by sync.Flags.Validate.
//   - Input sync modes are enforced in withSync (syncmodes.go): IN_ALLSYNC
//     prepends a dissemination barrier; IN_MYSYNC and IN_NOSYNC need none,
//     because a point-to-point transfer reads its source only after the
//     sending node entered and writes its destination only after the
//     receiving node entered.
//   - Output sync modes are enforced in schedOp.Syncable (sched.go):
//     OUT_NOSYNC succeeds once this node's destinations are written,
//     OUT_MYSYNC once every transfer touching this node's data areas is
//     complete, OUT_ALLSYNC after a barrier that starts once this node's
//     transfers are complete.
//   - Trees are built in trees.go; the schedules of the five collectives in
//     movement.go, of the reductions in reduce.go and prefix.go; schedules
//     are cached per image and argument list in plans.go.
//
// # Addressing
//
// Go has no global address space: a slice always names memory of the
// calling node. Single promises that the arguments agree across nodes and
// requires every argument on every node; Local lets a node pass only what
// applies to it (nil elsewhere).
//
// # Algorithms
//
// Broadcast, scatter and gather use a tree over team ranks relative to the
// root: Binomial (default), Binary or Flat (Options.Tree). Every subtree is
// a contiguous run of ranks, so each edge carries one contiguous run of
// blocks. Exchange runs P-1 steps in which node p sends to (p+i) mod P.
// Gather_all uses either the exchange-like pattern or dissemination
// (round i: p sends to (p+2^i) mod P the min(2^i, P-2^i) blocks it lacks,
// no surplus). With A = L/max(o,g) (Options.A, default DefaultA), exchange
// costs about (P-1)+A and dissemination ceil(lg P)*(A+1) gaps; the cheaper
// wins, exchange on ties. With A = 4 that is exchange up to P = 16.
//
// # Computational collectives
//
// Reduce, ReduceAll, PrefixReduce and ExclusivePrefixReduce fold an array
// laid out block-cyclically (Layout) with a function from the table given to
// Init (package reducefn). Each image's elements form one contiguous local
// range, and each row of P blocks gives an image at most one run. A
// commutative function is folded locally to one partial per image; a
// NonComm one keeps a partial per row. Reduce combines partials up a tree
// of contiguous subtrees (rooted at rank 0 for NonComm, so rank order is
// array order); ReduceAll uses recursive doubling, or for large elements
// whose entry has a Scalar, a reduce-scatter and a gather_all; prefix
// reductions scan the row partials over images (round k: p sends to p+2^k),
// prefix the row totals when there is more than one row, finish each run
// with one callback, and move results to the destination layout when it
// differs. Every combination order is fixed by team size and layout, so
// results are bitwise reproducible. Callbacks run only inside gocoll calls
// made by the application's goroutines.
//
// # Cost of a call
//
// A small collective called again with the same arguments (as in an
// iterative code) reuses its cached schedule and allocates nothing; a
// transfer that its conduit completes as it starts (a send, or a receive
// whose message has arrived) needs no poll. An initiation polls the conduit
// only when other collectives are live or its own is not yet done.
//
// # Progress
//
// Progress is made inside initiation, Try, Wait, Poll and Barrier; no
// collective needs anything from another node beyond its own initiation and
// polling. A node whose handles are synced may still be needed to forward
// data or finish relaxed (OUT_NOSYNC) sends, so it must keep calling gocoll
// (end with a Barrier) before it stops. Waits spin; between polls they tell
// a conduit that implements Idler, which may yield the processor when
// processes outnumber processors.
package coll
