package sync

import (
	"time"

	"github.com/gocoll/gocoll/internal/engine"
)

// ProgressMode says where a node's collectives advance (coll.Options'
// Progress). With Polling, the spec's simple polling, they advance only
// inside the calls of the node's goroutines (initiation, Try, Wait, Poll);
// a node that stops calling then stalls the peers that need it. An agent
// advances them on its own:
//
//   - Goroutine: a goroutine polls while any collective is unfinished and
//     parks (no CPU) while none is, as GASNet's blocked progress thread,
//     or while a goroutine of the node waits (which polls); it costs a
//     processor while collectives are in flight and the node computes, and
//     gives the best overlap.
//   - Periodic: a goroutine polls every interval while any collective is
//     unfinished (a time.Ticker), cheap on the processor, slower to react.
//
// The agent never runs a reduction function registered without AMSafe: it
// only records the transfers' completions, and the node's next call runs
// the function.
type ProgressMode int

const (
	// Polling: progress only inside the node's calls.
	Polling = ProgressMode(engine.Polling)
	// Goroutine: a goroutine polls while collectives are in flight.
	Goroutine = ProgressMode(engine.Goroutine)
	// Periodic: a goroutine polls every interval while collectives are in flight.
	Periodic = ProgressMode(engine.Periodic)
)

// String names the mode.
func (m ProgressMode) String() string { return engine.ProgressMode(m).String() }

// DefaultInterval is the Periodic agent's interval when none is given.
const DefaultInterval time.Duration = engine.DefaultInterval
