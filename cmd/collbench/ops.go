package main

import (
	"slices"

	"github.com/gocoll/gocoll/mpiconduit/mpi"
)

// loop runs one operation iters times at one message size in bytes, on the
// bench's buffers (allocated once). It is the only code inside the timed
// region, so it does nothing but the calls: no allocation, no closures or
// interface conversions per iteration.
type loop func(size, iters int) error

// entry is one measured operation: the same operation as a Go loop and as a
// C loop, both timed by the same harness. To measure another implementation
// of an operation (e.g. gocoll's own collectives), add an entry whose goLoop
// calls it and whose cLoop is the native C loop it is compared with.
type entry struct {
	name     string
	sized    bool // false: size-less (Barrier), one row at size 0
	minRanks int  // with fewer ranks the entry is skipped with a note
	perIter  int  // iterations count this many latencies (2 for a ping-pong round trip)
	// rooted marks a rooted collective (its root is rank 0): its rows also
	// show the root's own figures, which the average over ranks hides (a
	// root taking 190 us beside a rank that returns after 1 us).
	rooted bool
	// active reports whether a rank takes part; nil means every rank.
	active func(rank int) bool
	goLoop loop
	cLoop  loop
	// drain, when set, runs after the Go loop's warm-up and timed loop,
	// outside the timed region (gocoll's collectives need it; see drain).
	drain func() error
	// oneImage is set on the images-per-node rows (imagesjob.go): the
	// gocoll row of one image per process they are compared with. Their Go
	// side runs on rank 0 alone (measureImages).
	oneImage string
}

// entries is the table of measured operations, in output order. b may be a
// zero bench when only the names are needed.
func entries(b *bench) []entry {
	pair := func(r int) bool { return r < 2 }
	return append([]entry{
		{name: "PingPong", sized: true, minRanks: 2, perIter: 2, active: pair, goLoop: b.goPingPong, cLoop: b.cPingPong},
		{name: "Stream", sized: true, minRanks: 2, active: pair, goLoop: b.goStream, cLoop: b.cStream},
		{name: "Barrier", goLoop: b.goBarrier, cLoop: b.cBarrier},
		{name: "Bcast", sized: true, rooted: true, goLoop: b.goBcast, cLoop: b.cBcast},
		{name: "Reduce", sized: true, rooted: true, goLoop: b.goReduce, cLoop: b.cReduce},
		{name: "Allreduce", sized: true, goLoop: b.goAllreduce, cLoop: b.cAllreduce},
		{name: "Gather", sized: true, rooted: true, goLoop: b.goGather, cLoop: b.cGather},
		{name: "Scatter", sized: true, rooted: true, goLoop: b.goScatter, cLoop: b.cScatter},
		{name: "Allgather", sized: true, goLoop: b.goAllgather, cLoop: b.cAllgather},
		{name: "Alltoall", sized: true, goLoop: b.goAlltoall, cLoop: b.cAlltoall},
		{name: "Scan", sized: true, goLoop: b.goScan, cLoop: b.cScan},
		{name: "Exscan", sized: true, goLoop: b.goExscan, cLoop: b.cExscan},
		{name: "ReduceScatterBlock", sized: true, goLoop: b.goReduceScatterBlock, cLoop: b.cReduceScatterBlock},
		{name: "Ibcast", sized: true, rooted: true, goLoop: b.goIbcast, cLoop: b.cIbcast},
		{name: "Iallreduce", sized: true, goLoop: b.goIallreduce, cLoop: b.cIallreduce},
		{name: "Allreduce_init", sized: true, goLoop: b.goAllreduceInit, cLoop: b.cAllreduceInit},
		{name: "Bcast_init", sized: true, rooted: true, goLoop: b.goBcastInit, cLoop: b.cBcastInit},
		{name: "Gatherv", sized: true, rooted: true, goLoop: b.goGatherv, cLoop: b.cGatherv},
		{name: "Allgatherv", sized: true, goLoop: b.goAllgatherv, cLoop: b.cAllgatherv},
		{name: "Alltoallv", sized: true, goLoop: b.goAlltoallv, cLoop: b.cAlltoallv},
		{name: "ReduceScatter", sized: true, goLoop: b.goReduceScatter, cLoop: b.cReduceScatter},
		{name: "NeighborAlltoall", sized: true, goLoop: b.goNeighborAlltoall, cLoop: b.cNeighborAlltoall},
	}, slices.Concat(gocollEntries(b), aggregateEntries(b), segmentEntries(b), imagesEntries(b))...)
}

// opNames are the names of the entries, in table order.
func opNames() []string {
	es := entries(&bench{})
	names := make([]string, len(es))
	for i, e := range es {
		names[i] = e.name
	}
	return names
}

// elems is the float64 count of a reduction of size bytes.
func elems(size int) int { return max(1, size/8) }

