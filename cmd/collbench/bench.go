package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"runtime/debug"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/images"
	"github.com/gocoll/gocoll/mpiconduit/mpi"
)

// bench holds the communicator and the buffers, allocated once for the
// largest size and shared by the Go and the C loops.
type bench struct {
	comm     *mpi.Comm
	rank, np int
	sb, rb   []byte      // max(np, 2)*maxSize bytes each (NeighborAlltoall's two blocks at np 1)
	sf, rf   []float64   // np*elems(maxSize) each
	yield    bool        // yield to the Go scheduler in long timed loops
	im       *coll.Image // gocoll's collectives, for the gocoll.* rows
	imgs     *imagesJob  // rank 0's node of np images, for the images-per-node rows
	status   [1]byte     // the release of the images-per-node rows (measureImages)
	// the buffers of the aggregate rows' members (aggregate.go)
	aggDst, aggSrc [][]byte
	aggStride      int            // bytes from one member's buffer to the next (aggBufs)
	window         []*mpi.Request // the Stream row's requests (goStream)
	streamAt       int64          // the Stream row's messages so far, Go and C loops (goStream)
	counts, displs []int          // the v rows' blocks, np each (vBlocks)
	// Kept from one call of a loop to the next (made in the warm-up),
	// released by close: the persistent rows' requests, NeighborAlltoall's
	// grid (and gocoll.NeighborExchange's), and the C loops' own (cstate),
	// whose requests keep the buffers, pinned by cPins.
	arPlan, bcPlan plan
	gPlan          gocollPlan // the gocoll.Plan.* rows' (gocoll.go)
	cart           *mpi.Comm
	grid           *images.Grid
	cs             *cState
	cPins          runtime.Pinner

	ms0, ms1 runtime.MemStats
}

func newBench(c *mpi.Comm, maxSize int, yield bool) *bench {
	b := &bench{comm: c, rank: c.Rank(), np: c.Size(), yield: yield}
	b.sb = make([]byte, maxSize*max(b.np, 2))
	b.rb = make([]byte, maxSize*max(b.np, 2))
	b.counts, b.displs = make([]int, b.np), make([]int, b.np)
	b.sf = make([]float64, elems(maxSize)*b.np)
	b.rf = make([]float64, elems(maxSize)*b.np)
	for i := range b.sb {
		b.sb[i] = byte(i + b.rank)
	}
	for i := range b.sf {
		b.sf[i] = float64(i%1000) + float64(b.rank)
	}
	return b
}

// close releases what the loops kept (collective: every rank calls it).
func (b *bench) close() error {
	err := errors.Join(b.arPlan.free(), b.bcPlan.free(), b.gPlan.free(), b.closeC())
	if b.cart != nil {
		err = errors.Join(err, b.cart.Free())
		b.cart = nil
	}
	return err
}

// chunkSeconds bounds the time between two yields to the Go scheduler in a
// timed loop. The Go runtime's sysmon treats a goroutine that has not been
// through the scheduler for 10 ms (forcePreemptNS) as hogging its P: while it
// makes back-to-back cgo calls, sysmon then retakes the P at every cgo call
// it catches, waking every 20 us and handing the P to another thread, which
// steals CPU from the MPI processes polling on the same cores (a C loop is one
// cgo call and is retaken once). Yielding every few milliseconds, in the Go
// and the C loops alike, keeps sysmon asleep; --yield=false shows the effect.
const chunkSeconds = 4e-3

// measure runs l: warm-up, barrier, timed loop. It returns this rank's
// average latency in microseconds and its Go heap allocations per iteration
// (counted outside the timed region).
func (b *bench) measure(l loop, drain func() error, size, warmup, iters int) (us, allocs float64, err error) {
	chunk := iters
	if b.yield {
		chunk = min(iters, 256)
	}
	if warmup > 0 {
		t := mpi.Wtime()
		if err := call(l, size, warmup); err != nil {
			return 0, 0, err
		}
		chunk = b.nextChunk(chunk, warmup, mpi.Wtime()-t, iters)
		if drain != nil {
			if err := drain(); err != nil {
				return 0, 0, err
			}
		}
	}
	if b.yield {
		runtime.Gosched()
	}
	runtime.ReadMemStats(&b.ms0)
	if err := b.comm.Barrier(); err != nil {
		return 0, 0, err
	}
	t0 := mpi.Wtime()
	for done, t := 0, t0; done < iters; {
		n := min(chunk, iters-done)
		if err := call(l, size, n); err != nil {
			return 0, 0, err
		}
		if done += n; done < iters {
			t1 := mpi.Wtime()
			chunk = b.nextChunk(chunk, n, t1-t, iters)
			runtime.Gosched()
			t = mpi.Wtime()
		}
	}
	t1 := mpi.Wtime()
	runtime.ReadMemStats(&b.ms1)
	if drain != nil {
		if err := drain(); err != nil {
			return 0, 0, err
		}
	}
	return (t1 - t0) * 1e6 / float64(iters), float64(b.ms1.Mallocs-b.ms0.Mallocs) / float64(iters), nil
}

