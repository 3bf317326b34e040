package core

import (
	stdsync "sync"

	"github.com/gocoll/gocoll/coll/internal/alg"
	"github.com/gocoll/gocoll/coll/internal/exec"
	"github.com/gocoll/gocoll/coll/internal/local"
	"github.com/gocoll/gocoll/coll/internal/plan"
	gsync "github.com/gocoll/gocoll/sync"
)

// The selector: how a call runs on its node. Every path is an entry of
// paths, in the order the selector tries them, with its rule; the choice
// of algorithm inside a schedule (by the cost model, or forced by Config)
// is made below, once per cached schedule. A path whose rule a call
// meets may still find at run time that it cannot go (the ring's slot is
// taken, the engine has another operation live): it then falls to the
// next entry that applies, which every path can, since the last one,
// a schedule in the engine, takes any call.
//
// Tests force a path by forbidding the ones before it (PathHook), and see
// which path a call took through the same hook; nothing else counts.

// path is one way of running a call; paths or'ed together are a set.
type path uint16

const (
	// pathRing: the images of a team that lives on one node meet in its
	// ring, without a record (internal/local/ring.go).
	pathRing path = 1 << iota
	// pathStaged: a root returns once its source is staged (internal/local).
	pathStaged
	// pathDirect: the last member to arrive at a local record folds or
	// copies straight from the members' buffers (internal/local/direct.go).
	pathDirect
	// pathRecords: a local record's schedule, run by its last member
	// (internal/local).
	pathRecords
	// pathArrival: AllThreads arrivals gathered on a record, then one
	// schedule for the node (call.go).
	pathArrival
	// pathAggregate: a member or the Last of an aggregate (internal/exec/aggregate.go).
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
	{pathDirect, "direct", "the last member at a local record: a Broadcast, or a ReduceAll of one element per member in cyclic layout (always where the members brought their elements in their lines: a member that folded its own has left)"},
	{pathRecords, "records", "AllThreads on a team that lives on the node: any other call"},
	{pathArrival, "arrival", "AllThreads with several members on the node, on a team with members on other nodes"},
	{pathAggregate, "aggregate", "the Aggregate flag, or an aggregate open on a team with members on other nodes"},
	{pathAlone, "alone", "a blocking call without OUT_NOSYNC (which may return before its sends are complete, as a handle in the engine does, where a run alone waits for them), where the engine serves one goroutine and nothing else is live (engine.Engine.RunAlone)"},
	{pathEngine, "engine", "any call"},
}

// PathHook is a test's hold on the selector (Config.Paths): the paths
// node (a node number) may not take, and a function told of each path an
// image's call took, by the image that took it (the last to arrive for a
// record's run). The rules still apply: forbidding a path only sends the
// calls that could take it to the next. Of the paths, ring, staged,
// direct and alone may be forbidden; the others are where calls fall.
type PathHook struct {
	forbid  func(node int) path
	took    func(image int, p path)
	planned func(image int) // a call of image took its last call record, unchecked (lastcall.go)
}

// allows reports whether the node may take path p.
func (n *node) allows(p path) bool { return n.forbidden&p == 0 }

// planned tells the test hook, if any, that a call by the image of it
// took its last call record.
func (n *node) planned(it *imageTeam) {
	if h := n.opts.Paths; h != nil && h.planned != nil {
		h.planned(it.tn.Team.Image(it.rank))
	}
}

// took tells the test hook, if any, that a call by the image of it took
// path p.
func (n *node) took(it *imageTeam, p path) {
	if h := n.opts.Paths; h != nil && h.took != nil {
		h.took(it.tn.Team.Image(it.rank), p)
	}
}

// tookLocal is the hook the node-local path tells of the path each
// member's call on team tn took, nil without a test's hook.
func (tn *teamNode) tookLocal() func(mine int, p local.Path) {
	h := tn.n.opts.Paths
	if h == nil || h.took == nil {
		return nil
	}
	return func(mine int, p local.Path) {
		h.took(tn.Team.Image(tn.Mem[mine]), [...]path{local.Ring: pathRing, local.Staged: pathStaged, local.Direct: pathDirect, local.Records: pathRecords}[p])
	}
}