const (
	root      = 0
	pingTag   = 1  // tag of the ping-pong
	streamTag = 2  // tag of the stream's messages, streamTag+1 of its reply
	window    = 64 // messages of the stream between replies, CB_WINDOW in cloop.c
)

// The Go loops: each slices its buffers once, then only calls the binding.

func (b *bench) goPingPong(size, iters int) error {
	c, s, r := b.comm, b.sb[:size], b.rb[:size]
	switch b.rank {
	case 0:
		for range iters {
			if err := c.Send(s, 1, pingTag); err != nil {
				return err
			}
			if _, err := c.Recv(r, 1, pingTag); err != nil {
				return err
			}
		}
	case 1:
		for range iters {
			if _, err := c.Recv(r, 0, pingTag); err != nil {
				return err
			}
			if err := c.Send(s, 0, pingTag); err != nil {
				return err
			}
		}
	}
	return nil
}

// goStream is the stream of cb_stream (see cloop.c): rank 0 sends iters
// messages to rank 1, a window at a time, with a zero-byte reply after
// each full window of the row.
func (b *bench) goStream(size, iters int) error {
	if b.rank > 1 {
		return nil
	}
	c, s, r := b.comm, b.sb[:size], b.rb[:size]
	if b.window == nil {
		b.window = make([]*mpi.Request, window)
	}
	for iters > 0 {
		w := b.window[:min(iters, window-int(b.streamAt%window))]
		for j := range w {
			var err error
			if b.rank == 0 {
				w[j], err = c.Isend(s, 1, streamTag)
			} else {
				w[j], err = c.Irecv(r, 0, streamTag)
			}
			if err != nil {
				return err
			}
		}
		if err := mpi.Waitall(w); err != nil {
			return err
		}
		iters -= len(w)
		if b.streamAt += int64(len(w)); b.streamAt%window != 0 {
			continue
		}
		var err error
		if b.rank == 0 {
			_, err = c.Recv(r[:0], 1, streamTag+1)
		} else {
			err = c.Send(s[:0], 0, streamTag+1)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (b *bench) goBarrier(_, iters int) error {
	c := b.comm
	for range iters {
		if err := c.Barrier(); err != nil {
			return err
		}
	}
	return nil
}

func (b *bench) goBcast(size, iters int) error {
	c, buf := b.comm, b.sb[:size]
	for range iters {
		if err := c.Bcast(buf, root); err != nil {
			return err
		}
	}
	return nil
}

func (b *bench) goReduce(size, iters int) error {
	n := elems(size)
	c, s, r := b.comm, b.sf[:n], b.rf[:n]
	for range iters {
		if err := mpi.Reduce(c, s, r, mpi.OpSum, root); err != nil {
			return err
		}
	}
	return nil
}

func (b *bench) goAllreduce(size, iters int) error {
	n := elems(size)
	c, s, r := b.comm, b.sf[:n], b.rf[:n]
	for range iters {
		if err := mpi.Allreduce(c, s, r, mpi.OpSum); err != nil {
			return err
		}
	}
	return nil
}

func (b *bench) goGather(size, iters int) error {
	c, s, r := b.comm, b.sb[:size], b.rb[:size*b.np]
	for range iters {
		if err := c.Gather(s, r, root); err != nil {
			return err
		}
	}
	return nil
}

func (b *bench) goScatter(size, iters int) error {
	c, s, r := b.comm, b.sb[:size*b.np], b.rb[:size]
	for range iters {
		if err := c.Scatter(s, r, root); err != nil {
			return err
		}
	}
	return nil
}

func (b *bench) goAllgather(size, iters int) error {
	c, s, r := b.comm, b.sb[:size], b.rb[:size*b.np]
	for range iters {
		if err := c.Allgather(s, r); err != nil {
			return err
		}
	}
	return nil
}

func (b *bench) goAlltoall(size, iters int) error {
	c, s, r := b.comm, b.sb[:size*b.np], b.rb[:size*b.np]
	for range iters {
		if err := c.Alltoall(s, r); err != nil {
			return err
		}
	}
	return nil
}

func (b *bench) goScan(size, iters int) error {
	n := elems(size)
	c, s, r := b.comm, b.sf[:n], b.rf[:n]
	for range iters {
		if err := mpi.Scan(c, s, r, mpi.OpSum); err != nil {
			return err
		}
	}
	return nil
}

func (b *bench) goExscan(size, iters int) error {
	n := elems(size)
	c, s, r := b.comm, b.sf[:n], b.rf[:n]
	for range iters {
		if err := mpi.Exscan(c, s, r, mpi.OpSum); err != nil {
			return err
		}
	}
	return nil
}

func (b *bench) goReduceScatterBlock(size, iters int) error {
	n := elems(size)
	c, s, r := b.comm, b.sf[:n*b.np], b.rf[:n]
	for range iters {
		if err := mpi.ReduceScatterBlock(c, s, r, mpi.OpSum); err != nil {
			return err
		}
	}
	return nil
}

func (b *bench) goIbcast(size, iters int) error {
	c, buf := b.comm, b.sb[:size]
	for range iters {
		req, err := c.Ibcast(buf, root)
		if err != nil {
			return err
		}
		if _, err := req.Wait(); err != nil {
			return err
		}
	}
	return nil
}

func (b *bench) goIallreduce(size, iters int) error {
	n := elems(size)
	c, s, r := b.comm, b.sf[:n], b.rf[:n]
	for range iters {
		req, err := mpi.Iallreduce(c, s, r, mpi.OpSum)
		if err != nil {
			return err
		}
		if _, err := req.Wait(); err != nil {
			return err
		}
	}
	return nil
}

// plan is a persistent request of a Go loop and the size it was made for:
// made on the loop's first call at a size (the warm-up, outside the timed
// region), kept for its later calls, freed by bench.close.
type plan struct {
	size int
	req  *mpi.Request
}

// at returns p's request for size: the one kept, or a new one from mk,
// after freeing one made for another size.
func (p *plan) at(size int, mk func() (*mpi.Request, error)) (*mpi.Request, error) {
	if p.req != nil && p.size == size {
		return p.req, nil
	}
	if err := p.free(); err != nil {
		return nil, err
	}
	req, err := mk()
	if err != nil {
		return nil, err
	}
	p.size, p.req = size, req
	return req, nil
}

func (p *plan) free() error {
	if p.req == nil {
		return nil
	}
	err := p.req.Free()
	p.req = nil
	return err
}

// startWait runs iters starts of the persistent request r, each waited for.
func startWait(r *mpi.Request, iters int) error {
	for range iters {
		if err := r.Start(); err != nil {
			return err
		}
		if _, err := r.Wait(); err != nil {
			return err
		}
	}
	return nil
}

func (b *bench) goAllreduceInit(size, iters int) error {
	n := elems(size)
	req, err := b.arPlan.at(size, func() (*mpi.Request, error) {
		return mpi.AllreduceInit(b.comm, b.sf[:n], b.rf[:n], mpi.OpSum)
	})
	if err != nil {
		return err
	}
	return startWait(req, iters)
}

func (b *bench) goBcastInit(size, iters int) error {
	req, err := b.bcPlan.at(size, func() (*mpi.Request, error) { return b.comm.BcastInit(b.sb[:size], root) })
	if err != nil {
		return err
	}
	return startWait(req, iters)
}

// vBlocks are the v rows' counts and displacements: n elements per rank,
// the blocks one after another, as in the plain collectives.
func (b *bench) vBlocks(n int) (counts, displs []int) {
	for i := range b.np {
		b.counts[i], b.displs[i] = n, i*n
	}
	return b.counts, b.displs
}

func (b *bench) goGatherv(size, iters int) error {
	c, s, r := b.comm, b.sb[:size], b.rb[:size*b.np]
	counts, displs := b.vBlocks(size)
	for range iters {
		if err := c.Gatherv(s, r, counts, displs, root); err != nil {
			return err
		}
	}
	return nil
}

func (b *bench) goAllgatherv(size, iters int) error {
	c, s, r := b.comm, b.sb[:size], b.rb[:size*b.np]
	counts, displs := b.vBlocks(size)
	for range iters {
		if err := c.Allgatherv(s, r, counts, displs); err != nil {
			return err
		}
	}
	return nil
}

func (b *bench) goAlltoallv(size, iters int) error {
	c, s, r := b.comm, b.sb[:size*b.np], b.rb[:size*b.np]
	counts, displs := b.vBlocks(size)
	for range iters {
		if err := c.Alltoallv(s, counts, displs, r, counts, displs); err != nil {
			return err
		}
	}
	return nil
}

func (b *bench) goReduceScatter(size, iters int) error {
	n := elems(size)
	c, s, r := b.comm, b.sf[:n*b.np], b.rf[:n]
	counts, _ := b.vBlocks(n)
	for range iters {
		if err := mpi.ReduceScatter(c, s, r, counts, mpi.OpSum); err != nil {
			return err
		}
	}
	return nil
}

// goNeighborAlltoall exchanges size bytes with each neighbour on a
// periodic ring of all ranks, the grid made on the first call.
func (b *bench) goNeighborAlltoall(size, iters int) error {
	if b.cart == nil {
		cart, err := b.comm.CartCreate([]int{b.np}, []bool{true})
		if err != nil {
			return err
		}
		b.cart = cart
	}
	c, s, r := b.cart, b.sb[:2*size], b.rb[:2*size]
	for range iters {
		if err := mpi.NeighborAlltoall(c, s, r); err != nil {
			return err
		}
	}
	return nil
}
