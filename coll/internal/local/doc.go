// Package local is gocoll's node-local path: the images of one node meet
// in memory, as GASNet keeps its smp collectives apart from the network's.
// On a team that lives on one node that is the whole call: it needs no
// transfer, what it costs is the cache lines that move between the
// images' cores, and the code is laid out for that. On a team with
// members on other nodes, the node's images meet before their node's one
// operation starts.
//
// Each image holds a Member per team; the node holds a Team for a team
// that lives on it, Arrivals for one with members on other nodes. An
// image's call arrives through Member.Arrive (or Arrivals.Arrive) with
// Args: the call with the image's own buffers, and Route, what the
// selector (package core's select.go, which holds every rule: which calls
// may go by the ring, stage, fold their own result, run directly) decided
// for it. Where each protocol lives:
//
//   - local.go: the records, one per call in a chain that images take
//     without a lock; the last member to arrive runs the call for all (a
//     direct run, or the call's schedule from package exec, which needs no
//     transfer here), the others' handles end once it did; a small
//     broadcast's or scatter's root that arrives early stages its source
//     and leaves; in a small ReduceAll a member folds its own result from
//     the elements the others brought.
//   - ring.go: a small ReduceAll that every member calls in the blocking
//     form, and a small broadcast whose root gets there first, meet in the
//     team's ring and skip the records.
//   - arrival.go: on a team with members on other nodes, the AllThreads
//     initiations of the node's members gathered into the node's one
//     operation, which the last to arrive has the node make (Node.Start).
//   - direct.go: the last member's direct run of a Broadcast or a
//     ReduceAll of one element per member, in the order of the schedule's
//     fold (bitwise the same results).
//
// What it asks of the node (a call's schedule, a function's reducer, the
// selector's hook told of the path each call took) it asks through Node.
package local
