// Package exec is gocoll's executor: it runs a collective's schedule (the
// rounds of package alg) on a conduit, as an engine.Op that the engine of
// package internal/engine steps.
//
// It is the one implementation of every algorithm on the wire. Whatever
// path package coll picks for a call, the transfers a node makes for it are
// those of a Sched: the engine steps it when the call returns a handle, or
// runs it to its end on the caller's goroutine (engine.Engine.RunAlone,
// coll's alone path). Where each rule lives:
//
//   - sched.go: Sched, a schedule's run: rounds started in order, a round's
//     receives posted with the round before it, copies and computations
//     once their inputs are in; the output sync modes (Sched.Syncable).
//     The input sync modes are entry barrier rounds that alg.WithSync
//     prepends.
//   - wire.go: tags and message headers: every message carries its
//     operation's sequence number and arguments' hash, checked before a
//     byte reaches the caller's memory (plan.ErrMismatch otherwise).
//   - segment.go: the one-sided path (SrcInSegment, DstInSegment): puts and
//     gets into the node's segment in place of matched messages.
//   - aggregate.go: aggregation: an aggregate's members fused into groups
//     of one skeleton, run side by side as one operation (AggOp).
//   - cache.go: the node's cached schedules, run again once idle.
//   - fail.go and watchdog.go: a run that failed part way, and what a
//     stalled one says it waits for.
//
// A node's executor state is a Node, its state for one team a TeamNode;
// package coll embeds them in its own. What the executor asks of the layer
// above (the schedule of an aggregate's member, the algorithm a size
// picks) it asks through Builder. It imports the algorithms and the keys,
// never package coll.
package exec
