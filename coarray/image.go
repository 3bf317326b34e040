package coarray

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/images"
	"github.com/gocoll/gocoll/reducefn"
	gsync "github.com/gocoll/gocoll/sync"
)

// flags of every collective: each image calls for itself (AllThreads) with
// its own buffers (Local); a call returns once this image's data are
// complete (OUT_MYSYNC), which is what a Fortran collective promises, and
// data move only between images that entered (IN_MYSYNC): the collectives
// are not image control statements, so no barrier is owed.
const flags = gsync.InMySync | gsync.OutMySync | gsync.Local | gsync.AllThreads

// Options configure Init. Every image passes the same Options.
type Options struct {
	// Operators are the CO_REDUCE operations the program uses, named in
	// CoReduce by their position (Op(i) is Operators[i]).
	Operators []Operator
	// Checked turns on the checked mode (GOCOLL_CAF_CHECK=1 at Init does
	// too). Checked, every collective first agrees on its arguments across
	// the team with one small reduction (kind, length, source or result
	// image, operator, character length, and any error found on one
	// image), so that arguments that differ between images give ErrMismatch
	// and an argument bad on some images only gives its error, on every
	// image, before any data moves; and every CO_REDUCE operator is applied
	// twice to the operands it sees, its results compared byte for byte
	// (an operator that keeps state gives ErrImpure). That costs a second
	// small collective per call (and twice the operator's work): use it
	// while developing. In the default mode a collective is one collective
	// of gocoll's engine, whose own default checks keep disagreeing
	// arguments from writing wrong data (see the package doc, "Errors").
	Checked bool
	// Coll are the engine's options (see coll.Options).
	Coll coll.Options
}

// Image is one image's handle on the coarray collectives, in one team: the
// initial team as Init returns it, or the team of a ChangeTeam, whose
// function gets its own Image. Only the Image of the team the image is
// executing in may be used (ErrNotCurrent otherwise). Like coll.Image it
// belongs to the goroutine that runs the image.
type Image struct {
	sh    *shared
	team  *Team
	outer *Image // the Image of the enclosing team; nil in the initial team
	state int
}

// Image states: the image is executing in the Image's team, or in a team
// changed to from it, or the Image's CHANGE TEAM construct has ended.
const (
	running = iota
	suspended
	ended
)

// shared is what an image's Images of every team share.
type shared struct {
	im      *coll.Image
	node    *nodeState
	nbuilt  int // operators' fn indices start here
	ops     []Operator
	checked bool
	agreed  []int64
}

// nodeState is shared by the images of one node (one conduit): the
// operators' failures, which the node's callbacks record wherever they run.
type nodeState struct {
	failures atomic.Uint64
	mu       sync.Mutex
	lastErr  error
	checked  bool
	// images known to have stopped (Stopped), by engine image number, and
	// whether there is any (read without the lock on coindexed accesses)
	stopped    map[int]bool // under mu
	anyStopped atomic.Bool
}

var nodes sync.Map // coll.Conduit -> *nodeState

func nodeOf(c coll.Conduit, checked bool) *nodeState {
	ns, _ := nodes.LoadOrStore(c, &nodeState{checked: checked})
	return ns.(*nodeState)
}

func (ns *nodeState) fail(err error) {
	ns.mu.Lock()
	ns.lastErr = err
	ns.mu.Unlock()
	ns.failures.Add(1)
}

func (ns *nodeState) since(n uint64) error {
	if ns.failures.Load() == n {
		return nil
	}
	ns.mu.Lock()
	defer ns.mu.Unlock()
	return ns.lastErr
}

// Init initializes the coarray face for one image: it calls coll.Init (the
// same collective rules apply: every image of every node, on its own
// goroutine, with the same table and options) with a function table made
// of the built-in operators and opts.Operators, and returns the image in
// the initial team. table and myImage are coll.Init's (nil and 0 for one
// image per node).
func Init(c coll.Conduit, table *images.Table, myImage int, opts Options) (*Image, error) {
	checked := opts.Checked || os.Getenv("GOCOLL_CAF_CHECK") == "1"
	ns := nodeOf(c, checked)
	fns := append([]reducefn.Entry(nil), builtin.entries...)
	nb := len(fns)
	for _, op := range opts.Operators {
		fns = append(fns, op.entry(ns))
	}
	im, err := coll.Init(c, table, myImage, fns, 0, opts.Coll)
	if err != nil {
		return nil, collErr(err)
	}
	sh := &shared{im: im, node: ns, nbuilt: nb, ops: opts.Operators, checked: checked}
	return &Image{sh: sh, team: &Team{t: im.TeamAll(), number: -1, owner: sh}}, nil
}

// Coll is the image's handle on gocoll's collectives, for programs that use
// both faces. Its function table starts with the coarray face's entries.
func (img *Image) Coll() *coll.Image { return img.sh.im }

// ThisImage is this image's index in the current team, from 1 to
// NumImages (Fortran's THIS_IMAGE(); gocoll's team ranks start at 0).
func (img *Image) ThisImage() int { return img.team.t.Rank(img.sh.im.ImageNum()) + 1 }

