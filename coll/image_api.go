package coll

import "github.com/gocoll/gocoll/images"

// TeamAll is the team of every image (GASNET_TEAM_ALL).
func (im *Image) TeamAll() *images.Team {
	return im.core().TeamAll()
}

// ImageNum is this image's number.
func (im *Image) ImageNum() int {
	return im.core().ImageNum()
}

// Images is the number of images in the job (NImages).
func (im *Image) Images() int {
	return im.core().Images()
}

// Node is the node (conduit endpoint, MPI rank) hosting this image.
func (im *Image) Node() int {
	return im.core().Node()
}

// Segment is the image's segment (Options.SegmentSize bytes; nil without
// one): data areas in it may be named with SrcInSegment and DstInSegment,
// and then move one-sided (see package documentation).
func (im *Image) Segment() []byte {
	return im.core().Segment()
}

// Table is the images table given to Init.
func (im *Image) Table() *images.Table {
	return im.core().Table()
}

// Poll makes progress on every outstanding collective of this node.
func (im *Image) Poll() error {
	return im.core().Poll()
}

// Live is the number of collectives still in progress on this node,
// including synced OUT_NOSYNC ones whose last sends are in flight.
func (im *Image) Live() int {
	return im.core().Live()
}

// Close ends the image's use of gocoll: later calls return ErrClosed. It
// is not collective: each image closes for itself (a node's images may
// finish at different times, and nothing between nodes needs to agree on
// when). When the node's last image closes, Close makes progress until
// the node's collectives are finished, which is what the node still owes
// its peers (forwarding, relaxed sends), and then ends the progress agent,
// if any. Handles not synced before Close are left as they are.
func (im *Image) Close() error {
	return im.core().Close()
}

// Started is how many collectives this node has started on each of its
// teams, by team ID (images.Team.ID): what ImageGone needs to know of an
// image that is gone. An image that stops (package coarray's STOP) sends
// its own to the others once its collectives are finished (Close).
type Started = map[uint64]uint64

// Started is this node's Started now. Any goroutine may call it.
func (im *Image) Started() Started {
	return im.core().Started()
}

// ImageGone tells the node that image (an image number of the job) will
// not take part in any more collectives, having started on each of its
// teams the collectives that started counts (its node's Started, which
// the caller learned by its own means; a team it lacks counts 0): it
// stopped, failed or died. From then on a collective of a team that
// contains image fails on this node when image did not start it: those in
// flight at once, their waits returning an error that wraps ErrImageGone
// and cause (as the stall watchdog's would after its timeout, and the
// operations are left as the watchdog leaves them), and later ones at their
// call. Collectives that image started complete, since what it owed them
// was sent before it was gone. It returns how many collectives in flight
// it failed. A collective that began to wait just as ImageGone ran may
// wait on; a caller that keeps learning of images that are gone calls
// ImageGone again (the first call's counts stay). Any goroutine may call it.
func (im *Image) ImageGone(image int, started Started, cause error) (int, error) {
	return im.core().ImageGone(image, started, cause)
}

// Barrier is a collective barrier over the team (dissemination between
// nodes), called by every image of the team, like a collective with
// AllThreads. Waiting in it makes progress on every outstanding collective,
// so a batch of OUT_NOSYNC collectives between two Barriers completes.
func (im *Image) Barrier(t *images.Team) error {
	return im.core().Barrier(t)
}

// NodeBarrier is Barrier called once per node, by one of the node's
// images that is a member of the team, for all of them (for a program
// whose images make their collectives through a representative).
func (im *Image) NodeBarrier(t *images.Team) error {
	return im.core().NodeBarrier(t)
}

// Split divides the parent team by color, as MPI_Comm_split: the images
// that give the same color form a team, ranked by key (ties by parent
// rank); NoColor (images.NoColor) joins none and gets nil. It is collective
// over the parent: every image of the parent calls it, in the same order
// as its other collectives on the parent. A negative color other than
// NoColor, given by any image, fails the call on every image with ErrColor.
func (im *Image) Split(parent *images.Team, color, key int) (*images.Team, error) {
	return im.core().Split(parent, color, key)
}

// TeamFromImages makes the team of the given images (ranked in list order)
// of the parent; images not in the list get nil. It is collective over the
// parent: every image of the parent calls it with the same list (a list
// that differs, or that names an image twice or outside the parent, fails
// on every image with ErrMembers).
func (im *Image) TeamFromImages(parent *images.Team, list []int) (*images.Team, error) {
	return im.core().TeamFromImages(parent, list)
}

// Destroy ends the image's use of team t: any later use of t by the image
// is an error (ErrTeamDestroyed). It is not collective; every member calls
// it for itself once it is done with t (its handles on t synced). When the
// node's last member destroyed t, the call makes progress until the node's
// collectives on t are finished and frees the team's context for new teams.
// TeamAll cannot be destroyed.
func (im *Image) Destroy(t *images.Team) error {
	return im.core().Destroy(t)
}

// TeamsLive is the number of teams, TeamAll aside, that the node hosts
// members of and that not all of them destroyed yet.
func (im *Image) TeamsLive() int {
	return im.core().TeamsLive()
}

// ContextsInUse is the number of team contexts in use on the node,
// TeamAll's included.
func (im *Image) ContextsInUse() int {
	return im.core().ContextsInUse()
}
