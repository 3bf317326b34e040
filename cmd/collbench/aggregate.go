package main

import (
	"context"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/reducefn"
	gsync "github.com/gocoll/gocoll/sync"
)

// Rows of many small collectives at once, where gocoll's design should beat
// a loop of native calls:
//
//   - gocoll.Agg16.*: 16 collectives aggregated (Aggregate on the first 15,
//     one handle) against 16 back-to-back native calls; one iteration is
//     all 16, each of size bytes with buffers of its own, the same 16 on
//     both sides (a native loop over one buffer would keep it in the cache
//     where the aggregate walks sixteen).
//   - gocoll.NoNo.Broadcast: a stream of blocking IN_NOSYNC|OUT_NOSYNC
//     broadcasts (the root returns as soon as its sends left) against
//     back-to-back MPI_Bcast.

// aggMembers is the size of the aggregates of the Agg16 rows.
const aggMembers = 16

// noNo is the relaxed mode of the stream row.
const noNo = gsync.InNoSync | gsync.OutNoSync | gsync.Local

func aggregateEntries(b *bench) []entry {
	es := []entry{
		{name: "gocoll.Agg16.Broadcast", sized: true, rooted: true, goLoop: b.gAggBroadcast, cLoop: b.cAggBcast},
		{name: "gocoll.Agg16.ReduceAll", sized: true, goLoop: b.gAggReduceAll, cLoop: b.cAggAllreduce},
		{name: "gocoll.NoNo.Broadcast", sized: true, rooted: true, goLoop: b.gNoNoBroadcast, cLoop: b.cBcast},
	}
	for i := range es {
		es[i].drain = b.drain
	}
	return es
}

// aggBufs are k pairs of buffers of at least n bytes, each list cut from
// one allocation (aggStride bytes apart, a multiple of 64) so that the C
// loops walk the same buffers; made on the first call at a size (the
// warm-up, Go or C) and kept.
func (b *bench) aggBufs(k, n int) (dst, src [][]byte) {
	if len(b.aggDst) < k || len(b.aggDst[0]) < n {
		stride := (n + 63) &^ 63
		dslab, sslab := reducefn.Bytes(make([]float64, k*stride/8)), reducefn.Bytes(make([]float64, k*stride/8))
		b.aggDst, b.aggSrc, b.aggStride = make([][]byte, k), make([][]byte, k), stride
		for m := range k {
			at := m * stride
			b.aggDst[m], b.aggSrc[m] = dslab[at:at+stride:at+stride], sslab[at:at+stride:at+stride]
			for i := range b.aggSrc[m] {
				b.aggSrc[m][i] = byte(i + m + b.rank)
			}
		}
	}
	return b.aggDst, b.aggSrc
}

// aggregate runs iters aggregates of k members started by member, the
// last one without Aggregate, and waits for each.
func (b *bench) aggregate(iters, k int, member func(m int, f gsync.Flags) (gsync.Handle, error)) error {
	ctx := context.Background()
	for range iters {
		var h gsync.Handle
		var err error
		for m := range k {
			f := myMy
			if m < k-1 {
				f |= gsync.Aggregate
			}
			if h, err = member(m, f); err != nil {
				return err
			}
		}
		if err := h.Wait(ctx); err != nil {
			return err
		}
	}
	return nil
}

func (b *bench) gAggBroadcast(size, iters int) error {
	im, t := b.im, b.im.TeamAll()
	dst, src := b.aggBufs(aggMembers, size)
	return b.aggregate(iters, aggMembers, func(m int, f gsync.Flags) (gsync.Handle, error) {
		return im.BroadcastNB(t, dst[m][:size], root, src[m][:size], size, f)
	})
}

func (b *bench) gAggReduceAll(size, iters int) error {
	n := 8 * elems(size)
	im, t := b.im, b.im.TeamAll()
	dst, src := b.aggBufs(aggMembers, n)
	return b.aggregate(iters, aggMembers, func(m int, f gsync.Flags) (gsync.Handle, error) {
		return im.ReduceAllNB(t, dst[m][:n], src[m][:n], coll.Cyclic, n, b.np, fnSum, 0, f)
	})
}

func (b *bench) gNoNoBroadcast(size, iters int) error {
	im, t := b.im, b.im.TeamAll()
	dst, src := b.bcastBufs(size)
	return b.blocking(iters, func() error { return im.Broadcast(t, dst, root, src, size, noNo) })
}