// NumImages is the number of images in the current team (Fortran's
// NUM_IMAGES()).
func (img *Image) NumImages() int { return img.team.t.Size() }

// Team is the current team (GET_TEAM(CURRENT_TEAM)).
func (img *Image) Team() *Team { return img.team }

// SyncAll is SYNC ALL: a barrier over the current team.
func (img *Image) SyncAll() error {
	if err := img.usable(); err != nil {
		return err
	}
	return collErr(img.sh.im.Barrier(img.team.t))
}

// GatherAllBytes gathers every image's src, of one length on every image,
// into dst on every image of the current team, in image order (dst holds
// NumImages times len(src) bytes). The gfortran runtime learns every
// image's address of a coarray with it.
func (img *Image) GatherAllBytes(dst, src []byte) error {
	if err := img.usable(); err != nil {
		return err
	}
	if len(src) == 0 || len(dst) != len(src)*img.NumImages() {
		return fmt.Errorf("%w: %d bytes gathered from each of %d images into %d", ErrLength, len(src), img.NumImages(), len(dst))
	}
	return collErr(img.sh.im.GatherAll(img.team.t, dst, src, len(src), flags))
}

// SyncTeam is SYNC TEAM (t): a barrier over the images of t, which is the
// current team, one of its ancestors, or a team formed on the current team
// that the image is in (one it may change to); the images of t execute it.
func (img *Image) SyncTeam(t *Team) error {
	if err := img.usable(); err != nil {
		return err
	}
	ok := t != nil && t.owner == img.sh && t.parent == img.team && t.t.Contains(img.sh.im.ImageNum())
	for a := img.team; a != nil && !ok; a = a.parent {
		ok = a == t
	}
	if !ok {
		return fmt.Errorf("%w: SYNC TEAM of a team that is neither the current team, an ancestor, nor one formed on it", ErrTeam)
	}
	return collErr(img.sh.im.Barrier(t.t))
}

// Close ends the image's use of gocoll (coll.Image.Close): a node must call
// it (or go on calling collectives) before it stops, so that what it owes
// its peers gets done.
func (img *Image) Close() error { return collErr(img.sh.im.Close()) }

// usable reports whether img may start a collective: it is the Image of the
// team the image executes in.
func (img *Image) usable() error {
	if img == nil || img.sh == nil {
		return ErrNotCurrent
	}
	if img.state != running {
		return ErrNotCurrent
	}
	return nil
}

// Stopped records that the image with index i in the initial team has
// initiated normal termination (Fortran's STOP or END PROGRAM) after it
// had started the collectives that started counts (its coll.Image.Started,
// taken once they were finished), which the caller learned by its own
// means (the gfortran and flang runtime: a message the image sends when it
// stops). From then on every collective, SYNC ALL, FORM TEAM, CHANGE TEAM
// and END TEAM of a team that contains it, that it did not start, returns
// ErrStoppedImage on the node's images, those waiting in one now at once
// (coll.Image.ImageGone); the ones it started complete. A call that began
// waiting just as Stopped ran may miss it: a caller that keeps learning of
// stops calls Stopped again (the first counts stay). Unlike the Image's
// other methods, any goroutine may call it, through any Image of the node.
func (img *Image) Stopped(i int, started coll.Started) error {
	if img == nil || img.sh == nil {
		return ErrNotCurrent
	}
	all := img.sh.im.TeamAll()
	if i < 1 || i > all.Size() {
		return fmt.Errorf("%w: %d, the initial team has images 1..%d", ErrInvalidImage, i, all.Size())
	}
	n := all.Image(i - 1)
	ns := img.sh.node
	ns.mu.Lock()
	if ns.stopped == nil {
		ns.stopped = map[int]bool{}
	}
	ns.stopped[n] = true
	ns.mu.Unlock()
	ns.anyStopped.Store(true)
	_, err := img.sh.im.ImageGone(n, started, &stoppedError{i})
	return collErr(err)
}

// ImageStopped reports whether the image with index i in the current team
// is known to have stopped (Stopped): IMAGE_STATUS(i) is
// STAT_STOPPED_IMAGE. False for an index outside the team.
func (img *Image) ImageStopped(i int) bool {
	t, ns := img.team.t, img.sh.node
	if i < 1 || i > t.Size() || !ns.anyStopped.Load() {
		return false
	}
	ns.mu.Lock()
	defer ns.mu.Unlock()
	return ns.stopped[t.Image(i-1)]
}

// StoppedImages is STOPPED_IMAGES(TEAM=t): the indices in t of its images
// known to have stopped (Stopped), ascending; t nil is the current team.
func (img *Image) StoppedImages(t *Team) []int {
	if t == nil {
		t = img.team
	}
	var list []int
	ns := img.sh.node
	ns.mu.Lock()
	defer ns.mu.Unlock()
	for r := range t.t.Size() {
		if ns.stopped[t.t.Image(r)] {
			list = append(list, r+1)
		}
	}
	return list
}
