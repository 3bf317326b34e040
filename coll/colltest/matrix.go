package colltest

import (
	"context"
	"fmt"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/images"
	gsync "github.com/gocoll/gocoll/sync"
)

// The matrix checks the data-movement collectives where nodes host several
// images: every collective, at roots first, middle and last, with Single
// and Local addressing, called in each form (every image for itself with
// its own address, every image with Single lists, a representative for the
// node with an m form, and a representative with the single-address form
// where every node has one image), in MY/MY, ALL/ALL and NO/NO modes and
// non-blocking. Every image's buffers are its own allocations at an offset
// of its own, so no two images share an address.

// Form is how the images of a node call a collective.
type Form int

const (
	// EveryImage: every image calls with AllThreads and its own address.
	EveryImage Form = iota
	// EveryImageM: every image calls an m form with AllThreads and Single lists.
	EveryImageM
	// Representative: one image calls an m form for the node's images.
	Representative
	// RepresentativeSingle: one image calls a single-address form (one
	// image per node only).
	RepresentativeSingle
)

func (fm Form) String() string {
	return [...]string{"every image", "every image, m form", "representative, m form", "representative, single address"}[fm]
}

// MatrixConfig sizes the matrix.
type MatrixConfig struct {
	// Sizes are block sizes, taken in turn (default 1, 33, 300).
	Sizes []int
	// InFlight is how many non-blocking calls are in flight at once (default 3).
	InFlight int
}

// mode is one way of synchronizing a call.
type mode struct {
	name string
	f    gsync.Flags
	nb   bool
}

var modes = []mode{
	{"MY/MY", gsync.InMySync | gsync.OutMySync, false},
	{"ALL/ALL", gsync.InAllSync | gsync.OutAllSync, false},
	{"NO/NO", gsync.InNoSync | gsync.OutNoSync, false},
	{"NB", gsync.InMySync | gsync.OutMySync, true},
}

// mcall is one collective of the matrix as one image (or representative)
// makes it: the members it calls for, and their buffers.
type mcall struct {
	k        *kind
	t        *images.Team
	it, root int
	n        int
	f        gsync.Flags
	fm       Form
	ranks    []int    // team ranks of the members this call covers
	dst, src [][]byte // by entry of ranks
}

// Matrix runs the matrix on team t; every image of t calls it, nd being its
// node.
func Matrix(im *coll.Image, nd *Node, t *images.Team, cfg MatrixConfig) error {
	if cfg.Sizes == nil {
		cfg.Sizes = []int{1, 33, 300}
	}
	if cfg.InFlight == 0 {
		cfg.InFlight = 3
	}
	P := t.Size()
	me := t.Rank(im.ImageNum())
	local := t.Members(t.NodeRank(im.Node()))
	isRep := local[0] == me
	onePerNode := im.Images() == im.Table().Nodes()
	group := fmt.Sprintf("matrix %d", t.ID())
	it := 100000
	for ki := range kinds {
		k := &kinds[ki]
		for _, root := range roots(k, P) {
			for _, addr := range addressing {
				for _, fm := range []Form{EveryImage, EveryImageM, Representative, RepresentativeSingle} {
					if (fm == EveryImageM && addr == gsync.Local) || (fm == RepresentativeSingle && !onePerNode) {
						continue // forbidden combinations; see the misuse tests
					}
					for _, md := range modes {
						it++
						n := cfg.Sizes[it%len(cfg.Sizes)]
						f := md.f | addr
						if fm == EveryImage || fm == EveryImageM {
							f |= gsync.AllThreads
						}
						ranks := []int{me}
						if fm == Representative || fm == RepresentativeSingle {
							ranks = local
						}
						calls := 1
						if md.nb {
							calls = cfg.InFlight
						}
						rep := fm == Representative || fm == RepresentativeSingle
						calling := !rep || isRep
						if err := matrixCase(im, nd, t, group, len(local), calling, rep, md, func() []*mcall {
							cs := make([]*mcall, calls)
							for i := range cs {
								cs[i] = newMCall(im, t, k, it+i*7919, root, n, f, fm, ranks)
							}
							return cs
						}); err != nil {
							return fmt.Errorf("%s root %d %v %v %s n=%d: %w", k.name, root, addr, fm, md.name, n, err)
						}
					}
				}
			}
		}
	}
	return im.Barrier(t)
}

