package main

import (
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/images"
	"github.com/gocoll/gocoll/mpiconduit"
	"github.com/gocoll/gocoll/mpiconduit/mpi"
	"github.com/gocoll/gocoll/reducefn"
	gsync "github.com/gocoll/gocoll/sync"
)

// The images-per-node rows: gocoll with T = np images on ONE process (one
// node of T images) against the gocoll rows' one image on each of np
// processes, the same number of images. Rank 0 runs them alone, on a
// conduit over MPI_COMM_SELF with T image goroutines, while the other ranks
// sleep; their C side is the native collective over all np ranks, as in the
// one-image rows. The rows are named with "Tnp" for --ops and printed with
// T spelled out (gocoll.T2.Broadcast at np 2), so that the output says which
// T it measured.

// imagesPrefix starts the names of the images-per-node entries.
const imagesPrefix = "gocoll.Tnp."

// imagesEntries are the rows of T images on one process. oneImage names
// the row of one image per process each is compared with.
func imagesEntries(b *bench) []entry {
	es := []entry{
		{name: imagesPrefix + "Broadcast", oneImage: "gocoll.Broadcast", goLoop: b.tBroadcast, cLoop: b.cBcast, drain: b.tBarrier},
		{name: imagesPrefix + "BroadcastM", oneImage: "gocoll.Broadcast", goLoop: b.tBroadcastM, cLoop: b.cBcast, drain: b.tNodeBarrier},
		{name: imagesPrefix + "ReduceAll", oneImage: "gocoll.ReduceAll", goLoop: b.tReduceAll, cLoop: b.cAllreduce, drain: b.tBarrier},
		{name: imagesPrefix + "ReduceAllM", oneImage: "gocoll.ReduceAll", goLoop: b.tReduceAllM, cLoop: b.cAllreduce, drain: b.tNodeBarrier},
	}
	for i := range es {
		// T = np = 1 would measure the one-image rows again, on one rank.
		es[i].sized, es[i].minRanks = true, 2
	}
	return es
}

// label is the name printed for e at np ranks: the images-per-node rows
// spell T out.
func (e entry) label(np int) string {
	if e.oneImage == "" {
		return e.name
	}
	return imagesLabel(e.name, np)
}

// imagesLabel is an images-per-node name with T spelled out.
func imagesLabel(name string, t int) string {
	return strings.Replace(name, ".Tnp.", ".T"+strconv.Itoa(t)+".", 1)
}

// imagesAlias reads an images-per-node name with T spelled out, as printed
// (gocoll.T2.Broadcast, any case): the name with Tnp in its place and T.
func imagesAlias(s string) (name string, t int, ok bool) {
	const pre = "gocoll.t"
	if len(s) <= len(pre) || !strings.EqualFold(s[:len(pre)], pre) {
		return "", 0, false
	}
	num, op, ok := strings.Cut(s[len(pre):], ".")
	if !ok || num == "" || strings.Trim(num, "0123456789") != "" {
		return "", 0, false
	}
	t, err := strconv.Atoi(num)
	if err != nil || t < 1 {
		return "", 0, false
	}
	return imagesPrefix + op, t, true
}

// imagesJob is rank 0's node of T images on one process. Each image is a
// goroutine of its own (not locked to an OS thread, unlike collbench's main
// goroutine) that called coll.Init for it and then runs the work it is
// handed, so that a timed loop on the main goroutine measures T goroutines
// calling gocoll. Every image has buffers of its own (gocoll requires the
// areas of a node's images to be distinct memory).
type imagesJob struct {
	t    int
	cd   *mpiconduit.Conduit
	ims  []*coll.Image
	work []chan imageWork // one per image
	done chan error       // one result per piece of work handed out
	wg   sync.WaitGroup   // the image goroutines
	// solo measures on rank 0 alone: its barrier is over MPI_COMM_SELF.
	solo *bench

	bcast      [][]byte // per image: Broadcast destination (the root's is also the source)
	rsrc, rdst [][]byte // per image: ReduceAll source and destination, float64s
	// the m forms' lists, resliced to the size by the representative
	dsts, srcs [][]byte
}

// imageOp is what an image goroutine runs: iters collectives of size bytes
// as image me (the representative, image 0, for the m forms).
type imageOp func(j *imagesJob, me, size, iters int) error

// imageWork is one piece of work handed to an image goroutine.
type imageWork struct {
	op          imageOp
	size, iters int
}