// route is the first choice for a's call, whose arguments passed: how the
// node's members meet (the records of a team that lives on the node, its
// ring tried first; the arrival records), or, for a call the node makes
// through one image, whether it joins an aggregate or runs alone (if the
// engine lets it) or in the engine.
func (n *node) route(a *callArgs) path {
	switch tn := a.tn; {
	case a.threads && len(a.Dst) > 1 && tn.Local:
		return pathRecords
	case a.threads && len(a.Dst) > 1:
		return pathArrival
	case tn.aggregating(&a.Call):
		return pathAggregate
	case !a.nb && a.Key.Flags.Out() != gsync.OutNoSync && n.allows(pathAlone):
		return pathAlone
	}
	return pathEngine
}

// pathName is p's name in the table.
func pathName(p path) string {
	for _, e := range paths {
		if e.p == p {
			return e.name
		}
	}
	return "?"
}

// localRoute is the selector's decision on member a.mine's call on a team
// that lives on the node (internal/local): whether it may fold its own result
// and leave, go by the ring, stage its source as a root and leave, and
// whether the last member runs the call directly.
func (n *node) localRoute(a *callArgs) local.Route {
	k, tn := &a.Key, a.tn
	m := len(tn.Mem)
	var r local.Route
	switch k.Kind { // on every call: only the rules of its kind
	case plan.ReduceAll:
		r.Self = selfFolds(k, a.nb, m)
		r.ByRing = r.Self && n.allows(pathRing)
		r.Direct = n.direct(k, m)
	case plan.Broadcast, plan.Scatter:
		// The Last of an aggregate completes only once every member is
		// complete, and the last image to arrive at a member runs it: so
		// its root does not stage nor its call go by the ring, where
		// images leave before the others came. (A ReduceAll by the ring
		// waits for all.)
		if !a.it.aggOpen {
			r.CastRing = castsByRing(k) && n.allows(pathRing)
			if n.allows(pathStaged) {
				r.Stage = stages(k, tn.Mem[a.mine], tn.Team.Size())
			}
		}
		r.Direct = n.direct(k, m)
	}
	return r
}

// selfFolds reports whether a member's call of k (in the non-blocking form:
// nb) on a team of m members on the node may fold its own result from the
// elements the members bring in their lines (inline), leaving before the
// others are done: the blocking form, outside an aggregate, without
// OUT_ALLSYNC.
func selfFolds(k *plan.Key, nb bool, m int) bool {
	f := k.Flags
	return !nb && f&gsync.Aggregate == 0 && f.Out() != gsync.OutAllSync && local.InlineKey(k, m)
}

// castsByRing reports whether a call of k is a broadcast that may go by
// the ring: a block that fits a line, without IN_ALLSYNC or OUT_ALLSYNC,
// outside an aggregate.
func castsByRing(k *plan.Key) bool {
	return k.Kind == plan.Broadcast && k.N <= local.InlineBytes && k.Flags.In() != gsync.InAllSync &&
		k.Flags.Out() != gsync.OutAllSync && k.Flags&gsync.Aggregate == 0
}

// stages is the size of the stage of a call of k by the member of team
// rank rank on a team of P, if it is a root that may stage its source and
// leave (stageRoot): a Broadcast or Scatter of at most maxStageBytes,
// without ALLSYNC modes; else 0.
func stages(k *plan.Key, rank, P int) int {
	f := k.Flags
	if rank != k.Root || f.In() == gsync.InAllSync || f.Out() == gsync.OutAllSync {
		return 0
	}
	size := k.N
	switch k.Kind {
	case plan.Broadcast:
	case plan.Scatter:
		size *= P
	default:
		return 0
	}
	if size > local.MaxStageBytes {
		return 0
	}
	return size
}

