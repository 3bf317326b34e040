package coarray

import (
	"errors"
	"fmt"

	"github.com/gocoll/gocoll/coll"
)

// STAT values. Fortran's ISO_FORTRAN_ENV fixes STAT_STOPPED_IMAGE and
// STAT_FAILED_IMAGE (gfortran: 6000 and 6001); every other error condition
// of a collective or team statement gets a processor-dependent positive
// value different from those two. gocoll's are the small numbers below, the
// same in the Go package and in the gfortran runtime, so that a Fortran
// program can test for them.
const (
	StatOK           = 0
	StatInvalidImage = 1 // SOURCE_IMAGE or RESULT_IMAGE is not an image of the current team
	StatMismatch     = 2 // the images of the team called with arguments that do not agree
	StatTeam         = 3 // a team the image is not in, or not formed on the current team
	StatNotCurrent   = 4 // a call through an image that is not in its current team's execution
	StatTeamNumber   = 5 // FORM TEAM with a team number that is not positive
	StatNewIndex     = 6 // FORM TEAM with NEW_INDEX values out of range or repeated
	StatType         = 7 // an element type that cannot travel (pointers) or does not fit the operation
	StatOperator     = 8 // a CO_REDUCE operator that failed, is unknown, or is not pure
	StatLength       = 9 // a character value longer than the character length
	StatNotSupported = 10
	StatCollective   = 11   // gocoll's engine or the conduit failed
	StatStalled      = 12   // no progress for the stall timeout: an image of the team is not taking part (see ErrStalled)
	StatBounds       = 13   // a coindexed access outside the coarray's memory
	StatStoppedImage = 6000 // ISO_FORTRAN_ENV's STAT_STOPPED_IMAGE (gfortran's value)
	StatFailedImage  = 6001 // ISO_FORTRAN_ENV's STAT_FAILED_IMAGE (gfortran's value)
)

// Errors of the coarray face; test with errors.Is. Each carries the STAT
// value the standard's STAT= argument would get (see Stat), and its text is
// what ERRMSG= would get.
var (
	ErrInvalidImage = newStatError(StatInvalidImage, "coarray: image index is not an image of the current team")
	ErrMismatch     = newStatError(StatMismatch, "coarray: the images called the collective with arguments that do not agree")
	ErrTeam         = newStatError(StatTeam, "coarray: the team is not one this image is in, or was not formed on the current team")
	ErrNotCurrent   = newStatError(StatNotCurrent, "coarray: the image is not executing in this team (called outside CHANGE TEAM's team)")
	ErrTeamNumber   = newStatError(StatTeamNumber, "coarray: team number must be positive")
	ErrNewIndex     = newStatError(StatNewIndex, "coarray: NEW_INDEX values must be 1..n, each once, within the new team")
	ErrType         = newStatError(StatType, "coarray: element type does not fit the operation")
	ErrOperator     = newStatError(StatOperator, "coarray: CO_REDUCE operator failed")
	ErrImpure       = fmt.Errorf("%w: it gave two different results for the same operands (not pure)", ErrOperator)
	ErrLength       = newStatError(StatLength, "coarray: character value longer than the character length")
	ErrNotSupported = newStatError(StatNotSupported, "coarray: not supported")
	ErrCollective   = newStatError(StatCollective, "coarray: the collective failed")
	// ErrStalled wraps coll.ErrStalled: the call waited for the stall
	// timeout (coll.Options.StallTimeout, GOCOLL_STALL) for an image that
	// skipped it, called with other arguments (the default mode finds
	// those only where a message of theirs arrives), stopped, or computes
	// for longer than the timeout.
	ErrStalled = newStatError(StatStalled, "coarray: the collective made no progress for the stall timeout")
	// ErrBounds: a coindexed access (the gfortran runtime's) to bytes
	// outside the coarray.
	ErrBounds = newStatError(StatBounds, "coarray: coindexed access outside the coarray")
	// ErrStoppedImage: an image of the team has initiated normal
	// termination (see Image.Stopped).
	ErrStoppedImage = newStatError(StatStoppedImage, "coarray: an image of the team has stopped")
)

// StatError is an error with a STAT value.
type StatError struct {
	stat int
	msg  string
}

func newStatError(stat int, msg string) *StatError { return &StatError{stat: stat, msg: msg} }

func (e *StatError) Error() string { return e.msg }

// Stat is the STAT value of e.
func (e *StatError) Stat() int { return e.stat }

// Stat is the value the standard's STAT= argument gets for err: 0 for nil,
// the StatError's value for one of this package's errors (wrapped or not),
// StatCollective for any other error.
func Stat(err error) int {
	if err == nil {
		return StatOK
	}
	var se *StatError
	if errors.As(err, &se) {
		return se.stat
	}
	return StatCollective
}

// collErr turns an error of gocoll's engine into one with a STAT value,
// keeping the original for errors.Is: the engine's disagreement errors
// (coll.ErrMismatch between nodes, coll.ErrArgsDiffer between a node's
// images) are ErrMismatch, its stall is ErrStalled, anything else
// ErrCollective.
func collErr(err error) error {
	if err == nil { // before se, which errors.As moves to the heap: no allocation per call
		return nil
	}
	var se *StatError
	var stopped *stoppedError
	switch {
	case errors.As(err, &stopped):
		return stopped // the engine's words name engine images and nodes, counted from 0
	case errors.As(err, &se):
		return err
	case errors.Is(err, coll.ErrMismatch) || errors.Is(err, coll.ErrArgsDiffer):
		se = ErrMismatch
	case errors.Is(err, coll.ErrStalled):
		se = ErrStalled
	default:
		se = ErrCollective
	}
	return fmt.Errorf("%w: %w", se, err)
}

// stoppedError is ErrStoppedImage for one image.
type stoppedError struct{ image int }

func (e *stoppedError) Error() string {
	return fmt.Sprintf("coarray: image %d of the initial team has stopped", e.image)
}

func (e *stoppedError) Unwrap() error { return ErrStoppedImage }

// byStat is the sentinel of each STAT value, for an image that learns of
// another image's error through the agreement.
var byStat = map[int]error{}

func init() {
	for _, e := range []*StatError{ErrInvalidImage, ErrMismatch, ErrTeam, ErrNotCurrent, ErrTeamNumber,
		ErrNewIndex, ErrType, ErrOperator, ErrLength, ErrNotSupported, ErrCollective, ErrStalled, ErrBounds, ErrStoppedImage} {
		byStat[e.stat] = e
	}
}