// newImagesJob starts a node of t images on this process alone: a conduit
// over MPI_COMM_SELF and t goroutines that each initialize their image,
// with buffers for messages up to maxSize bytes.
func newImagesJob(t, maxSize int, yield bool) (*imagesJob, error) {
	table, err := images.New([]int{t})
	if err != nil {
		return nil, err
	}
	cd, err := mpiconduit.NewConduit(mpi.Self())
	if err != nil {
		return nil, err
	}
	j := &imagesJob{
		t: t, cd: cd, ims: make([]*coll.Image, t), work: make([]chan imageWork, t), done: make(chan error, t),
		solo: &bench{comm: mpi.Self(), np: 1, yield: yield},
		dsts: make([][]byte, t), srcs: make([][]byte, t),
	}
	n := elems(maxSize)
	for k := range t {
		j.bcast = append(j.bcast, make([]byte, maxSize))
		src := make([]float64, n)
		for i := range src {
			src[i] = float64(i%1000) + float64(k) // as newBench fills rank k's
		}
		j.rsrc = append(j.rsrc, reducefn.Bytes(src))
		j.rdst = append(j.rdst, make([]byte, 8*n))
	}
	for i := range j.bcast[root] {
		j.bcast[root][i] = byte(i)
	}
	inits := make(chan error, t)
	for k := range t {
		j.work[k] = make(chan imageWork)
		j.wg.Add(1)
		go j.image(k, table, inits)
	}
	var errs []error
	for range t {
		errs = append(errs, <-inits)
	}
	if err := errors.Join(errs...); err != nil {
		j.close()
		return nil, fmt.Errorf("images job of %d images: %w", t, err)
	}
	return j, nil
}

// image is image me's goroutine: it initializes the image (coll.Init is
// called by every image of a node, each from its own goroutine), reports to
// inits, then serves work until its channel closes.
func (j *imagesJob) image(me int, table *images.Table, inits chan<- error) {
	defer j.wg.Done()
	im, err := coll.Init(j.cd, table, me, []reducefn.Entry{fnSum: reducefn.Sum[float64]()}, 0, coll.Options{})
	j.ims[me] = im
	inits <- err
	for w := range j.work[me] {
		if err == nil { // after a failed Init only close comes
			j.done <- j.safely(w, me)
		}
	}
}

// safely runs one piece of work, turning a panic into an error (as call
// does for the loops) so that rank 0 does not die leaving the others asleep.
func (j *imagesJob) safely(w imageWork, me int) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("image %d: panic: %v\n%s", me, p, debug.Stack())
		}
	}()
	return w.op(j, me, w.size, w.iters)
}

// close ends the image goroutines and frees the conduit; nothing may be in
// flight (the drains leave nothing).
func (j *imagesJob) close() error {
	for _, c := range j.work {
		close(c)
	}
	j.wg.Wait()
	return j.cd.Close()
}

