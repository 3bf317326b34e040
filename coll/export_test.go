package coll

import (
	"github.com/gocoll/gocoll/coll/internal/core"
	"github.com/gocoll/gocoll/coll/internal/local"
	"github.com/gocoll/gocoll/images"
)

// AgreementOf is team t's cached checked-mode agreement on im's node (nil
// before its first checked call), for tests that check it is reused.
func AgreementOf(im *Image, t *images.Team) any { return core.AgreementOf(im.core(), t) }

// LocalRecsMade is how many records of local teams' AllThreads calls were
// allocated so far (not taken from the pool), for tests that check the
// chain recycles them.
func LocalRecsMade() int64 { return local.RecsMade() }

// WithPaths is o with a test's hold on the selector (internal/core's
// select.go): forbid, if not nil, names the paths that node (a node
// number) may not take, and took, if not nil, is told the paths each
// image's calls took.
func WithPaths(o Options, forbid func(node int) []string, took func(image int, path string)) Options {
	o.paths = core.NewPathHook(forbid, took, nil)
	return o
}

// WithPlanned is o with a test hook told, by image, of each call that
// took its image's record of the call before it, without checks.
func WithPlanned(o Options, planned func(image int)) Options {
	o.paths = o.paths.WithPlanned(planned)
	return o
}
