package coll

import (
	"errors"

	"github.com/gocoll/gocoll/coll/internal/alg"
	"github.com/gocoll/gocoll/coll/internal/core"
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
	ErrNotInitialized = core.ErrNotInitialized
	ErrClosed         = core.ErrClosed
	ErrProgress       = core.ErrProgress
	ErrInitTwice      = core.ErrInitTwice
	ErrInitTimeout    = core.ErrInitTimeout
	ErrImage          = core.ErrImage
	ErrInitMismatch   = core.ErrInitMismatch
	ErrInitFlags      = core.ErrInitFlags
	ErrOptions        = core.ErrOptions
	ErrTeam           = core.ErrTeam
	ErrNotMember      = core.ErrNotMember
	ErrTeamDestroyed  = core.ErrTeamDestroyed
	ErrTooManyTeams   = core.ErrTooManyTeams
	ErrAddressing     = core.ErrAddressing
	ErrListLength     = core.ErrListLength
	ErrArgsDiffer     = plan.ErrArgsDiffer
	ErrNBytes         = core.ErrNBytes
	ErrRoot           = core.ErrRoot
	ErrNilBuffer      = core.ErrNilBuffer
	ErrShortBuffer    = core.ErrShortBuffer
	ErrOverlap        = plan.ErrOverlap
	ErrAggregate      = exec.ErrAggregate // (the executor fuses aggregates)
	ErrAggregateOpen  = core.ErrAggregateOpen
	ErrConduit        = core.ErrConduit
	ErrNotInSegment   = core.ErrNotInSegment
	ErrFunction       = core.ErrFunction
	ErrElemSize       = core.ErrElemSize
	ErrElemCount      = core.ErrElemCount
	ErrBufferLength   = core.ErrBufferLength
	ErrLayout         = alg.ErrLayout // (package alg checks layouts)
	ErrStallTimeout   = core.ErrStallTimeout
	ErrImageGone      = core.ErrImageGone // (Image.ImageGone)
	ErrCounts         = core.ErrCounts
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
