package core

import (
	"unsafe"

	"github.com/gocoll/gocoll/coll/internal/alg"
	"github.com/gocoll/gocoll/coll/internal/exec"
	"github.com/gocoll/gocoll/coll/internal/plan"
	"github.com/gocoll/gocoll/images"
	gsync "github.com/gocoll/gocoll/sync"
)

// An image's record of its last call (an implicit persistent plan:
// persistent.go has the explicit ones). A scientific code calls the same
// computational collective on the same buffers again and again (a time
// step's MPI_Allreduce, a Fortran CO_SUM in a loop). Checking the call
// (flags, form, function, layouts, and each member's buffers against
// them) is a visible part of a small collective (BenchmarkReduceAllOneNode),
// and what it decides depends on nothing but the call's arguments and the
// addresses and lengths of its buffers: a team's members, the node's
// images and the function table never change. So an image keeps, per
// team, the record of its last single-address computational call that
// passed the checks: its validated arguments, ready to run, and the
// cached schedule it ran (where the image makes the node's call). A call
// with the same arguments on the same buffers takes the record as it is
// (Image.again): no checks, and its schedule without a lookup, if it is
// still cached and idle. What can change between two calls is still
// checked on every call: the image (closed, or reentered from a reduction
// function), the team (destroyed), and at run time the segment flags.
//
// The m forms are always checked: their lists may change in place.

// lastCall is a call that passed the checks: its validated arguments
// (without the image's buffer lists, which the next call refills), and
// its buffers' addresses and lengths, as numbers, so that the image does
// not keep the caller's memory alive; and where the node's cache holds its
// schedule (not a pointer, which would keep the schedule and its buffers
// alive once the cache let it go). An address
// may come back for other memory; the checks' verdict on the same
// addresses and lengths is the same. The zero lastCall matches no call:
// its kind is no computational one.
type lastCall struct {
	args     callArgs
	dst, src uintptr
	dn, sn   int
	ref      exec.CacheRef
}

// again fills a, a zero callArgs, with the arguments of its team's last call
// and reports true when the call (compArgs' arguments, a single-address
// form) repeats it; a.repeat then tells the caller to skip its buffer
// checks.
func (im *Image) again(a *callArgs, k plan.Kind, t *images.Team, root int, sl, dl alg.Layout, es, count, fn, arg int, f gsync.Flags, nb bool, dst, src []byte) bool {
	if im.check() != nil {
		return false // the checks report it
	}
	it, err := im.team(t)
	if err != nil {
		return false
	}
	p := &it.last
	q := &p.args.Key
	if q.Kind != k || q.Flags != f || q.Root != root || q.ElemSize != es || q.Count != count || q.Fn != fn || q.Arg != arg ||
		q.SrcLayout != sl || q.DstLayout != dl || p.args.nb != nb ||
		p.dst != address(dst) || p.dn != len(dst) || p.src != address(src) || p.sn != len(src) {
		return false
	}
	m := len(p.args.tn.Mem)
	*a = p.args
	a.Dst, a.Src = im.lists[0][:m], im.lists[1][:m] // as args sets them
	a.repeat, a.last = true, p
	im.n.planned(it)
	return true
}

// passed makes a's call its team's last call, if it passed the checks, with
// its single-address buffers dst and src.
func (a *callArgs) passed(dst, src []byte) {
	if a.err != nil || a.multi {
		return
	}
	p := &a.it.last
	p.args = *a
	p.args.Dst, p.args.Src = nil, nil
	p.dst, p.dn, p.src, p.sn = address(dst), len(dst), address(src), len(src)
	p.ref = exec.CacheRef{}
	a.last = p
}

// address is where b starts, 0 for nil.
func address(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }
