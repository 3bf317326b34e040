package main

/*
#include "cloop.h"
*/
import "C"

import (
	"context"

	"github.com/gocoll/gocoll"
	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/images"
	"github.com/gocoll/gocoll/mpiconduit"
	"github.com/gocoll/gocoll/reducefn"
	gsync "github.com/gocoll/gocoll/sync"
)

// gocoll's own collectives beside their native MPI counterparts: in these
// rows the "Go" side is the gocoll collective (over the MPI conduit) and the
// "C" side the native MPI collective called from C, so the ratio is gocoll
// against native MPI in the same run. Blocking rows call the front door
// (package gocoll: typed slices, IN_MYSYNC|OUT_MYSYNC and LOCAL addressing,
// the semantics of MPI's blocking collectives); NB rows initiate and wait
// with the byte forms in the same modes, against MPI's nonblocking
// collective and MPI_Wait.

// myMy is the sync mode comparable to MPI's collectives.
const myMy = gsync.InMySync | gsync.OutMySync | gsync.Local

// gocollEntries are the rows of gocoll's collectives.
func gocollEntries(b *bench) []entry {
	es := []entry{
		{name: "gocoll.Broadcast", sized: true, rooted: true, goLoop: b.gBroadcast, cLoop: b.cBcast},
		{name: "gocoll.Scatter", sized: true, rooted: true, goLoop: b.gScatter, cLoop: b.cScatter},
		{name: "gocoll.Gather", sized: true, rooted: true, goLoop: b.gGather, cLoop: b.cGather},
		{name: "gocoll.GatherAll", sized: true, goLoop: b.gGatherAll, cLoop: b.cAllgather},
		{name: "gocoll.Exchange", sized: true, goLoop: b.gExchange, cLoop: b.cAlltoall},
		{name: "gocoll.BroadcastNB", sized: true, rooted: true, goLoop: b.gBroadcastNB, cLoop: b.cIbcast},
		{name: "gocoll.ScatterNB", sized: true, rooted: true, goLoop: b.gScatterNB, cLoop: b.cIscatter},
		{name: "gocoll.GatherNB", sized: true, rooted: true, goLoop: b.gGatherNB, cLoop: b.cIgather},
		{name: "gocoll.GatherAllNB", sized: true, goLoop: b.gGatherAllNB, cLoop: b.cIallgather},
		{name: "gocoll.ExchangeNB", sized: true, goLoop: b.gExchangeNB, cLoop: b.cIalltoall},
		{name: "gocoll.Reduce", sized: true, rooted: true, goLoop: b.gReduce, cLoop: b.cReduce},
		{name: "gocoll.ReduceAll", sized: true, goLoop: b.gReduceAll, cLoop: b.cAllreduce},
		{name: "gocoll.ReduceAllNB", sized: true, goLoop: b.gReduceAllNB, cLoop: b.cIallreduce},
		{name: "gocoll.PrefixReduce", sized: true, goLoop: b.gPrefixReduce, cLoop: b.cScan},
		// plans (coll.Plan) against the native persistent collectives
		{name: "gocoll.Plan.Broadcast", sized: true, rooted: true, goLoop: b.gPlanBroadcast, cLoop: b.cBcastInit},
		{name: "gocoll.Plan.ReduceAll", sized: true, goLoop: b.gPlanReduceAll, cLoop: b.cAllreduceInit},
		// the v-variants, with equal counts, against MPI's
		{name: "gocoll.GatherV", sized: true, rooted: true, goLoop: b.gGatherV, cLoop: b.cGatherv},
		{name: "gocoll.GatherAllV", sized: true, goLoop: b.gGatherAllV, cLoop: b.cAllgatherv},
		{name: "gocoll.ExchangeV", sized: true, goLoop: b.gExchangeV, cLoop: b.cAlltoallv},
		{name: "gocoll.ReduceScatter", sized: true, goLoop: b.gReduceScatter, cLoop: b.cReduceScatter},
		{name: "gocoll.NeighborExchange", sized: true, goLoop: b.gNeighborExchange, cLoop: b.cNeighborAlltoall},
	}
	for i := range es {
		es[i].drain = b.drain
	}
	return es
}

// initGocoll starts gocoll's collectives on a conduit of their own (a
// duplicate of the benchmark's communicator); collective.
func (b *bench) initGocoll(progress gsync.ProgressMode, check bool, segment int) error {
	cd, err := mpiconduit.NewConduit(b.comm)
	if err != nil {
		return err
	}
	b.im, err = coll.Init(cd, nil, 0, []reducefn.Entry{fnSum: reducefn.Sum[float64]()}, 0, coll.Options{Progress: progress, Check: check, SegmentSize: segment})
	return err
}

// fnSum is the index of float64 sum in gocoll's function table.
const fnSum = 0

