// Package core is what happens to a collective between coll's public
// call and its first transfer: the node's state, the argument checks, the
// image's record of a repeated call, persistent plans, the choice of the path the call takes,
// and team creation. Package coll's methods and functions call it; it
// calls the layers below (local, exec, alg, plan) and never coll.
//
// Where each rule lives:
//
//   - api.go: each collective's own checks of its arguments (the buffers
//     of each member); call.go: what all share (flags, addressing, lists,
//     overlaps between a node's members) and the run of a call that passed
//     them; inplace.go: reductions in place.
//   - lastcall.go: the image's record of its last computational call,
//     taken again without checks when the next one repeats it;
//     persistent.go: plans, calls checked once and started many times.
//   - select.go: the selector, the table of paths with each path's rule,
//     the decisions handed to the node-local path (localRoute), and the
//     choice of algorithm by the cost model (config.go: Config's TreeFor,
//     GatherAllFor, SplitsReduceAll); build.go turns a call into the
//     chosen algorithm's schedule.
//   - check.go: checked mode's agreement on the arguments.
//   - node.go and init.go: a node's state and Init; image.go: an image's;
//     teams.go: team creation (contexts) and Destroy; segcheck.go: the
//     segment flags' checks; stall.go: the stall timeout.
//   - hooks.go: the test hooks that coll's tests reach through
//     export_test.go.
package core
