package core

import (
	"errors"
	"fmt"
	"maps"
	"os"
	stdsync "sync"
	"time"

	"github.com/gocoll/gocoll/images"
	"github.com/gocoll/gocoll/internal/engine"
)

// DefaultStallTimeout is coll.DefaultStallTimeout.
const DefaultStallTimeout = 10 * time.Minute

// envStall is GOCOLL_STALL, read once: a duration ("90s", "10m"), or "0"
// or "off" for no watchdog; unset is the default.
var envStall = stdsync.OnceValues(func() (time.Duration, error) {
	v, ok := os.LookupEnv("GOCOLL_STALL")
	switch {
	case !ok || v == "":
		return 0, nil
	case v == "off" || v == "0":
		return -1, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%w: GOCOLL_STALL=%q is not a positive duration (such as 90s or 10m), 0 or off", ErrStallTimeout, v)
	}
	return d, nil
})

// stallTimeout is the watchdog's timeout for opts, 0 for none:
// Config.StallTimeout when set (negative: none), else GOCOLL_STALL, else
// DefaultStallTimeout.
func stallTimeout(opts Config) time.Duration {
	d := opts.StallTimeout
	if d == 0 {
		d, _ = envStall()
	}
	switch {
	case d < 0:
		return 0
	case d == 0:
		return DefaultStallTimeout
	}
	return d
}

// ErrImageGone is coll.ErrImageGone.
var ErrImageGone = errors.New("gocoll: an image of the team will not take part any more")

// teamOp is implemented by the engine operations of the collectives: the
// team they run on and their sequence number there.
type teamOp interface {
	TeamSeq() (*images.Team, uint64)
}

// gone is what the node knows of an image that is gone (ImageGone).
type gone struct {
	started map[uint64]uint64
	err     error
}

// Started is coll.Image.Started.
func (im *Image) Started() map[uint64]uint64 {
	if im.n == nil {
		return nil
	}
	m := map[uint64]uint64{im.n.all.Team.ID(): im.n.all.Seq.Load()}
	im.n.mu.Lock()
	defer im.n.mu.Unlock()
	for t, tn := range im.n.teams {
		m[t.ID()] = tn.Seq.Load()
	}
	return m
}

// ImageGone is coll.Image.ImageGone.
func (im *Image) ImageGone(image int, started map[uint64]uint64, cause error) (int, error) {
	n := im.n
	if n == nil {
		return 0, ErrNotInitialized
	}
	if image < 0 || image >= n.table.Images() {
		return 0, fmt.Errorf("%w: image %d, the job has images 0..%d", ErrImage, image, n.table.Images()-1)
	}
	err := fmt.Errorf("%w: image %d: %w", ErrImageGone, image, cause)
	n.goneMu.Lock()
	if n.gone == nil {
		n.gone = map[int]gone{}
	}
	if _, ok := n.gone[image]; !ok {
		n.gone[image] = gone{started: maps.Clone(started), err: err}
	}
	g := n.gone[image]
	n.goneMu.Unlock()
	n.anyGone.Store(true)
	return n.eng.FailIf(func(op engine.Op) bool {
		t, ok := op.(teamOp)
		if !ok {
			return false
		}
		team, seq := t.TeamSeq()
		return team.Contains(image) && seq >= g.started[team.ID()]
	}, g.err), nil
}

// goneFrom is the error of the next call on tn when an image of its team
// that is gone will never make it (ImageGone), else nil.
func (n *node) goneFrom(tn *teamNode) error {
	if !n.anyGone.Load() {
		return nil
	}
	next := tn.Seq.Load()
	n.goneMu.Lock()
	defer n.goneMu.Unlock()
	for image, g := range n.gone {
		if tn.Team.Contains(image) && next >= g.started[tn.Team.ID()] {
			return g.err
		}
	}
	return nil
}
