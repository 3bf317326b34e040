package main

// The runtime's calls of the MPI binding, but for coindexed access and the
// atomics (coindexed.go, atomics.go): Init, Finalize, World, Abort, the
// conduit, and the image control messages that travel beside the
// collectives on a communicator of their own (ctl): SYNC IMAGES' and the
// notice an image sends every other when it stops.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/gocoll/gocoll/coarray"
	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/mpiconduit"
	"github.com/gocoll/gocoll/mpiconduit/mpi"
)

// Tags on ctl.
const (
	syncTag = 1 // SYNC IMAGES
	stopTag = 2 // an image stopped
)

var (
	ctl   *mpi.Comm // a duplicate of MPI_COMM_WORLD
	stops *watch    // other images' stop notices
)

// mpiStart initializes MPI and returns the conduit of MPI_COMM_WORLD.
func mpiStart() (coll.Conduit, error) {
	if _, err := mpi.Init(mpi.ThreadMultiple); err != nil {
		return nil, err
	}
	var err error
	if ctl, err = mpi.World().Dup(); err != nil {
		return nil, err
	}
	openWindow()
	return mpiconduit.NewConduit(mpi.World())
}

// mpiStop finalizes MPI.
func mpiStop() error {
	err := closeWindow()
	if ctl != nil {
		err = errors.Join(err, ctl.Free())
	}
	return errors.Join(err, mpi.Finalize())
}

// mpiAbort ends every image of the job with code (ERROR STOP).
func mpiAbort(code int) { _ = mpi.Abort(mpi.World(), code) }

// watch is the goroutine that receives the other images' stop notices:
// it tells stopped of each (the image's rank and what it had started,
// coll.Started), and again of every one heard so far on each round, so
// that a collective that began to wait for a stopped image after the first
// word is failed too (coarray.Image.Stopped).
type watch struct {
	started []coll.Started // by rank: what each image that stopped had started; nil for the others
	heard   []atomic.Bool  // by rank
	quit    chan struct{}
	ended   chan struct{}
}

// watchInterval is how often the watcher looks for notices: a stop is known
// to the others within about that.
const watchInterval = 5 * time.Millisecond

// watchStops starts the watcher.
func watchStops(stopped func(rank int, started coll.Started)) *watch {
	n := ctl.Size()
	w := &watch{started: make([]coll.Started, n), heard: make([]atomic.Bool, n), quit: make(chan struct{}), ended: make(chan struct{})}
	go w.run(stopped)
	return w
}

func (w *watch) run(stopped func(rank int, started coll.Started)) {
	defer close(w.ended)
	t := time.NewTicker(watchInterval)
	defer t.Stop()
	for {
		select {
		case <-w.quit:
			return
		case <-t.C:
		}
		for {
			if st, ok, err := ctl.Iprobe(mpi.AnySource, stopTag); err != nil || !ok || w.receive(st) != nil {
				break
			}
		}
		for r := range w.heard {
			if w.heard[r].Load() {
				stopped(r, w.started[r])
			}
		}
	}
}

// receive takes the notice that st describes.
func (w *watch) receive(st mpi.Status) error {
	b := make([]byte, st.Count)
	if _, err := ctl.Recv(b, st.Source, stopTag); err != nil {
		return err
	}
	started := coll.Started{}
	for ; len(b) >= 16; b = b[16:] {
		started[binary.LittleEndian.Uint64(b)] = binary.LittleEndian.Uint64(b[8:])
	}
	w.started[st.Source] = started
	w.heard[st.Source].Store(true)
	return nil
}

// stop ends the watcher, announces this image's stop to every other, with
// what it had started (its collectives are finished: Close), and waits
// until every other image has stopped too (normal termination: the program
// ends when every image has).
func (w *watch) stop(started coll.Started) error {
	close(w.quit)
	<-w.ended
	b := make([]byte, 0, 16*len(started))
	for id, n := range started {
		b = binary.LittleEndian.AppendUint64(b, id)
		b = binary.LittleEndian.AppendUint64(b, n)
	}
	var errs []error
	var sends []*mpi.Request
	for r := range ctl.Size() {
		if r != ctl.Rank() {
			q, err := ctl.Isend(b, r, stopTag)
			errs = append(errs, err)
			if err == nil {
				sends = append(sends, q)
			}
		}
	}
	for left := ctl.Size() - 1 - w.count(); left > 0; left-- {
		st, err := ctl.Probe(mpi.AnySource, stopTag)
		if err == nil {
			err = w.receive(st)
		}
		if err != nil {
			errs = append(errs, err)
			break
		}
	}
	for _, q := range sends {
		_, err := q.Wait()
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// count is how many images' notices were heard.
func (w *watch) count() int {
	n := 0
	for r := range w.heard {
		if w.heard[r].Load() {
			n++
		}
	}
	return n
}

// syncWith is SYNC IMAGES with the images of the current team whose
// indices and ranks are given: one empty message to each and one from
// each. MPI keeps the messages of a pair in order, so the k-th SYNC IMAGES
// of one image with another matches the other's k-th with it, as the
// standard says. A partner that stopped before sending its message gives
// ErrStoppedImage.
func syncWith(indices, ranks []int) error {
	if len(ranks) == 0 {
		return nil
	}
	var none [0]byte
	sends := make([]*mpi.Request, 0, len(ranks))
	recvs := make([]*mpi.Request, 0, len(ranks))
	var err error
	for _, r := range ranks {
		var q *mpi.Request
		if q, err = ctl.Isend(none[:], r, syncTag); err != nil {
			break
		}
		sends = append(sends, q)
		if q, err = ctl.Irecv(none[:], r, syncTag); err != nil {
			break
		}
		recvs = append(recvs, q)
	}
	if err == nil {
		err = awaitSync(indices, ranks, recvs)
	}
	for _, q := range append(sends, recvs...) {
		if q.Done() {
			continue
		}
		if err != nil && !q.Done() {
			_ = q.Cancel()
		}
		_, _ = q.Wait()
	}
	return err
}

// awaitSync waits for SYNC IMAGES' receives, or for the stop of one of
// their images (checked once more after the stop was heard: its message,
// sent before its notice, may be in).
func awaitSync(indices, ranks []int, recvs []*mpi.Request) error {
	for spins := 0; ; spins++ {
		left := false
		for k, q := range recvs {
			if q.Done() {
				continue
			}
			gone := stops != nil && stops.heard[ranks[k]].Load()
			done, _, err := q.Test()
			if err != nil {
				return err
			}
			if !done && gone {
				return fmt.Errorf("%w: SYNC IMAGES with image %d", coarray.ErrStoppedImage, indices[k])
			}
			left = left || !done
		}
		if !left {
			return nil
		}
		if spins < 1000 {
			runtime.Gosched()
		} else {
			time.Sleep(50 * time.Microsecond)
		}
	}
}
