package coll

import (
	"errors"

	"github.com/gocoll/gocoll/coll/internal/alg"
	"github.com/gocoll/gocoll/coll/internal/exec"
	"github.com/gocoll/gocoll/coll/internal/plan"
	"github.com/gocoll/gocoll/images"
	gsync "github.com/gocoll/gocoll/sync"
)

// Errors of the collectives; test with errors.Is. Flag errors come from
// package sync (sync.ErrFlags and the errors wrapping it).
// ErrMismatch reports a collective whose arguments differ across the
// images of its team (checked mode: on every image; default mode: on the
// images that received a message of a disagreeing call).
var ErrMismatch = plan.ErrMismatch

var (
	ErrNotInitialized = errors.New("gocoll: collectives not initialized (call coll.Init)")
	ErrClosed         = errors.New("gocoll: the image was closed")
	ErrProgress       = errors.New("gocoll: progress mode not available")
	ErrInitTwice      = errors.New("gocoll: coll.Init already called for this image")
	ErrInitTimeout    = errors.New("gocoll: coll.Init timed out waiting for images")
	ErrImage          = errors.New("gocoll: image number not one of this node's images")
	ErrInitMismatch   = errors.New("gocoll: coll.Init arguments differ between nodes")
	ErrInitFlags      = errors.New("gocoll: coll.Init flags must be 0")
	ErrOptions        = errors.New("gocoll: coll.Init options out of range")
	ErrTeam           = errors.New("gocoll: team is nil or not of this job")
	ErrNotMember      = errors.New("gocoll: the image is not a member of the team")
	ErrTeamDestroyed  = errors.New("gocoll: the team was destroyed")
	ErrTooManyTeams   = errors.New("gocoll: no free team context: too many teams live at once")
	ErrAddressing     = errors.New("gocoll: addressing not allowed with these flags and images")
	ErrListLength     = errors.New("gocoll: address list of the wrong length")
	ErrArgsDiffer     = plan.ErrArgsDiffer
	ErrNBytes         = errors.New("gocoll: nbytes must be > 0")
	ErrRoot           = errors.New("gocoll: root image outside the team")
	ErrNilBuffer      = errors.New("gocoll: nil buffer where the collective needs one")
	ErrShortBuffer    = errors.New("gocoll: buffer shorter than the collective needs")
	ErrOverlap        = plan.ErrOverlap
	ErrAggregate      = exec.ErrAggregate // (the executor fuses aggregates)
	ErrAggregateOpen  = errors.New("gocoll: an aggregate is open on the team (end it with a call without Aggregate)")
	ErrConduit        = errors.New("gocoll: conduit does not fit")
	ErrNotInSegment   = errors.New("gocoll: a data area named in-segment is not in the segment")
	ErrFunction       = errors.New("gocoll: function index not in the registered table")
	ErrElemSize       = errors.New("gocoll: element size must be > 0 and fit the function")
	ErrElemCount      = errors.New("gocoll: element count must be > 0")
	ErrBufferLength   = errors.New("gocoll: buffer length is not a multiple of the element size")
	ErrLayout         = alg.ErrLayout // (package alg checks layouts)
	ErrStallTimeout   = errors.New("gocoll: bad stall timeout")
	ErrOp             = errors.New("gocoll: unknown operation")
	ErrOpType         = errors.New("gocoll: the operation does not take the element type")
	ErrLength         = errors.New("gocoll: slices of different lengths, or empty")

	// Re-exported from package images for callers that import only coll.
	ErrColor   = images.ErrColor
	ErrMembers = images.ErrMembers

	// Re-exported from package sync for callers that import only coll.
	ErrDeadHandle = gsync.ErrDeadHandle
	ErrFlags      = gsync.ErrFlags
	ErrReentrant  = gsync.ErrReentrant
	// ErrStalled: a wait saw no progress for the stall timeout (see
	// Options.StallTimeout); its message names the collective, its
	// sequence number on its team and the images it waits for.
	ErrStalled = gsync.ErrStalled
)

// PanicError is the panic of a reduction function, raised again on the
// application goroutine that syncs the collective or initiated it (see
// package sync); re-exported from package sync.
type PanicError = gsync.PanicError
