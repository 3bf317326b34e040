package coll

import (
	"github.com/gocoll/gocoll/coll/internal/local"
	"github.com/gocoll/gocoll/images"
)

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
func LocalRecsMade() int64 { return local.RecsMade() }

// WithPaths is o with a test's hold on the selector (select.go): forbid,
// if not nil, names the paths that node (a node number) may not take, and
// took, if not nil, is told the paths each image's calls took.
func WithPaths(o Options, forbid func(node int) []string, took func(image int, path string)) Options {
	h := &pathHook{}
	if forbid != nil {
		h.forbid = func(node int) path {
			var set path
			for _, name := range forbid(node) {
				set |= pathNamed(name)
			}
			return set
		}
	}
	if took != nil {
		h.took = func(image int, p path) { took(image, pathName(p)) }
	}
	o.paths = h
	return o
}

// WithPlanned is o with a test hook told, by image, of each call that
// took its image's plan of the call before it, without checks (plans.go).
func WithPlanned(o Options, planned func(image int)) Options {
	h := &pathHook{planned: planned}
	if o.paths != nil {
		*h = *o.paths
		h.planned = planned
	}
	o.paths = h
	return o
}

// pathNamed is the path of that name in the selector's table; it panics
// on a name the table does not have, a test's mistake.
func pathNamed(name string) path {
	for _, e := range paths {
		if e.name == name {
			return e.p
		}
	}
	panic("no path " + name)
}