// collLoop repeats one gocoll initiation and its wait.
func (b *bench) collLoop(iters int, start func() (gsync.Handle, error)) error {
	ctx := context.Background()
	return b.blocking(iters, func() error {
		h, err := start()
		if err != nil {
			return err
		}
		return h.Wait(ctx)
	})
}

// blocking repeats one blocking gocoll collective.
func (b *bench) blocking(iters int, call func() error) error {
	for range iters {
		if err := call(); err != nil {
			return err
		}
	}
	return nil
}

// drain ends a stretch of gocoll collectives: with OUT_MYSYNC a node may
// return while it still has to forward internal buffers for others, and the
// harness's next step is a native MPI barrier, which makes no gocoll
// progress; gocoll's Barrier does. The harness calls it where every rank
// agrees (after the warm-up and after the timed loop), never per chunk, since
// chunk sizes differ between ranks.
func (b *bench) drain() error { return b.im.Barrier(b.im.TeamAll()) }

// bcastBufs: the root's destination is its source (the spec allows the
// source to be identical to a destination block), as MPI_Bcast has one buffer.
func (b *bench) bcastBufs(size int) (dst, src []byte) {
	if b.rank == root {
		return b.sb[:size], b.sb[:size]
	}
	return b.rb[:size], nil
}

func (b *bench) gBroadcast(size, iters int) error {
	im := b.im
	dst, src := b.bcastBufs(size)
	return b.blocking(iters, func() error { return gocoll.Broadcast(im, dst, root, src) })
}

func (b *bench) gBroadcastNB(size, iters int) error {
	im, t := b.im, b.im.TeamAll()
	dst, src := b.bcastBufs(size)
	return b.collLoop(iters, func() (gsync.Handle, error) { return im.BroadcastNB(t, dst, root, src, size, myMy) })
}

func (b *bench) gScatter(size, iters int) error {
	im, s, r := b.im, b.sb[:size*b.np], b.rb[:size]
	return b.blocking(iters, func() error { return gocoll.Scatter(im, r, root, s) })
}

func (b *bench) gScatterNB(size, iters int) error {
	im, t, s, r := b.im, b.im.TeamAll(), b.sb[:size*b.np], b.rb[:size]
	return b.collLoop(iters, func() (gsync.Handle, error) { return im.ScatterNB(t, r, root, s, size, myMy) })
}

func (b *bench) gGather(size, iters int) error {
	im, s, r := b.im, b.sb[:size], b.rb[:size*b.np]
	return b.blocking(iters, func() error { return gocoll.Gather(im, root, r, s) })
}

func (b *bench) gGatherNB(size, iters int) error {
	im, t, s, r := b.im, b.im.TeamAll(), b.sb[:size], b.rb[:size*b.np]
	return b.collLoop(iters, func() (gsync.Handle, error) { return im.GatherNB(t, root, r, s, size, myMy) })
}

func (b *bench) gGatherAll(size, iters int) error {
	im, s, r := b.im, b.sb[:size], b.rb[:size*b.np]
	return b.blocking(iters, func() error { return gocoll.GatherAll(im, r, s) })
}

func (b *bench) gGatherAllNB(size, iters int) error {
	im, t, s, r := b.im, b.im.TeamAll(), b.sb[:size], b.rb[:size*b.np]
	return b.collLoop(iters, func() (gsync.Handle, error) { return im.GatherAllNB(t, r, s, size, myMy) })
}

func (b *bench) gExchange(size, iters int) error {
	im, s, r := b.im, b.sb[:size*b.np], b.rb[:size*b.np]
	return b.blocking(iters, func() error { return gocoll.Exchange(im, r, s) })
}

func (b *bench) gExchangeNB(size, iters int) error {
	im, t, s, r := b.im, b.im.TeamAll(), b.sb[:size*b.np], b.rb[:size*b.np]
	return b.collLoop(iters, func() (gsync.Handle, error) { return im.ExchangeNB(t, r, s, size, myMy) })
}

// The native nonblocking data movement from C, for the NB rows.

func (b *bench) cIscatter(size, iters int) error {
	return cErr("MPI_Iscatter", C.cb_iscatter(bytesPtr(b.sb), bytesPtr(b.rb), C.int(size), C.int(iters)))
}

func (b *bench) cIgather(size, iters int) error {
	return cErr("MPI_Igather", C.cb_igather(bytesPtr(b.sb), bytesPtr(b.rb), C.int(size), C.int(iters)))
}

func (b *bench) cIallgather(size, iters int) error {
	return cErr("MPI_Iallgather", C.cb_iallgather(bytesPtr(b.sb), bytesPtr(b.rb), C.int(size), C.int(iters)))
}

func (b *bench) cIalltoall(size, iters int) error {
	return cErr("MPI_Ialltoall", C.cb_ialltoall(bytesPtr(b.sb), bytesPtr(b.rb), C.int(size), C.int(iters)))
}