// matrixCase runs one case: the calls that prepare makes (when calling)
// are started, waited for (in another order than started) and checked. In
// NO/NO mode barriers over the team come before and after. A
// representative's call must not overlap an initiation of another image of
// the node (the spec's rule for calls without AllThreads), so the node's
// members meet before and after it.
func matrixCase(im *coll.Image, nd *Node, t *images.Team, group string, members int, calling, rep bool, md mode, prepare func() []*mcall) error {
	var cs []*mcall
	if calling {
		cs = prepare()
	}
	noNo := md.name == "NO/NO"
	if noNo {
		if err := im.Barrier(t); err != nil {
			return err
		}
	}
	if rep {
		nd.Rendezvous(group, members)
	}
	hs := make([]gsync.Handle, len(cs))
	for i, c := range cs {
		h, err := c.start(im)
		if err != nil {
			return err
		}
		if !md.nb {
			if err := h.Wait(context.Background()); err != nil {
				return err
			}
			continue
		}
		hs[i] = h
	}
	for i := len(hs) - 1; i >= 0; i-- {
		if err := hs[i].Wait(context.Background()); err != nil {
			return err
		}
	}
	if rep {
		nd.Rendezvous(group, members)
	}
	if noNo {
		if err := im.Barrier(t); err != nil {
			return err
		}
	}
	for _, c := range cs {
		if err := c.check(); err != nil {
			return err
		}
	}
	return nil
}

// newMCall allocates and fills the buffers of the members of ranks. An
// argument that does not apply to a member is nil with Local addressing and
// a buffer of the size it would have with Single.
func newMCall(im *coll.Image, t *images.Team, k *kind, it, root, n int, f gsync.Flags, fm Form, ranks []int) *mcall {
	P := t.Size()
	c := &mcall{k: k, t: t, it: it, root: root, n: n, f: f, fm: fm, ranks: ranks}
	alloc := func(r, blocks, full int) []byte {
		if blocks == 0 && f&gsync.Single == 0 {
			return nil
		}
		off := 1 + (t.Image(r)*5+it)%13 // each image's buffer at an offset of its own
		b := make([]byte, off+max(blocks, full)*n)
		return b[off:]
	}
	full := func(b func(int, bool) int) int { return max(b(P, true), b(P, false)) }
	for _, r := range ranks {
		src := alloc(r, k.src(P, r == root), full(k.src))
		for b := 0; b < len(src)/n; b++ {
			for i := range n {
				src[b*n+i] = k.srcVal(it, r, b, i)
			}
		}
		dst := alloc(r, k.dst(P, r == root), full(k.dst))
		for i := range dst {
			dst[i] = 0xEE
		}
		c.dst, c.src = append(c.dst, dst), append(c.src, src)
	}
	return c
}

// start initiates the call in its form.
func (c *mcall) start(im *coll.Image) (gsync.Handle, error) {
	t, n, f := c.t, c.n, c.f
	if c.fm == EveryImage || c.fm == RepresentativeSingle {
		return c.k.nb(im, t, c.dst[0], c.root, c.src[0], n, f)
	}
	// The m forms: lists of NImages entries with Single, of the node's
	// images with Local; the root's single argument as it is.
	size, base := im.Images(), 0
	if f&gsync.Single == 0 {
		tb := im.Table()
		size, base = tb.On(im.Node()), tb.First(im.Node())
	}
	dsts, srcs := make([][]byte, size), make([][]byte, size)
	var rootDst, rootSrc []byte
	for i, r := range c.ranks {
		dsts[t.Image(r)-base], srcs[t.Image(r)-base] = c.dst[i], c.src[i]
		if r == c.root || (f&gsync.Single != 0 && rootDst == nil) {
			rootDst, rootSrc = c.dst[i], c.src[i]
		}
	}
	return c.k.nbm(im, t, dsts, rootDst, c.root, srcs, rootSrc, n, f)
}

// check verifies the destinations of the call's members.
func (c *mcall) check() error {
	P := c.t.Size()
	for i, r := range c.ranks {
		blocks := c.k.dst(P, r == c.root)
		for b := 0; b < blocks; b++ {
			for j := 0; j < c.n; j++ {
				if got, want := c.dst[i][b*c.n+j], c.k.dstVal(c.it, r, c.root, b, j); got != want {
					return fmt.Errorf("rank %d (image %d) dst block %d byte %d = %#x, want %#x",
						r, c.t.Image(r), b, j, got, want)
				}
			}
		}
	}
	return nil
}
