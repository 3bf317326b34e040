package sync

import (
	"context"
	"unsafe"

	"github.com/gocoll/gocoll/internal/engine"
)

// Handle names one image's part of a non-blocking collective (the spec's
// gasnet_coll_handle_t). The zero Handle is the invalid handle: an
// operation that completed during initiation. A handle is dead once
// synced; syncing it again is ErrDeadHandle. Handles are not collective:
// each image syncs its own, in any order.
type Handle struct{ h engine.Handle }

// Valid reports whether h is not the invalid handle.
func (h Handle) Valid() bool { return h.h.Valid() }

// Try makes progress and reports whether the operation's sync succeeded.
// After success (or an error of the operation) the handle is dead. An
// operation that failed because its reduction function panicked raises
// that panic again here, as a *PanicError. A loop of tries should yield
// between them (runtime.Gosched), as Wait does, where images outnumber
// cores: a spinning image takes the processor from the images it waits for.
func (h Handle) Try() (bool, error) { return h.h.Try() }

// Wait makes progress until the sync succeeds, ctx is done, or the
// operation fails; a panic of its reduction function is raised again, as
// Try does. A wait that sees no progress for the stall timeout
// (coll.Options) returns ErrStalled, naming what it waited for.
func (h Handle) Wait(ctx context.Context) error { return h.h.Wait(ctx) }

// Done returns a channel that is closed once the handle's sync would
// succeed (or fail), so that a program can select on a collective beside
// its other channels. Somebody must make progress for it to close: the
// progress agent, or the node's own calls. Done does not sync the handle:
// Try or Wait still must.
func (h Handle) Done() <-chan struct{} { return h.h.Done() }

// TryAll makes progress and reports whether every handle synced; the ones
// that did become the invalid handle. The first error is returned (a
// panic of a reduction function raised again, as Try does).
func TryAll(hs []Handle) (bool, error) { return engine.TryAll(handles(hs)) }

// WaitAll makes progress until every handle synced.
func WaitAll(ctx context.Context, hs []Handle) error { return engine.WaitAll(ctx, handles(hs)) }

// TrySome makes progress and reports whether at least one valid handle
// synced; those become the invalid handle. With no valid handle it reports
// true.
func TrySome(hs []Handle) (bool, error) { return engine.TrySome(handles(hs)) }

// WaitSome makes progress until at least one valid handle synced.
func WaitSome(ctx context.Context, hs []Handle) error { return engine.WaitSome(ctx, handles(hs)) }

// handles is hs as the engine's handles, in place: a Handle is a struct
// of one engine handle, so the two slices have one layout, and what the
// engine writes (the invalid handle for a synced one) is the caller's.
func handles(hs []Handle) []engine.Handle {
	return unsafe.Slice((*engine.Handle)(unsafe.Pointer(unsafe.SliceData(hs))), len(hs))
}

// Errors of handles and waits; test with errors.Is.
var (
	// ErrDeadHandle: the handle was already synced.
	ErrDeadHandle = engine.ErrDeadHandle
	// ErrTooMany: more operations outstanding on a node than it can tell
	// apart (MaxLive).
	ErrTooMany = engine.ErrTooMany
	// ErrStalled: a wait saw no progress for the stall timeout.
	ErrStalled = engine.ErrStalled
	// ErrReentrant: gocoll was called from inside a reduction function.
	ErrReentrant = engine.ErrReentrant
	// ErrAgent: the progress agent could not start (already running, or
	// stopped), or the mode has none.
	ErrAgent = engine.ErrAgent
)

// MaxLive is the most operations that may be live on a node at once.
const MaxLive = engine.MaxLive

// PanicError is a panic of a reduction function, recovered inside gocoll
// and raised again on the application goroutine that syncs the operation
// (or initiated it): Value is what the function panicked with, Stack the
// stack of the goroutine that panicked; Error says the value, and Unwrap
// gives it when it is an error. Its peers are not told by the panic: they
// see the collective stop.
type PanicError = engine.PanicError
