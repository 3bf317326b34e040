// Package sync is what a program touches of the spec's synchronization:
// the flags of a collective (one input sync mode, one output sync mode,
// one addressing mode, and AllThreads, Aggregate and the segment
// assertions), the handles of non-blocking collectives with try, wait and
// their all/some forms, and the progress modes. The collectives
// themselves are package coll's; the table of live operations behind the
// handles is internal to gocoll (internal/engine).
//
// Its name follows the design's layout; import it under another name
// (for example `gsync "github.com/gocoll/gocoll/sync"`) beside the standard
// library's sync.
package sync

import (
	"errors"
	"fmt"
	"strings"
)

// Flags are the flags of a collective initiation, as the spec defines them.
// Exactly one input sync mode, one output sync mode and one addressing mode
// must be given.
type Flags uint32

// Input synchronization modes.
const (
	// InNoSync: data movement may begin as soon as any node has entered.
	InNoSync Flags = 1 << iota
	// InMySync: a block moves only once its source and destination nodes have entered.
	InMySync
	// InAllSync: nothing moves until every node has entered.
	InAllSync
	// OutNoSync: a sync may succeed at any time, so long as the last node to
	// sync does so only once all data movement is complete.
	OutNoSync
	// OutMySync: a sync succeeds once the data areas of this node are complete.
	OutMySync
	// OutAllSync: a sync succeeds once the data areas of every node are complete.
	OutAllSync
	// Single: every caller passes arguments that agree (UPC-style addressing).
	Single
	// Local: each caller passes only its own arguments (Titanium-style addressing).
	Local
	// Aggregate joins this non-blocking initiation with the following ones
	// into one operation with one handle.
	Aggregate
	// AllThreads: every image of each node calls the collective.
	AllThreads
	// SrcInSegment asserts that the sources lie in the registered segment.
	SrcInSegment
	// DstInSegment asserts that the destinations lie in the registered segment.
	DstInSegment
)

// The three categories of which exactly one flag each is required.
const (
	InMask   = InNoSync | InMySync | InAllSync
	OutMask  = OutNoSync | OutMySync | OutAllSync
	AddrMask = Single | Local
	allFlags = InMask | OutMask | AddrMask | Aggregate | AllThreads | SrcInSegment | DstInSegment
)

// Errors of flag validation; test with errors.Is.
var (
	ErrFlags             = errors.New("gocoll: invalid flags")
	ErrNoInSync          = fmt.Errorf("%w: no input sync mode (one of InNoSync, InMySync, InAllSync)", ErrFlags)
	ErrManyInSync        = fmt.Errorf("%w: more than one input sync mode", ErrFlags)
	ErrNoOutSync         = fmt.Errorf("%w: no output sync mode (one of OutNoSync, OutMySync, OutAllSync)", ErrFlags)
	ErrManyOutSync       = fmt.Errorf("%w: more than one output sync mode", ErrFlags)
	ErrNoAddressing      = fmt.Errorf("%w: no addressing mode (one of Single, Local)", ErrFlags)
	ErrManyAddressing    = fmt.Errorf("%w: both Single and Local addressing", ErrFlags)
	ErrUnknownFlag       = fmt.Errorf("%w: unknown flag bits", ErrFlags)
	ErrAggregateBlocking = fmt.Errorf("%w: Aggregate on a blocking call", ErrFlags)
)

// Validate checks that f names exactly one flag of each category and no
// unknown bits; the error names the category at fault.
func (f Flags) Validate() error {
	if f&^allFlags != 0 {
		return fmt.Errorf("%w: %#x", ErrUnknownFlag, uint32(f&^allFlags))
	}
	if err := one(f&InMask, ErrNoInSync, ErrManyInSync); err != nil {
		return err
	}
	if err := one(f&OutMask, ErrNoOutSync, ErrManyOutSync); err != nil {
		return err
	}
	return one(f&AddrMask, ErrNoAddressing, ErrManyAddressing)
}

func one(bits Flags, none, many error) error {
	switch {
	case bits == 0:
		return none
	case bits&(bits-1) != 0:
		return many
	}
	return nil
}

// In is the input sync mode of f.
func (f Flags) In() Flags { return f & InMask }

// Out is the output sync mode of f.
func (f Flags) Out() Flags { return f & OutMask }

var flagNames = []string{"InNoSync", "InMySync", "InAllSync", "OutNoSync", "OutMySync", "OutAllSync",
	"Single", "Local", "Aggregate", "AllThreads", "SrcInSegment", "DstInSegment"}

// String lists the flags by name, joined with "|".
func (f Flags) String() string {
	var parts []string
	for i, n := range flagNames {
		if f&(1<<i) != 0 {
			parts = append(parts, n)
		}
	}
	if rest := f &^ allFlags; rest != 0 {
		parts = append(parts, fmt.Sprintf("%#x", uint32(rest)))
	}
	if len(parts) == 0 {
		return "0"
	}
	return strings.Join(parts, "|")
}