// The reductions: each image contributes one element, a vector of
// elems(size) float64, summed elementwise as MPI sums vectors; the array has
// one element per image (cyclic layout), so PrefixReduce is MPI_Scan.

func (b *bench) gReduce(size, iters int) error {
	n := elems(size)
	im, s, r := b.im, b.sf[:n], b.rf[:n]
	return b.blocking(iters, func() error { return gocoll.Reduce(im, root, r, s, gocoll.Sum) })
}

func (b *bench) gReduceAll(size, iters int) error {
	n := elems(size)
	im, s, r := b.im, b.sf[:n], b.rf[:n]
	return b.blocking(iters, func() error { return gocoll.ReduceAll(im, r, s, gocoll.Sum) })
}

func (b *bench) gReduceAllNB(size, iters int) error {
	n := elems(size)
	im, t, s, r := b.im, b.im.TeamAll(), reducefn.Bytes(b.sf[:n]), reducefn.Bytes(b.rf[:n])
	return b.collLoop(iters, func() (gsync.Handle, error) {
		return im.ReduceAllNB(t, r, s, coll.Cyclic, 8*n, b.np, fnSum, 0, myMy)
	})
}

func (b *bench) gPrefixReduce(size, iters int) error {
	n := elems(size)
	im, s, r := b.im, b.sf[:n], b.rf[:n]
	return b.blocking(iters, func() error { return gocoll.PrefixReduce(im, r, s, gocoll.Sum) })
}

// gocollPlan is the plan of a gocoll.Plan.* row, made at its loop's first
// call at a size (the warm-up) and kept for that size.
type gocollPlan struct {
	row  string
	size int
	p    *coll.Plan
}

// run runs the plan of row at size, made from call if it is not the one kept.
func (gp *gocollPlan) run(b *bench, row string, size, iters int, call func() error) error {
	if gp.p == nil || gp.row != row || gp.size != size {
		if err := gp.free(); err != nil {
			return err
		}
		p, err := b.im.NewPlan(call)
		if err != nil {
			return err
		}
		*gp = gocollPlan{row, size, p}
	}
	return b.blocking(iters, gp.p.Run)
}

func (gp *gocollPlan) free() error {
	if gp.p == nil {
		return nil
	}
	err := gp.p.Free()
	gp.p = nil
	return err
}

func (b *bench) gPlanBroadcast(size, iters int) error {
	im := b.im
	dst, src := b.bcastBufs(size)
	return b.gPlan.run(b, "Broadcast", size, iters, func() error { return gocoll.Broadcast(im, dst, root, src) })
}

func (b *bench) gPlanReduceAll(size, iters int) error {
	n := elems(size)
	im, s, r := b.im, b.sf[:n], b.rf[:n]
	return b.gPlan.run(b, "ReduceAll", size, iters, func() error { return gocoll.ReduceAll(im, r, s, gocoll.Sum) })
}

func (b *bench) gGatherV(size, iters int) error {
	im, t, s, r := b.im, b.im.TeamAll(), b.sb[:size], b.rb[:size*b.np]
	counts, displs := b.vBlocks(size)
	return b.blocking(iters, func() error { return im.GatherV(t, root, r, counts, displs, s, myMy) })
}

func (b *bench) gGatherAllV(size, iters int) error {
	im, t, s, r := b.im, b.im.TeamAll(), b.sb[:size], b.rb[:size*b.np]
	counts, displs := b.vBlocks(size)
	return b.blocking(iters, func() error { return im.GatherAllV(t, r, counts, displs, s, myMy) })
}

func (b *bench) gExchangeV(size, iters int) error {
	im, t, s, r := b.im, b.im.TeamAll(), b.sb[:size*b.np], b.rb[:size*b.np]
	counts, displs := b.vBlocks(size)
	return b.blocking(iters, func() error { return im.ExchangeV(t, r, counts, displs, s, counts, displs, myMy) })
}

// gNeighborExchange exchanges size bytes with each neighbour on a
// periodic ring of all images, as NeighborAlltoall does; the grid is made
// on the first call.
func (b *bench) gNeighborExchange(size, iters int) error {
	im := b.im
	if b.grid == nil {
		g, err := images.NewGrid(im.TeamAll(), []int{b.np}, []bool{true})
		if err != nil {
			return err
		}
		b.grid = g
	}
	g, s, r := b.grid, b.sb[:2*size], b.rb[:2*size]
	return b.blocking(iters, func() error { return im.NeighborExchange(g, r, s, size, myMy) })
}

func (b *bench) gReduceScatter(size, iters int) error {
	n := elems(size)
	im, t, s, r := b.im, b.im.TeamAll(), b.sf[:n*b.np], b.rf[:n]
	counts, _ := b.vBlocks(n)
	return b.blocking(iters, func() error { return coll.ReduceScatterOf(im, t, r, s, counts, coll.Sum, myMy) })
}