// run hands op to every image (all) or to the representative, image 0, and
// waits for them: the T goroutines run while the caller blocks.
func (j *imagesJob) run(op imageOp, all bool, size, iters int) error {
	n := 1
	if all {
		n = j.t
	}
	for k := range n {
		j.work[k] <- imageWork{op: op, size: size, iters: iters}
	}
	var errs []error
	for range n {
		if err := <-j.done; err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// withT is the mode of the rows where every image calls for itself.
const withT = myMy | gsync.AllThreads

// The image operations, as the one-image rows: root image 0, whose
// Broadcast destination is its source; ReduceAll sums one element of
// elems(size) float64 per image (cyclic layout), T elements in all.

func (j *imagesJob) broadcast(me, size, iters int) error {
	im := j.ims[me]
	t, dst, src := im.TeamAll(), j.bcast[me][:size], []byte(nil)
	if me == root {
		src = dst
	}
	for range iters {
		if err := im.Broadcast(t, dst, root, src, size, withT); err != nil {
			return err
		}
	}
	return nil
}

func (j *imagesJob) broadcastM(me, size, iters int) error {
	im := j.ims[me]
	for k := range j.dsts {
		j.dsts[k] = j.bcast[k][:size]
	}
	t, src := im.TeamAll(), j.dsts[root]
	for range iters {
		if err := im.BroadcastM(t, j.dsts, root, src, size, myMy); err != nil {
			return err
		}
	}
	return nil
}

func (j *imagesJob) reduceAll(me, size, iters int) error {
	n := elems(size)
	im := j.ims[me]
	t, dst, src := im.TeamAll(), j.rdst[me][:8*n], j.rsrc[me][:8*n]
	for range iters {
		if err := im.ReduceAll(t, dst, src, coll.Cyclic, 8*n, j.t, fnSum, 0, withT); err != nil {
			return err
		}
	}
	return nil
}

func (j *imagesJob) reduceAllM(me, size, iters int) error {
	n := elems(size)
	im := j.ims[me]
	for k := range j.dsts {
		j.dsts[k], j.srcs[k] = j.rdst[k][:8*n], j.rsrc[k][:8*n]
	}
	t := im.TeamAll()
	for range iters {
		if err := im.ReduceAllM(t, j.dsts, j.srcs, coll.Cyclic, 8*n, j.t, fnSum, 0, myMy); err != nil {
			return err
		}
	}
	return nil
}

// The drains: Barrier is called by every image, NodeBarrier by the
// representative for the node, as the rows' collectives are.

func (j *imagesJob) barrier(me, _, _ int) error { return j.ims[me].Barrier(j.ims[me].TeamAll()) }

func (j *imagesJob) nodeBarrier(me, _, _ int) error {
	return j.ims[me].NodeBarrier(j.ims[me].TeamAll())
}

// The loops and drains of the entries: bench methods, so that the entry
// table can be built before the job exists (it exists on rank 0 only).

func (b *bench) tBroadcast(size, iters int) error {
	return b.imgs.run((*imagesJob).broadcast, true, size, iters)
}

func (b *bench) tBroadcastM(size, iters int) error {
	return b.imgs.run((*imagesJob).broadcastM, false, size, iters)
}

func (b *bench) tReduceAll(size, iters int) error {
	return b.imgs.run((*imagesJob).reduceAll, true, size, iters)
}

func (b *bench) tReduceAllM(size, iters int) error {
	return b.imgs.run((*imagesJob).reduceAllM, false, size, iters)
}

func (b *bench) tBarrier() error { return b.imgs.run((*imagesJob).barrier, true, 0, 0) }

func (b *bench) tNodeBarrier() error { return b.imgs.run((*imagesJob).nodeBarrier, false, 0, 0) }

// needsImages reports whether cfg selects an images-per-node row that runs
// here.
func (b *bench) needsImages(cfg config) bool {
	for _, e := range imagesEntries(b) {
		if slices.Contains(cfg.ops, e.name) && b.skip(e, cfg) == "" {
			return true
		}
	}
	return false
}

// Rank 0 tells the others that its images job is over with one byte on
// the benchmark's communicator: 0 when it went well.
const (
	releaseTag = streamTag + 2 // past the stream's two
	// idlePoll is how long a waiting rank sleeps between two tests of the
	// release: a blocking receive would busy-poll in Open MPI and take a
	// core from rank 0's images.
	idlePoll = 100 * time.Microsecond
)

// errImagesJob: rank 0's images job failed (rank 0 reports why).
var errImagesJob = errors.New("rank 0's images job failed")

// measureImages measures e's Go side, rank 0's images job, while the other
// ranks sleep. The barrier first lets every rank finish the previous step,
// so that rank 0 measures alone; the release afterwards keeps the ranks in
// step for the C side and the reductions across ranks. Only rank 0's figures
// mean anything.
func (b *bench) measureImages(e entry, size, warmup, iters int) (us, allocs float64, err error) {
	if err := b.comm.Barrier(); err != nil {
		return 0, 0, err
	}
	if b.rank != root {
		return 0, 0, b.sleepUntilReleased()
	}
	us, allocs, err = b.imgs.solo.measure(e.goLoop, e.drain, size, warmup, iters)
	if rerr := b.release(err == nil); err == nil {
		err = rerr
	}
	return us, allocs, err
}

// release sends rank 0's verdict to every other rank.
func (b *bench) release(ok bool) error {
	b.status[0] = 1
	if ok {
		b.status[0] = 0
	}
	for r := range b.np {
		if r != root {
			if err := b.comm.Send(b.status[:], r, releaseTag); err != nil {
				return err
			}
		}
	}
	return nil
}

// sleepUntilReleased waits for rank 0's release without using a core:
// test, sleep, test again.
func (b *bench) sleepUntilReleased() error {
	req, err := b.comm.Irecv(b.status[:], root, releaseTag)
	if err != nil {
		return err
	}
	for {
		done, _, err := req.Test()
		if err != nil {
			return err
		}
		if done {
			break
		}
		time.Sleep(idlePoll)
	}
	if b.status[0] != 0 {
		return errImagesJob
	}
	return nil
}

// imagesRatios pairs every images-per-node row with the one-image row of
// its size, when both ran: in a row of the result the Go columns are the
// images row's, the C columns the one-image row's Go figures, so that the
// ratio is T images on one process over one image on each of np processes.
func imagesRatios(es []entry, rows []row, np int) []row {
	type key struct {
		op   string
		size int
	}
	ran := map[key]row{}
	for _, r := range rows {
		ran[key{r.op, r.size}] = r
	}
	var out []row
	for _, e := range es {
		if e.oneImage == "" {
			continue
		}
		for _, a := range rows {
			one, ok := ran[key{e.oneImage, a.size}]
			if a.op != e.label(np) || !ok {
				continue
			}
			r := a
			r.op = a.op + "/" + one.op
			r.cAvg, r.cMin, r.cMax = one.goAvg, one.goMin, one.goMax
			r.rooted = false // a ratio of two rows has no root of its own
			if a.ratio() > 0 && one.ratio() > 0 {
				r.perNative = a.ratio() / one.ratio()
			}
			out = append(out, r)
		}
	}
	return out
}
