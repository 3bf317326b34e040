// Package gocoll is the front door of gocoll, GASNet-style collectives for
// Go over MPI: start and stop a program's image in one call each, and the
// collectives on typed slices with the defaults an MPI user expects.
//
//	im, err := gocoll.Start()
//	if err != nil {
//		log.Fatal(err)
//	}
//	defer gocoll.Stop(im)
//	sum := make([]float64, len(x))
//	err = gocoll.ReduceAll(im, sum, x, gocoll.Sum) // MPI_Allreduce
//
// Run it under mpirun, one image (one MPI process) per rank:
//
//	go build -o sum . && mpirun -np 4 ./sum
//
// # Defaults
//
// A collective of this package is blocking and runs on every image
// (TeamAll) with the sync modes IN_MYSYNC|OUT_MYSYNC: when it returns, this
// image's own data is ready (its destination written, its source free to
// reuse), and no barrier it did not ask for was made. Counts come from the
// slices' lengths; data lies in contiguous blocks, one per image, in
// rank order. Each image passes only what applies to it (the spec's
// LOCAL addressing): a root's source, everyone's destination of a
// ReduceAll, the root's destination of a Reduce. OnTeam runs a collective
// on another team, WithFlags gives the sync and addressing modes yourself.
//
// # The full design
//
// Everything else (non-blocking forms with handles, the nine sync modes,
// SINGLE addressing, several images per process with the m forms,
// aggregation, layouts, the function table) is package coll's, on the same
// *coll.Image: the typed forms there (coll.ReduceAllOf, coll.BroadcastOf,
// ...) take the team and the flags, the byte forms everything. The
// operations (Sum, ..., and OpOf for your own) are coll's.
package gocoll

import (
	"errors"
	"fmt"
	"sync"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/images"
	"github.com/gocoll/gocoll/mpiconduit"
	"github.com/gocoll/gocoll/mpiconduit/mpi"
	gsync "github.com/gocoll/gocoll/sync"
)

// ErrNotStarted: Stop of an image that Start did not return, or that was
// stopped already.
var ErrNotStarted = errors.New("gocoll: the image was not started by gocoll.Start, or was stopped")

// A StartOption adjusts Start.
type StartOption func(*startConfig)

type startConfig struct{ opts coll.Options }

// startConfigOf is the configuration opts make.
func startConfigOf(opts []StartOption) startConfig {
	var c startConfig
	for _, o := range opts {
		o(&c)
	}
	return c
}

// WithOptions starts the image with the engine's options (progress mode,
// trees, checked mode, segments, ...; package coll, Options).
func WithOptions(o coll.Options) StartOption {
	return func(c *startConfig) { c.opts = o }
}

// started is this process's image and what Stop ends with it.
var started struct {
	sync.Mutex
	im      *coll.Image
	cd      *mpiconduit.Conduit
	running bool // RunImages
}

// begin starts MPI at the level progress mode m needs (more with several
// images per process) and makes the conduit; the caller holds started.
func begin(m gsync.ProgressMode, several bool) (*mpiconduit.Conduit, error) {
	if started.im != nil || started.running {
		return nil, fmt.Errorf("%w: gocoll started already", coll.ErrInitTwice)
	}
	level := mpi.ThreadSerialized
	if m != gsync.Polling || several {
		level = mpi.ThreadMultiple
	}
	if !mpi.Initialized() {
		if _, err := mpi.Init(level); err != nil {
			return nil, fmt.Errorf("gocoll: MPI init: %w", err)
		}
	}
	if mpi.Provided() < level {
		return nil, fmt.Errorf("%w: MPI provides %v, gocoll needs %v", coll.ErrProgress, mpi.Provided(), level)
	}
	return mpiconduit.NewConduit(mpi.World())
}

// Start begins this process's part of a gocoll program (collective: every
// process of the mpirun job calls it once): MPI, at the thread level the
// progress mode needs (MPI_THREAD_SERIALIZED for the default Polling,
// MPI_THREAD_MULTIPLE for an agent), the MPI conduit over MPI_COMM_WORLD,
// and this process's image (image number = MPI rank). The operations of
// the typed collectives need no registration. A program run without
// mpirun is a job of one image.
func Start(opts ...StartOption) (*coll.Image, error) {
	c := startConfigOf(opts)
	started.Lock()
	defer started.Unlock()
	cd, err := begin(c.opts.Progress, false)
	if err != nil {
		return nil, err
	}
	im, err := coll.Init(cd, nil, 0, nil, 0, c.opts)
	if err != nil {
		return nil, errors.Join(err, cd.Close())
	}
	started.im, started.cd = im, cd
	return im, nil
}

// Stop ends the program's image (collective, like Start): it makes the
// progress it still owes the other images, closes the conduit and
// finalizes MPI. Call it once, after the image's last collective.
func Stop(im *coll.Image) error {
	started.Lock()
	defer started.Unlock()
	if im == nil || im != started.im {
		return ErrNotStarted
	}
	err := im.Close()
	err = errors.Join(err, started.cd.Close())
	started.im, started.cd = nil, nil
	return errors.Join(err, mpi.Finalize())
}

// RunImages runs k images in this process, goroutines of one MPI process
// (collective: every process of the job calls it with the same k), each
// calling body with its image, and ends them all once every body returned,
// then MPI: Start and Stop for several images per process. Image numbers
// are node-major: process p holds images p*k to p*k+k-1. The images of a
// process share its conduit; each calls the collectives for itself (the
// package's collectives add AllThreads on their own). MPI runs at
// MPI_THREAD_MULTIPLE.
func RunImages(k int, body func(im *coll.Image) error, opts ...StartOption) error {
	if k < 1 {
		return fmt.Errorf("%w: %d images per process", coll.ErrImage, k)
	}
	c := startConfigOf(opts)
	started.Lock()
	cd, err := begin(c.opts.Progress, k > 1)
	if err != nil {
		started.Unlock()
		return err
	}
	started.running = true
	started.Unlock()
	perNode := make([]int, cd.Nodes())
	for i := range perNode {
		perNode[i] = k
	}
	table, err := images.New(perNode)
	if err != nil {
		return errors.Join(err, cd.Close())
	}
	first := table.First(cd.Node())
	errs := make([]error, k)
	var wg sync.WaitGroup
	for i := range k {
		wg.Go(func() {
			im, err := coll.Init(cd, table, first+i, nil, 0, c.opts)
			if err == nil {
				err = errors.Join(body(im), im.Close())
			}
			if err != nil {
				errs[i] = fmt.Errorf("image %d: %w", first+i, err)
			}
		})
	}
	wg.Wait()
	err = errors.Join(errors.Join(errs...), cd.Close(), mpi.Finalize())
	started.Lock()
	started.running = false
	started.Unlock()
	return err
}