// call runs one stretch of a loop, turning a panic (a bug below, e.g. a cgo
// pointer check) into an error so that the job aborts cleanly.
func call(l loop, size, n int) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	return l(size, n)
}

// nextChunk is the number of iterations that take about chunkSeconds, given
// that n iterations took secs; without yields it is all of them.
func (b *bench) nextChunk(chunk, n int, secs float64, iters int) int {
	if !b.yield {
		return iters
	}
	if secs <= 0 {
		return min(2*chunk, iters)
	}
	c := int(chunkSeconds / secs * float64(n))
	if secs < chunkSeconds/40 { // too short to trust: grow gradually
		c = min(c, 2*chunk+1024)
	}
	return max(1, min(c, iters))
}

// Positions in the vectors reduced across ranks.
const (
	vGo = iota
	vC
	vAllocs
	vGoRanks // ranks whose Go figures count
	vCRanks  // ranks whose C figures count
	vLen
)

// across reduces the per-rank figures to rank 0: min, max and sum (for the
// average) over the ranks that took part, on each side (goIn, cIn).
func (b *bench) across(goIn, cIn bool, goUs, cUs, allocs float64) (lo, hi, sum [vLen]float64, err error) {
	v := [vLen]float64{goUs, cUs, allocs, 1, 1}
	in := [vLen]bool{goIn, cIn, goIn, goIn, cIn}
	var vals [3][vLen]float64
	for i := range vLen {
		vals[0][i], vals[1][i], vals[2][i] = math.Inf(1), math.Inf(-1), 0
		if in[i] {
			vals[0][i], vals[1][i], vals[2][i] = v[i], v[i], v[i]
		}
	}
	out := [3]*[vLen]float64{&lo, &hi, &sum}
	for i, op := range []mpi.Op{mpi.OpMin, mpi.OpMax, mpi.OpSum} {
		if err := mpi.Reduce(b.comm, vals[i][:], out[i][:], op, root); err != nil {
			return lo, hi, sum, err
		}
	}
	return lo, hi, sum, nil
}

// measureGo measures e's Go loop on every rank, or for an images-per-node
// row on rank 0 while the others sleep.
func (b *bench) measureGo(e entry, size, warmup, iters int) (us, allocs float64, err error) {
	if e.oneImage != "" {
		return b.measureImages(e, size, warmup, iters)
	}
	return b.measure(e.goLoop, e.drain, size, warmup, iters)
}

// row measures one entry at one size: cfg.reps pairs of Go loop and C loop,
// alternating which goes first, keeping each side's fastest repetition on
// each rank; then the reduction across ranks, and for a rooted entry the
// root's own figures. The row is meaningful on rank 0 only.
func (b *bench) row(e entry, size int, cfg config) (row, error) {
	warmup, iters := cfg.counts(size)
	r := row{op: e.label(b.np), size: size, sized: e.sized, ranks: b.np, iters: iters, warmup: warmup}
	goUs, cUs, allocs := math.Inf(1), math.Inf(1), 0.0
	for rep := range max(1, cfg.reps) {
		for side := range 2 {
			if (side+rep)%2 == 0 {
				us, a, err := b.measureGo(e, size, warmup, iters)
				if err != nil {
					return r, fmt.Errorf("%s, %d bytes, Go loop: %w", e.name, size, err)
				}
				goUs, allocs = min(goUs, us), max(allocs, a)
			} else {
				us, _, err := b.measure(e.cLoop, nil, size, warmup, iters)
				if err != nil {
					return r, fmt.Errorf("%s, %d bytes: %w", e.name, size, err)
				}
				cUs = min(cUs, us)
			}
		}
	}
	per := float64(max(1, e.perIter))
	goUs, cUs, allocs = goUs/per, cUs/per, allocs/per
	active := e.active == nil || e.active(b.rank)
	// The images-per-node rows' Go side ran on rank 0 alone.
	goIn := active && (e.oneImage == "" || b.rank == root)
	lo, hi, sum, err := b.across(goIn, active, goUs, cUs, allocs)
	if err != nil {
		return r, fmt.Errorf("%s, %d bytes, reducing the results: %w", e.name, size, err)
	}
	if n := sum[vGoRanks]; n > 0 {
		r.goAvg, r.goMin, r.goMax = sum[vGo]/n, lo[vGo], hi[vGo]
		r.allocs = hi[vAllocs]
	}
	if n := sum[vCRanks]; n > 0 {
		r.cAvg, r.cMin, r.cMax = sum[vC]/n, lo[vC], hi[vC]
	}
	// The root is rank 0, where the row is kept: its own figures need no
	// reduction.
	if e.rooted && b.rank == root && active {
		r.rooted, r.goRoot, r.cRoot = true, goUs, cUs
	}
	return r, nil
}

