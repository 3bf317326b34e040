package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/mpiconduit"
	"github.com/gocoll/gocoll/mpiconduit/mpi"
	"github.com/gocoll/gocoll/reducefn"
	gsync "github.com/gocoll/gocoll/sync"
)

// The overlap table (--overlap), by the method of OSU's osu_ibcast and
// osu_iallreduce: t_pure is a non-blocking collective started and waited
// for at once; t_cpu a computation of about t_pure alone; t_ovrl the
// collective started, the computation, then the wait. The overlap is
// 100 * (1 - (t_ovrl - t_cpu) / t_pure), clamped to [0, 100]: 100 means the
// collective completed entirely behind the computation. gocoll is measured
// with a progress goroutine (sync.Goroutine) and with polling, native MPI
// with MPI_Ibcast and MPI_Iallreduce (Open MPI makes no progress outside
// MPI calls). Each figure is the average over ranks of each rank's own.

// overlapImpl is one implementation of the two collectives of the table.
type overlapImpl struct {
	name  string
	start func(op string, size int) (wait func() error, err error)
}

// overlapOps are the collectives of the table.
var overlapOps = []string{"Broadcast", "ReduceAll"}

// runOverlap measures and prints the overlap table (rank 0 prints).
func runOverlap(cfg config, c *mpi.Comm, out io.Writer) error {
	b := newBench(c, cfg.maxSize, cfg.yield)
	var impls []overlapImpl
	for _, m := range []gsync.ProgressMode{gsync.Goroutine, gsync.Polling} {
		cd, err := mpiconduit.NewConduit(c)
		if err != nil {
			return err
		}
		defer cd.Close()
		im, err := coll.Init(cd, nil, 0, []reducefn.Entry{fnSum: reducefn.Sum[float64]()}, 0, coll.Options{Progress: m})
		if err != nil {
			return fmt.Errorf("gocoll with progress %v: %w", m, err)
		}
		defer im.Close()
		impls = append(impls, overlapImpl{"gocoll " + m.String(), b.gocollNB(im)})
	}
	impls = append(impls, overlapImpl{"native MPI", b.nativeNB()})
	perUS := calibrate()
	if b.rank == 0 {
		fmt.Fprintf(out, "# overlap of a non-blocking collective with computation (OSU method), np %d; times in us, averages over ranks\n", b.np)
		fmt.Fprintf(out, "# %-22s %-10s %9s %9s %9s %9s %8s\n", "Implementation", "Operation", "Size(B)", "t_pure", "t_cpu", "t_ovrl", "overlap%")
	}
	for _, op := range overlapOps {
		for _, size := range cfg.sizes() {
			for _, impl := range impls {
				_, iters := cfg.counts(size)
				iters = max(iters/10, minIters)
				f, err := b.overlap(impl, op, size, iters, perUS)
				if err != nil {
					return fmt.Errorf("%s %s %d: %w", impl.name, op, size, err)
				}
				if b.rank == 0 {
					fmt.Fprintf(out, "%-24s %-10s %9d %9.2f %9.2f %9.2f %8.1f\n", impl.name, op, size, f[0], f[1], f[2], f[3])
				}
			}
		}
	}
	return nil
}

// overlap measures one row: t_pure, t_cpu, t_ovrl (us) and the overlap,
// averaged over ranks.
func (b *bench) overlap(impl overlapImpl, op string, size, iters int, perUS float64) ([4]float64, error) {
	var res [4]float64
	timed := func(compute int, nb bool) (float64, error) {
		if err := b.comm.Barrier(); err != nil {
			return 0, err
		}
		t0 := time.Now()
		for range iters {
			var wait func() error
			if nb {
				var err error
				if wait, err = impl.start(op, size); err != nil {
					return 0, err
				}
			}
			spin(compute)
			if nb {
				if err := wait(); err != nil {
					return 0, err
				}
			}
		}
		return float64(time.Since(t0).Microseconds()) / float64(iters), nil
	}
	if _, err := timed(0, true); err != nil { // warm-up
		return res, err
	}
	pure, err := timed(0, true)
	if err != nil {
		return res, err
	}
	work := int(pure * perUS)
	cpu, err := timed(work, false)
	if err != nil {
		return res, err
	}
	ovrl, err := timed(work, true)
	if err != nil {
		return res, err
	}
	ov := 100 * (1 - (ovrl-cpu)/pure)
	mine := []float64{pure, cpu, ovrl, math.Max(0, math.Min(100, ov))}
	sum := make([]float64, 4)
	if err := mpi.Allreduce(b.comm, mine, sum, mpi.OpSum); err != nil {
		return res, err
	}
	for i := range res {
		res[i] = sum[i] / float64(b.np)
	}
	return res, nil
}

// gocollNB starts gocoll's non-blocking collectives on im (IN_MYSYNC,
// OUT_MYSYNC, as the latency rows).
func (b *bench) gocollNB(im *coll.Image) func(op string, size int) (func() error, error) {
	ctx := context.Background()
	return func(op string, size int) (func() error, error) {
		var h gsync.Handle
		var err error
		switch op {
		case "Broadcast":
			dst, src := b.bcastBufs(size)
			h, err = im.BroadcastNB(im.TeamAll(), dst, root, src, size, myMy)
		default:
			n := elems(size)
			h, err = im.ReduceAllNB(im.TeamAll(), reducefn.Bytes(b.rf[:n]), reducefn.Bytes(b.sf[:n]), coll.Cyclic, 8*n, b.np, fnSum, 0, myMy)
		}
		return func() error { return h.Wait(ctx) }, err
	}
}

// nativeNB starts MPI_Ibcast or MPI_Iallreduce.
func (b *bench) nativeNB() func(op string, size int) (func() error, error) {
	return func(op string, size int) (func() error, error) {
		var req *mpi.Request
		var err error
		switch op {
		case "Broadcast":
			req, err = b.comm.Ibcast(b.sb[:size], root)
		default:
			n := elems(size)
			req, err = mpi.Iallreduce(b.comm, b.sf[:n], b.rf[:n], mpi.OpSum)
		}
		return func() error { _, err := req.Wait(); return err }, err
	}
}

// spin computes for about n units (calibrate tells how many a
// microsecond takes), touching no memory but registers.
func spin(n int) {
	x := 1.0
	for range n {
		x = x*1.0000001 + 1e-9
	}
	if x < 0 { // never: it keeps the arithmetic from being optimized away
		panic("spin")
	}
}

// calibrate is how many units of spin take a microsecond.
func calibrate() float64 {
	const n = 1 << 22
	best := math.MaxFloat64
	for range 3 {
		t0 := time.Now()
		spin(n)
		best = math.Min(best, float64(time.Since(t0).Nanoseconds()))
	}
	return n / (best / 1e3)
}
