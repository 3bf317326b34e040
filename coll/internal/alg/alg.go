// Package alg is the algorithms of gocoll's collectives: what each node
// does, as plain data (a schedule: rounds of transfers and local copies,
// rounds.go), for each collective: trees (trees.go) for broadcast,
// scatter, gather and reduce, gather_all by dissemination or exchange,
// exchange, the reductions and prefix reductions (reduce.go, prefix.go),
// and the barriers that give the ALLSYNC modes (syncmodes.go), over the
// element layouts of the computational collectives (layout.go). Nothing
// here sends a message: a schedule is built from a node's place in its
// team (Geom) and its members' buffers, and the executor (package coll)
// runs it on a conduit, so every algorithm can be built and tested
// without one. Which algorithm a call gets is not decided here (package
// coll's choices).
package alg

import "errors"

// ErrLayout: a computational collective's layout the spec does not allow
// (package coll re-exports it).
var ErrLayout = errors.New("gocoll: layout outside what the spec allows")

// GatherAllAlgo names a gather_all algorithm (package coll's of the same
// name, by value).
type GatherAllAlgo int

const (
	// GatherAllAuto: not a schedule; the choice is the caller's.
	GatherAllAuto GatherAllAlgo = iota
	// GatherAllDissemination: ceil(lg P) rounds, doubling the data each round.
	GatherAllDissemination
	// GatherAllExchange: P-1 steps, node p sends its block to (p+i) mod P.
	GatherAllExchange
)