// direct reports whether the last member runs a call of k on a team of m
// members on the node directly: where the selector allows it, and always
// for a ReduceAll whose members bring their elements in their lines
// (inline), since a member that folds its own result from them (self)
// leaves before the record runs, and its schedule would write that
// member's destination too.
func (n *node) direct(k *plan.Key, m int) bool {
	switch k.Kind {
	case plan.Broadcast:
		return n.allows(pathDirect)
	case plan.ReduceAll:
		return k.SrcLayout == alg.Cyclic && k.Count == m && (n.allows(pathDirect) || local.InlineKey(k, m))
	}
	return false
}

// segMode is the one-sided mode of a call with flags f, or 0.
func (n *node) segMode(k *plan.Key) int {
	if n.Seg == nil || k.Kind < plan.Broadcast || k.Kind > plan.Exchange {
		return 0
	}
	switch {
	case k.Flags&gsync.DstInSegment != 0:
		return exec.SegPut
	case k.Flags&gsync.SrcInSegment != 0:
		return exec.SegGet
	}
	return 0
}

// aggregating reports whether an initiation of c on tn joins or ends an
// aggregate: it has the flag, or one is open. Teams on one node never
// aggregate (nothing to coalesce).
func (tn *teamNode) aggregating(c *plan.Call) bool {
	if tn.Local {
		return false
	}
	if c.Key.Flags&gsync.Aggregate != 0 {
		return true
	}
	return tn.Agg.Open()
}

// checking reports whether collectives on tn agree on their arguments
// first: in checked mode, where the team spans nodes (a node's own images
// agree already: ErrArgsDiffer).
func (n *node) checking(tn *teamNode) bool { return n.opts.Check && !tn.Local }

// The choice of algorithm, made once per cached schedule (build.go asks):
// the tree of broadcast, scatter, gather and the tree-based reductions,
// gather_all's pattern, and whether ReduceAll splits its vector (reduce-scatter + gather_all) or exchanges it
// whole (recursive doubling). Config can force the first two; otherwise,
// and always for the third, the choice is the algorithm the LogGP model
// (package loggp) predicts fastest for the team's number of nodes and the
// bytes moved, with Config.Model's parameters (loggp.Default when zero).
// Every node passes the same Config (Init checks), so every node picks
// alike.

const (
	// TreeBroadcast: every edge carries the message (broadcast).
	TreeBroadcast TreeUse = iota
	// TreeBlocks: an edge carries the blocks of its subtree (scatter,
	// gather).
	TreeBlocks
	// TreeReduce: every edge carries a partial, folded at its end (reduce,
	// the tree-based prefix reductions).
	TreeReduce
)

// choiceKey names one tree choice: by use, nodes, and the bytes per edge
// rounded down to a power of two (the model's costs change slowly with
// size, and the cache stays small).
type choiceKey struct {
	use       TreeUse
	P, kClass int
}

// choices caches a node's tree choices: a choice walks every shape's tree
// over the team's nodes, which at thousands of nodes costs more than a
// small collective.
type choices struct {
	mu    stdsync.Mutex
	trees map[choiceKey]alg.Tree
}

// tree is Config.TreeFor, cached, with k rounded down to a power of two.
func (n *node) tree(use TreeUse, P, k int) alg.Tree {
	if n.opts.Tree != alg.TreeAuto || P <= 2 {
		return alg.Tree(n.opts.TreeFor(use, P, k))
	}
	key := choiceKey{use, P, 0}
	if k > 0 {
		key.kClass = 1 << (bitsOf(k) - 1)
	}
	c := &n.choices
	c.mu.Lock()
	defer c.mu.Unlock()
	if t, ok := c.trees[key]; ok {
		return t
	}
	t := alg.Tree(n.opts.TreeFor(use, P, key.kClass))
	if c.trees == nil {
		c.trees = map[choiceKey]alg.Tree{}
	}
	c.trees[key] = t
	return t
}

func (n *node) gatherAllAlgo(P, k int) alg.GatherAllAlgo {
	return alg.GatherAllAlgo(n.opts.GatherAllFor(P, k))
}
