package coll

import "github.com/gocoll/gocoll/images"

// AgreementOf is team t's cached checked-mode agreement on im's node (nil
// before its first checked call), for tests that check it is reused.
func AgreementOf(im *Image, t *images.Team) any {
	tn := im.allTeam.tn
	if t != im.TeamAll() {
		tn = im.n.teamNodeOf(t)
	}
	if ag := tn.agree.Load(); ag != nil {
		return ag
	}
	return nil
}

// LocalRecsMade is how many records of local teams' AllThreads calls were
// allocated so far (not taken from the pool), for tests that check the
// chain recycles them.
func LocalRecsMade() int64 { return localRecsMade.Load() }

// RingCalls is how many of image im's AllThreads calls on team t went by
// the ring (ring.go), for tests that check calls return to it.
func RingCalls(im *Image, t *images.Team) uint64 {
	it, err := im.team(t)
	if err != nil {
		return 0
	}
	return it.ringed
}

// Doublings is how many blocking ReduceAll calls of image im's node ran
// without a schedule (doubling.go), for tests that check which way a call
// went.
func Doublings(im *Image) uint64 { return im.n.doublings }

// Repeats is how many of image im's computational calls on team t skipped
// the buffer checks as repeats of its last passed call (repeat.go).
func Repeats(im *Image, t *images.Team) uint64 {
	it, err := im.team(t)
	if err != nil {
		return 0
	}
	return it.repeated
}
