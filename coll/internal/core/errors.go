package core

import "errors"

// The errors of the collectives, as package coll exports them (its
// documentation says when each comes).
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
	ErrNBytes         = errors.New("gocoll: nbytes must be > 0")
	ErrRoot           = errors.New("gocoll: root image outside the team")
	ErrNilBuffer      = errors.New("gocoll: nil buffer where the collective needs one")
	ErrShortBuffer    = errors.New("gocoll: buffer shorter than the collective needs")
	ErrAggregateOpen  = errors.New("gocoll: an aggregate is open on the team (end it with a call without Aggregate)")
	ErrConduit        = errors.New("gocoll: conduit does not fit")
	ErrNotInSegment   = errors.New("gocoll: a data area named in-segment is not in the segment")
	ErrFunction       = errors.New("gocoll: function index not in the registered table")
	ErrElemSize       = errors.New("gocoll: element size must be > 0 and fit the function")
	ErrElemCount      = errors.New("gocoll: element count must be > 0")
	ErrBufferLength   = errors.New("gocoll: buffer length is not a multiple of the element size")
	ErrStallTimeout   = errors.New("gocoll: bad stall timeout")
	ErrCounts         = errors.New("gocoll: counts or displacements out of range")
)
