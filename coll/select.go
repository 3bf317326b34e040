package coll

// The selector: how a call runs on its node. Every path is an entry of
// paths, in the order the selector tries them, with its rule; the choice
// of algorithm inside a schedule (by the cost model, or forced by Options)
// is choose.go's, made once per cached schedule. A path whose rule a call
// meets may still find at run time that it cannot go (the ring's slot is
// taken, the engine has another operation live): it then falls to the
// next entry that applies, which every path can, since the last one,
// a schedule in the engine, takes any call.
//
// Tests force a path by forbidding the ones before it (pathHook), and see
// which path a call took through the same hook; nothing else counts.

// path is one way of running a call, a bit of a path.
type path uint16

const (
	// pathRing: the images of a team that lives on one node meet in its
	// ring, without a record (ring.go).
	pathRing path = 1 << iota
	// pathStaged: a root returns once its source is staged (local.go).
	pathStaged
	// pathDirect: the last member to arrive at a local record folds or
	// copies straight from the members' buffers (direct.go).
	pathDirect
	// pathRecords: a local record's schedule, run by its last member
	// (local.go).
	pathRecords
	// pathArrival: AllThreads arrivals gathered on a record, then one
	// schedule for the node (call.go).
	pathArrival
	// pathAggregate: a member or the Last of an aggregate (aggregate.go).
	pathAggregate
	// pathAlone: a blocking call's schedule run to its end on the
	// caller's goroutine, with no slot and no handle.
	pathAlone
	// pathEngine: the schedule in a slot of the node's engine, with a
	// handle.
	pathEngine
)

// paths are the entries of the selector, in the order it tries them.
var paths = [...]struct {
	p          path
	name, rule string
}{
	{pathRing, "ring", "AllThreads on a team that lives on the node: a blocking ReduceAll of one element per member that fits a line (selfFolds), outside an aggregate, without OUT_ALLSYNC; or a Broadcast of a block that fits a line without ALLSYNC modes, outside an aggregate, whose root takes the ring (castsByRing); while the ring's slot is free"},
	{pathStaged, "staged", "AllThreads on a team that lives on the node: the root of a Broadcast or Scatter of at most maxStageBytes, without ALLSYNC modes, outside an aggregate, that does not arrive last, at most maxStaged calls ahead"},
	{pathDirect, "direct", "the last member at a local record: a Broadcast, or a ReduceAll of one element per member in cyclic layout"},
	{pathRecords, "records", "AllThreads on a team that lives on the node: any other call"},
	{pathArrival, "arrival", "AllThreads with several members on the node, on a team with members on other nodes"},
	{pathAggregate, "aggregate", "the Aggregate flag, or an aggregate open on a team with members on other nodes"},
	{pathAlone, "alone", "a blocking call, where the engine serves one goroutine and nothing else is live (engine.Engine.RunAlone)"},
	{pathEngine, "engine", "any call"},
}

// pathHook is a test's hold on the selector (Options.paths): the paths
// node (a node number) may not take, and a function told of each path an
// image's call took, by the image that took it (the last to arrive for a
// record's run). The rules still apply: forbidding a path only sends the
// calls that could take it to the next. Of the paths, ring, staged,
// direct and alone may be forbidden; the others are where calls fall.
type pathHook struct {
	forbid func(node int) path
	took   func(image int, p path)
}

// allows reports whether the node may take path p.
func (n *node) allows(p path) bool { return n.forbidden&p == 0 }

// took tells the test hook, if any, that a call of image took path p.
func (n *node) took(image int, p path) {
	if h := n.opts.paths; h != nil && h.took != nil {
		h.took(image, p)
	}
}

// alone reports whether a call of this node in its blocking form tries to
// run its schedule alone: the engine decides whether it can.
func (n *node) alone(blocking bool) bool { return blocking && n.allows(pathAlone) }

// pathName is p's name in the table.
func pathName(p path) string {
	for _, e := range paths {
		if e.p == p {
			return e.name
		}
	}
	return "?"
}
