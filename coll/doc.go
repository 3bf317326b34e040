// Package coll is gocoll's collectives: the GASNet collectives design
// (v1.7.1.4) in Go, over any Conduit (MPI through mpiconduit, or the
// in-process conduit of colltest for tests).
//
// # Use
//
// Every image of every node calls Init once, on its own goroutine, with the
// node's conduit, the images table (images per node, node-major numbering;
// nil for one image per node) and its image number; the returned Image
// starts collectives. Each collective takes a team (TeamAll, or one made by
// Split or TeamFromImages), exactly one input sync mode, one output sync
// mode and one addressing mode (package sync's flags), and has a blocking
// and a non-blocking (...NB) form, and a multiple-address ...M form. A
// non-blocking collective returns a sync.Handle to Try or Wait on; handles
// belong to the image that got them and may be synced in any order.
//
// # Images, AllThreads and the m forms
//
// A node (an MPI process) hosts one or more images (goroutines). With
// AllThreads every member image of the team on the node calls the
// collective for itself, with its own addresses; the node's part starts
// once the last of them arrived, and each image syncs its own handle. The
// sync modes then hold per image: no image's data moves before it entered,
// and a sync succeeds once the node's part is complete to the extent the
// output mode asks. Without AllThreads one goroutine of the node (a member
// of the team: its representative) calls for all of the node's members,
// with the m forms' lists of addresses (or the single-address forms where
// every node has one image), and no other goroutine of the node may start a
// collective while it does. Either way the node's part is one schedule:
// images of a node never send each other messages; their blocks move
// through memory, and one message between two nodes carries the blocks of
// every image it concerns.
//
// # Teams
//
// Split (like MPI_Comm_split) and TeamFromImages make teams, collectively
// over a parent team; Destroy unmakes them, image by image. A team knows its
// node ranks (the nodes hosting members, ordered by their lowest member's
// rank) and translates ranks to its parent and to TeamAll both ways
// (package images). Every collective runs on any team. Collectives on
// overlapping teams may be in flight together, as long as every two images
// that share two teams start their collectives on them in the same order
// (the spec's Precedes rule): each team has its own sequence of
// collectives and its own tag context on the wire, so their messages never
// meet.
//
// # Where the rules live
//
// docs/design.md maps each rule (flags, addressing, sync modes, the choice
// of algorithm, tags, aggregation, segments, argument agreement, the stall
// watchdog, user code) to the package and file that enforce it.
//
// # Addressing
//
// Go has no global address space: a slice always names memory of the
// calling process. Single promises that the arguments agree across images
// and requires every argument everywhere; Local lets an image pass only
// what applies to it (nil elsewhere). An m form's list holds one address
// per image: with Single NImages entries indexed by image number (the
// entries of other nodes' images name memory Go cannot reach and are not
// used), with Local one per image of the calling node.
//
// # Algorithms
//
// The algorithms run between nodes, over the team's node ranks; within a
// node, blocks are copied. Broadcast, scatter and gather use a tree over
// node ranks relative to the root's node: Binomial, Binary or Flat
// (Options.Tree). Every subtree is a contiguous run of node ranks, so
// each edge carries one run of blocks in packed order (node rank by node
// rank, each node's members in rank order), straight from or into the
// caller's buffer where that is one run of it. Exchange runs P-1 steps in
// which node rank p sends to (p+i) mod P the blocks its images hold for
// that node's images. Gather_all uses either the exchange-like pattern or
// dissemination (round i: p sends to (p+2^i) mod P the blocks of the
// min(2^i, P-2^i) nodes it holds that the other lacks, no surplus) into a
// packed buffer, which in a node-major team (images.Team.NodeMajor) is the
// first member's destination.
//
// Unless Options force them, the tree shape, gather_all's pattern and
// ReduceAll's split are what the LogGP cost model (package loggp) predicts
// fastest for the team's nodes and the bytes moved, with Options.Model's
// parameters (loggp.Default, fitted on the development machines, when
// zero). With Options.A set, gather_all follows the older LogP rule
// instead: with A = L/max(o,g), exchange costs about (P-1)+A and
// dissemination ceil(lg P)*(A+1) gaps for P nodes; the cheaper wins,
// exchange on ties.
//
// # Computational collectives
//
// Reduce, ReduceAll, PrefixReduce and ExclusivePrefixReduce fold an array
// laid out block-cyclically over the team's images (Layout) with a function
// from the table given to Init (package reducefn). Each image's elements
// form one contiguous local range, and each row of P blocks gives an image
// at most one run. A commutative function is folded locally to one partial
// per node (its images in rank order); a NonComm one keeps a partial per
// row, which in a node-major team covers consecutive elements. Reduce
// combines node partials up a tree of contiguous subtrees of node ranks
// (rooted at node rank 0 for NonComm, so rank order is array order);
// ReduceAll uses recursive doubling, or for large elements whose entry has
// a Scalar, a reduce-scatter and a gather_all; prefix reductions scan the
// row partials over node ranks (round k: p sends to p+2^k), prefix the row
// totals when there is more than one row, finish each image's runs with one
// callback per run, and move results to the destination layout when it
// differs. Where a team is not node-major, non-commutative reductions and
// prefix reductions gather every image's row partials on every node
// instead (alg.GatheredSched). Every combination order is fixed by
// the images table, team and layout, so results are bitwise reproducible;
// integer results equal those of one image per node. Callbacks run only
// inside gocoll calls made by the application's goroutines (or, for
// functions registered with AMSafe, on the progress agent); see Failures
// for callbacks that call gocoll or panic (reducefn's ready-made entries,
// which do neither, run without that guard).
//
// # Typed collectives
//
// The typed forms (BroadcastOf, ..., ExchangeOf and their m forms) move
// []T for any T without pointers, counts in elements. The typed reductions
// (ReduceAllOf, ReduceOf, PrefixReduceOf, ExclusivePrefixReduceOf) take
// MPI's shape, a vector per image reduced lane by lane, and an Op: a
// built-in operation or one made from a Go function (OpOf, SliceOpOf),
// served by a standard table of entries that Init adds to every node's
// so a program registers nothing. Package gocoll
// (the module's root) gives them MPI's defaults.
//
// # Cost of a call
//
// A small collective called again with the same arguments (as in an
// iterative code) reuses its cached schedule and allocates nothing; a
// transfer that its conduit completes as it starts (a send, or a receive
// whose message has arrived) needs no poll. An initiation polls the conduit
// only when other collectives are live or its own is not yet done. With
// AllThreads, the images that arrive before the last take no lock of the
// engine: their handles find the operation once the last started it. On a
// team that lives on one node the images take no lock at all, and move as
// few cache lines between their cores as a rendezvous can; the
// last image runs the node's part itself, with no engine at all (it needs
// no transfer), a Broadcast and a ReduceAll of one element per image with
// no schedule either, an image that calls such a ReduceAll of at most 48
// bytes in a blocking form outside OUT_ALLSYNC folds its own result from
// the other images' elements and leaves without waiting for the last, and
// the root of a small broadcast or scatter in IN_MYSYNC/IN_NOSYNC and
// OUT_MYSYNC/OUT_NOSYNC modes that arrives first stages its source and
// returns at once, as the root of a one-image-per-node broadcast does once
// its sends left (so it cannot see a later image's disagreeing arguments:
// that image reports ErrArgsDiffer). On a node of one image whose engine
// holds no other operation, a blocking collective runs its schedule to
// its end on the calling goroutine, with no handle; its peers may run the
// same call through their handles.
//
// # Counts per rank
//
// The v-variants (GatherV, ScatterV, GatherAllV, ExchangeV: MPI's
// Gatherv, Scatterv, Allgatherv, Alltoallv) move a block of its own length
// per rank, and the reduce-scatters (ReduceScatterOf, ReduceScatterBlockOf)
// give each rank its counts of the lane-by-lane fold; see GatherV and
// ReduceScatter.
//
// # Neighbour exchange
//
// NeighborExchange and NeighborExchangeV (MPI_Neighbor_alltoall and
// _alltoallv on a Cartesian communicator) exchange a block with each
// neighbour of every image on an images.Grid at once; messages go between
// the nodes of neighbours only. See NeighborExchange.
//
// # Plans
//
// A Plan (NewPlan) is one call of any collective, in any form, made once
// with its arguments checked and started many times (MPI-4's persistent
// collectives): a start checks no argument, allocates nothing and runs a
// schedule the plan holds. See Plan for what a start still checks.
//
// # Aggregation
//
// Consecutive non-blocking initiations with Aggregate on one team are the
// members of an aggregate that the first initiation without the flag ends
// (the Last, blocking or not); the Last's handle syncs once every member
// completed as its output sync mode asks, and the members' handles are
// the invalid handle. Nothing moves before the Last. Then members whose
// schedules have the same shape (same kind and root, and algorithm for
// their size; for reductions the same array, function and layouts) run as
// one schedule in lockstep, their messages to one peer in one round
// travelling as one message up to 16 KiB, each as its own beyond, as
// without the flag. IN_ALLSYNC and OUT_ALLSYNC cost one barrier each for
// the whole aggregate. An aggregate repeated on the same buffers (an
// iterative code) reuses its operation, with no allocation by gocoll; a
// reused operation keeps its members' buffers reachable until another
// aggregate replaces it (two per team, within the 64 MiB a node's cached
// schedules hold). Barrier, team creation and destruction, and Close are
// refused while the image has an aggregate open on the team
// (ErrAggregateOpen); an aggregate open on one team does not hold back
// collectives on others.
//
// # Segments
//
// With Options.SegmentSize every image has a segment (Image.Segment),
// allocated collectively by a conduit that implements OneSided (for MPI, a
// window). SrcInSegment and DstInSegment assert that the sources or
// destinations lie in it (else ErrNotInSegment). The data-movement
// collectives then move data one-sided: a receiver tells the sender where
// its destination lies and the sender writes it with a notification
// (DstInSegment), or the sender tells where its source lies and the
// receiver reads it (SrcInSegment alone); no matching receive, no copy at
// the receiving end. Transfers below Options.OneSidedMin (default just
// above 8 KiB, where the control message stops paying for itself),
// transfers through internal buffers (inner nodes of trees, packed
// blocks), the reductions' partials and aggregates move as messages.
//
// # Disagreeing arguments
//
// The images of a team must call their collectives in the same order with
// the same arguments (buffers aside); the spec leaves anything else
// undefined, gocoll makes it an error that errors.Is ErrMismatch. By
// default every message carries the collective's sequence number on the
// team and a hash of its arguments, checked before its payload reaches the
// caller's memory: a node that receives from a disagreeing call fails,
// none writes wrong data, meant to cost nothing measurable (two copies of
// at most 4 KiB per small message, one 16-byte message before a large one).
// A node that
// then waits for a message nobody sends (another root, a skipped call)
// waits: a hang, not corruption. In checked mode (Options.Check, or
// GOCOLL_CHECK=1) the team's nodes first gather every node's arguments,
// and every image of the team gets the same ErrMismatch naming the
// argument and both calls, before anything moves; that costs one small
// gather_all per collective, and a non-blocking initiation waits for it.
// Use it while developing.
//
// # Progress
//
// Options.Progress says who advances a node's collectives. With
// sync.Polling (the default) progress is made inside initiation, Try, Wait,
// Poll and Barrier, by whichever of the node's goroutines is in the engine;
// no collective needs anything from another node beyond its own initiation
// and polling, but a node whose handles are synced may still be needed to
// forward data or finish relaxed (OUT_NOSYNC) sends, so it must keep
// calling gocoll (or end with Close, which drains) before it stops or
// computes for long. With sync.Goroutine an agent goroutine polls while
// the node has unfinished collectives and parks when it has none; with
// sync.Periodic it polls every ProgressInterval. Either way a node that
// computes no longer holds its peers, and Handle.Done gives a channel to
// select on; operations that call reduction functions registered without
// AMSafe still advance only in the node's own calls. The agent needs a
// processor: on 2-core machines, with a rank per core, the goroutine agent
// made collectives several times slower and the periodic one a little
// (BENCHMARKS.md, "Progress modes and checked mode"), hence Polling by
// default; pick Goroutine where a
// core is free for it and computation overlaps collectives, Periodic where
// peers must not stall but cores are busy. Waits spin; between polls they
// tell a conduit that implements Idler, which may yield the processor when
// processes outnumber processors, and where several goroutines of the node
// use the engine they yield to each other.
//
// # Failures
//
// A collective that fails on a node after it started is
// over on that node: its handles return the error and it leaves Live once
// they are synced. Its peers are not told; they see the collective stop.
// Receives it posted stay posted (the conduit cannot take them back): a
// peer that catches up late may still write into the destination, whose
// contents are undefined after a failure.
//
//   - A wait (Wait, WaitAll, WaitSome, a blocking collective) that sees no
//     progress on what it waits for for Options.StallTimeout fails with
//     ErrStalled, naming the collective, its sequence number on the team
//     and the images it waits for: a peer that skipped a call, returned
//     early or died is an error, not a hang. The waited operations fail on
//     this node; Close reports a stall and fails nothing.
//   - A reduction function (reducefn.Func) must not call gocoll: such a
//     call returns ErrReentrant, and once the function returns, the
//     collective it ran for fails with ErrReentrant on that node.
//   - A reduction function that panics fails its collective; the panic is
//     raised again, as a *PanicError holding the value and the stack, on
//     the application goroutine whose call ran the function or that syncs
//     the collective's handle (on the progress agent nothing panics).
//
// A failure on one node is a stall on its peers: those that needed its
// later messages get ErrStalled naming it (or naming a peer that waits for
// it), those that did not finish normally.
package coll