// run measures every selected operation at every size. Rank 0 writes the
// table to out and the CSV rows to csv (when not nil) as it goes.
func run(cfg config, c *mpi.Comm, out, csv io.Writer) (err error) {
	b := newBench(c, cfg.maxSize, cfg.yield)
	// After an error the job aborts: freeing a grid, which is collective,
	// could wait there for ranks that will not come.
	defer func() {
		if err == nil {
			err = b.close()
		}
	}()
	if err := b.initGocoll(cfg.progress, cfg.check, segmentSize(cfg, b.np)); err != nil {
		return fmt.Errorf("initializing gocoll: %w", err)
	}
	if b.rank == root && b.needsImages(cfg) {
		if b.imgs, err = newImagesJob(b.np, cfg.maxSize, cfg.yield); err != nil {
			return err
		}
		defer func() {
			if cerr := b.imgs.close(); err == nil && cerr != nil {
				err = fmt.Errorf("closing the images job: %w", cerr)
			}
		}()
	}
	t := newTable(out, csv)
	if b.rank == 0 {
		t.header(headerInfo{
			ranks: b.np, library: libraryVersion(), thread: mpi.Provided().String(),
			gomaxprocs: runtime.GOMAXPROCS(0), cfg: cfg,
		})
	}
	selected := map[string]bool{}
	for _, n := range cfg.ops {
		selected[n] = true
	}
	var rows []row // rank 0's, for the images-per-node table and the plots
	var st *status
	if b.rank == 0 {
		st = newStatus(cfg.status, b.rowCount(cfg, selected))
	}
	defer st.end()
	noted := false
	for _, e := range entries(b) {
		if !selected[e.name] {
			continue
		}
		if why := b.skip(e, cfg); why != "" {
			if b.rank == 0 {
				t.note(e.name + " skipped: " + why)
			}
			continue
		}
		if e.oneImage != "" && !noted && b.rank == 0 {
			t.imagesNote(b.np)
			noted = true
		}
		sizes := []int{0}
		if e.sized {
			sizes = cfg.sizes()
		}
		for _, size := range sizes {
			st.next(e.label(b.np), size, e.sized)
			r, err := b.row(e, size, cfg)
			if err != nil {
				return err
			}
			if b.rank == 0 {
				rows = append(rows, r)
				if err := t.row(r); err != nil {
					return err
				}
			}
		}
	}
	if b.rank == 0 {
		t.imagesTable(imagesRatios(entries(b), rows, b.np), b.np)
		if err := t.flush(); err != nil {
			return err
		}
		if cfg.model {
			if err := printModel(out, rows, b.np); err != nil {
				return fmt.Errorf("--model: %w", err)
			}
		}
		if cfg.plot != "" {
			return writePlots(cfg.plot, rows, b.np)
		}
	}
	return nil
}

// rowCount is the number of rows run will measure, for the status line.
func (b *bench) rowCount(cfg config, selected map[string]bool) int {
	n := 0
	for _, e := range entries(b) {
		if !selected[e.name] || b.skip(e, cfg) != "" {
			continue
		}
		n++
		if e.sized {
			n += len(cfg.sizes()) - 1
		}
	}
	return n
}

// skip says why entry e does not run here, or "" when it runs.
func (b *bench) skip(e entry, cfg config) string {
	switch {
	case b.np < e.minRanks:
		return fmt.Sprintf("needs %d ranks, running with %d", e.minRanks, b.np)
	case e.oneImage != "" && cfg.imagesT != 0 && cfg.imagesT != b.np:
		return fmt.Sprintf("--ops asked for T = %d; T is the rank count, %d here", cfg.imagesT, b.np)
	}
	return ""
}
