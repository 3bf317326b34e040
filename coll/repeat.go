package coll

import "unsafe"

// A repeated call's buffer checks. A scientific code calls the same
// computational collective on the same buffers again and again (a time
// step's MPI_Allreduce, a Fortran CO_SUM in a loop). Checking the buffers
// of each member against the layouts and the function table costs a call
// of one element more than a tenth of its messages (divisions, per
// member), and what it decides depends on nothing but the call's key
// (kind, team, flags, root, element size and count, function and its
// argument, layouts) and the addresses and lengths of its buffers: a
// team's members and the function table never change. So an image keeps,
// per team, the last single-address computational call whose checks
// passed (imageTeam.passed), and a call equal to it in all of that skips
// them. Everything else is checked on every call: the image (closed,
// reentered from a function), the team (destroyed), the flags, the form,
// and at run time the segment flags.
//
// The m forms are always checked: their lists may change in place.

// passedCall is a call whose buffer checks passed: its key (the buffer
// identities not filled in) and its buffers' addresses and lengths, as
// numbers, so that the image does not keep the caller's memory alive. An
// address may come back for other memory; the checks' verdict on the
// same addresses and lengths is the same.
type passedCall struct {
	key      planKey
	dst, src uintptr
	dn, sn   int
}

// repeats reports whether a's call is its team's last passed call again,
// on the single-address buffers dst and src, and records it in a.repeat.
// (An m form never is: passed records none.)
func (a *callArgs) repeats(dst, src []byte) bool {
	p := &a.it.passed
	a.repeat = p.key == a.key && p.dst == address(dst) && p.dn == len(dst) &&
		p.src == address(src) && p.sn == len(src)
	if a.repeat {
		a.it.repeated++
	}
	return a.repeat
}

// passed records a's call as its team's last passed call, if its checks
// passed.
func (a *callArgs) passed(dst, src []byte) {
	if a.err == nil && !a.multi {
		a.it.passed = passedCall{key: a.key, dst: address(dst), dn: len(dst), src: address(src), sn: len(src)}
	}
}

// address is where b starts, 0 for nil.
func address(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }
