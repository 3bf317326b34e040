package core

import "github.com/gocoll/gocoll/images"

// Test hooks: coll's export_test.go hands them to its tests.

// NewPathHook is a test's hold on the selector: forbid, if not nil, names
// the paths that node (a node number) may not take; took, if not nil, is
// told the paths each image's calls took; planned, if not nil, is told of
// each call that took its image's last call record (lastcall.go). Names are the table's
// (paths); a name it does not have panics, a test's mistake.
func NewPathHook(forbid func(node int) []string, took func(image int, path string), planned func(image int)) *PathHook {
	h := &PathHook{planned: planned}
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
	return h
}

// WithPlanned is h, or a new hook, told of planned calls too.
func (h *PathHook) WithPlanned(planned func(image int)) *PathHook {
	c := &PathHook{planned: planned}
	if h != nil {
		*c = *h
		c.planned = planned
	}
	return c
}

// pathNamed is the path of that name in the selector's table.
func pathNamed(name string) path {
	for _, e := range paths {
		if e.name == name {
			return e.p
		}
	}
	panic("no path " + name)
}

// AgreementOf is team t's cached checked-mode agreement on im's node (nil
// before its first checked call).
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
