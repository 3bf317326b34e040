package mpi

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// The persistent collectives are started planStarts times each, with new
// data before every start. Each result is compared with what it must be,
// computed locally (a reduction of the data every rank contributes), and
// every blockingEvery starts with the blocking call's result on the same
// data (a blocking call per start would multiply the time MPICH takes with
// more ranks than cores, where each collective waits for the scheduler).
// A wrong result is reported once per plan: the loops go on, so that every
// rank keeps calling the same collectives.

const (
	planStarts    = 1000
	blockingEvery = 10
)

// checkBlocking reports whether the start iter of planStarts is compared
// with the blocking call.
func checkBlocking(iter int) bool { return iter%blockingEvery == 0 || iter == planStarts-1 }

// model is what a reduction with op of n elements gives when rank r
// contributes f(r, i) at index i, on p ranks.
func model[T Element](p, n int, f func(r, i int) T, op func(a, b T) T) []T {
	out := make([]T, n)
	for i := range n {
		out[i] = f(0, i)
		for r := 1; r < p; r++ {
			out[i] = op(out[i], f(r, i))
		}
	}
	return out
}

func add[T int32 | int64 | float64](a, b T) T { return a + b }

func mul[T int32 | int64 | float64](a, b T) T { return a * b }

func larger[T int32 | int64 | float64](a, b T) T { return max(a, b) }

func smaller[T int32 | int64 | float64](a, b T) T { return min(a, b) }

// plans are persistent requests started together and completed together.
type plans []*Request

func (ps plans) start(t *testing.T) {
	t.Helper()
	for _, p := range ps {
		require.NoError(t, p.Start())
	}
}

// finish completes ps in one of four ways by iteration: Wait on each,
// Waitall, polling Testall, or Testany and Testsome until none is active.
// Each leaves them inactive, ready for the next start.
func (ps plans) finish(t *testing.T, iter int) {
	t.Helper()
	switch iter % 4 {
	case 0:
		for _, p := range ps {
			_, err := p.Wait()
			require.NoError(t, err)
		}
	case 1:
		require.NoError(t, Waitall(ps))
	case 2:
		for {
			ok, err := Testall(ps)
			require.NoError(t, err)
			if ok {
				break
			}
		}
	case 3:
		for ps.anyActive() {
			i, _, err := Testany(ps)
			require.NoError(t, err)
			if i < 0 {
				_, err = Testsome(ps)
				require.NoError(t, err)
			}
		}
	}
	require.False(t, ps.anyActive(), "completed plans are inactive")
}

func (ps plans) anyActive() bool {
	for _, p := range ps {
		if p.active {
			return true
		}
	}
	return false
}

func (ps plans) free(t *testing.T) {
	t.Helper()
	for _, p := range ps {
		require.NoError(t, p.Free())
		require.True(t, p.Done())
	}
}

// checkOnce reports got against want once: ok stays false after the first
// difference.
func checkOnce[T Element](t *testing.T, ok *bool, want, got []T, format string, args ...any) {
	t.Helper()
	if *ok {
		*ok = checkEq(t, want, got, format, args...)
	}
}

// TestPersistentAllreduce: a sum into another buffer, a max in place and an
// int32 product, started together.
func TestPersistentAllreduce(t *testing.T) {
	w := World()
	p, me := w.Size(), w.Rank()
	for _, n := range []int{1, 1500} {
		send, recv, inPlace := make([]float64, n), make([]float64, n), make([]float64, n)
		ints, intsOut := make([]int32, n), make([]int32, n)
		var ps plans
		for _, mk := range []func() (*Request, error){
			func() (*Request, error) { return AllreduceInit(w, send, recv, OpSum) },
			func() (*Request, error) { return AllreduceInit(w, inPlace, inPlace, OpMax) },
			func() (*Request, error) { return AllreduceInit(w, ints, intsOut, OpProd) },
		} {
			p, err := mk()
			require.NoError(t, err)
			ps = append(ps, p)
		}
		want, vals, wantInts := make([]float64, n), make([]float64, n), make([]int32, n)
		okSum, okMax, okProd := true, true, true
		for iter := range planStarts {
			sumF := func(r, i int) float64 { return distinct[float64](r, iter, i) }
			maxF := func(r, i int) float64 { return distinct[float64](r, iter, 2*i) }
			prodF := func(r, i int) int32 { return int32(1 + (r+iter+i)%3) }
			for i := range n {
				send[i], vals[i], ints[i] = sumF(me, i), maxF(me, i), prodF(me, i)
			}
			copy(inPlace, vals)
			ps.start(t)
			ps.finish(t, iter)
			checkOnce(t, &okSum, model(p, n, sumF, add), recv, "Allreduce_init sum n %d start %d", n, iter)
			checkOnce(t, &okMax, model(p, n, maxF, larger), inPlace, "Allreduce_init max in place n %d start %d", n, iter)
			checkOnce(t, &okProd, model(p, n, prodF, mul), intsOut, "Allreduce_init int32 prod n %d start %d", n, iter)
			if !checkBlocking(iter) {
				continue
			}
			require.NoError(t, Allreduce(w, send, want, OpSum))
			checkOnce(t, &okSum, want, recv, "Allreduce_init sum n %d start %d against Allreduce", n, iter)
			require.NoError(t, Allreduce(w, vals, want, OpMax))
			checkOnce(t, &okMax, want, inPlace, "Allreduce_init max in place n %d start %d against Allreduce", n, iter)
			require.NoError(t, Allreduce(w, ints, wantInts, OpProd))
			checkOnce(t, &okProd, wantInts, intsOut, "Allreduce_init int32 prod n %d start %d against Allreduce", n, iter)
		}
		ps.free(t)
	}
}

// bcastPlans are the persistent broadcasts of one root: bytes, int32 and
// pairs (Float64Int), with the buffers of the blocking calls they are
// compared with.
type bcastPlans struct {
	root, n, me int
	b, wb       []byte
	i32, wi     []int32
	pair, wp    []Float64Int
	ok          [3]bool
	ps          plans
}

func newBcastPlans(t *testing.T, w *Comm, root, n int) *bcastPlans {
	bp := &bcastPlans{root: root, n: n, me: w.Rank(), ok: [3]bool{true, true, true},
		b: make([]byte, n), wb: make([]byte, n), i32: make([]int32, n), wi: make([]int32, n),
		pair: make([]Float64Int, n), wp: make([]Float64Int, n)}
	for _, mk := range []func() (*Request, error){
		func() (*Request, error) { return w.BcastInit(bp.b, root) },
		func() (*Request, error) { return BcastInit(w, bp.i32, root) },
		func() (*Request, error) { return BcastInit(w, bp.pair, root) },
	} {
		p, err := mk()
		require.NoError(t, err)
		bp.ps = append(bp.ps, p)
	}
	return bp
}

// fill puts start iter's data at the root and junk elsewhere, for the
// broadcast to overwrite, into the plans' buffers and the blocking calls'.
func (bp *bcastPlans) fill(iter int) {
	k := iter
	if bp.me != bp.root {
		k = -1
	}
	for i := range bp.n {
		bp.b[i], bp.wb[i] = distinct[byte](bp.root, k, i), distinct[byte](bp.root, k, i)
		bp.i32[i], bp.wi[i] = distinct[int32](bp.root, k, i), distinct[int32](bp.root, k, i)
		bp.pair[i], bp.wp[i] = distinct[Float64Int](bp.root, k, i), distinct[Float64Int](bp.root, k, i)
	}
}

// check compares the plans' buffers with start iter's data.
func (bp *bcastPlans) check(t *testing.T, iter int) {
	t.Helper()
	what := "Bcast_init root %d start %d"
	checkOnce(t, &bp.ok[0], filled(bp.n, func(i int) byte { return distinct[byte](bp.root, iter, i) }), bp.b, what+" bytes", bp.root, iter)
	checkOnce(t, &bp.ok[1], filled(bp.n, func(i int) int32 { return distinct[int32](bp.root, iter, i) }), bp.i32, what+" int32", bp.root, iter)
	checkOnce(t, &bp.ok[2], filled(bp.n, func(i int) Float64Int { return distinct[Float64Int](bp.root, iter, i) }), bp.pair, what+" Float64Int", bp.root, iter)
}

// blocking runs the blocking broadcasts of fill's data and compares the
// plans' buffers with theirs.
func (bp *bcastPlans) blocking(t *testing.T, w *Comm, iter int) {
	t.Helper()
	require.NoError(t, w.Bcast(bp.wb, bp.root))
	require.NoError(t, Bcast(w, bp.wi, bp.root))
	require.NoError(t, Bcast(w, bp.wp, bp.root))
	what := "Bcast_init root %d start %d against Bcast"
	checkOnce(t, &bp.ok[0], bp.wb, bp.b, what+" bytes", bp.root, iter)
	checkOnce(t, &bp.ok[1], bp.wi, bp.i32, what+" int32", bp.root, iter)
	checkOnce(t, &bp.ok[2], bp.wp, bp.pair, what+" Float64Int", bp.root, iter)
}

// TestPersistentBcast: bytes, int32 and pairs from every root, all started
// together.
func TestPersistentBcast(t *testing.T) {
	w := World()
	const n = 1000 // pairs of several KiB: the size where MPICH moves them wrongly (gc_moved)
	var all []*bcastPlans
	var ps plans
	for _, root := range testRoots(w.Size()) {
		bp := newBcastPlans(t, w, root, n)
		all, ps = append(all, bp), append(ps, bp.ps...)
	}
	for iter := range planStarts {
		for _, bp := range all {
			bp.fill(iter)
		}
		ps.start(t)
		ps.finish(t, iter)
		for _, bp := range all {
			bp.check(t, iter)
			if checkBlocking(iter) {
				bp.blocking(t, w, iter)
			}
		}
	}
	ps.free(t)
}

// TestPersistentReduceScatterBlock: a sum into another buffer and a min in
// place, started together.
func TestPersistentReduceScatterBlock(t *testing.T) {
	w := World()
	p, me := w.Size(), w.Rank()
	const n = 5
	send, recv, inPlace := make([]int64, p*n), make([]int64, n), make([]int64, p*n)
	p1, err := ReduceScatterBlockInit(w, send, recv, OpSum)
	require.NoError(t, err)
	p2, err := ReduceScatterBlockInit(w, inPlace, inPlace, OpMin)
	require.NoError(t, err)
	ps := plans{p1, p2}
	want, vals := make([]int64, n), make([]int64, p*n)
	ok1, ok2 := true, true
	for iter := range planStarts {
		sumF := func(r, i int) int64 { return distinct[int64](r, iter, i) }
		minF := func(r, i int) int64 { return distinct[int64](r, iter, 3*i) % 11 }
		for i := range send {
			send[i], vals[i] = sumF(me, i), minF(me, i)
		}
		copy(inPlace, vals)
		ps.start(t)
		ps.finish(t, iter)
		mine := func(f func(r, i int) int64) func(r, i int) int64 {
			return func(r, i int) int64 { return f(r, me*n+i) }
		}
		checkOnce(t, &ok1, model(p, n, mine(sumF), add), recv, "Reduce_scatter_block_init start %d", iter)
		checkOnce(t, &ok2, model(p, n, mine(minF), smaller), inPlace[:n], "Reduce_scatter_block_init in place start %d", iter)
		if !checkBlocking(iter) {
			continue
		}
		require.NoError(t, ReduceScatterBlock(w, send, want, OpSum))
		checkOnce(t, &ok1, want, recv, "Reduce_scatter_block_init start %d against ReduceScatterBlock", iter)
		require.NoError(t, ReduceScatterBlock(w, vals, want, OpMin))
		checkOnce(t, &ok2, want, inPlace[:n], "Reduce_scatter_block_init in place start %d against ReduceScatterBlock", iter)
	}
	ps.free(t)
}

// TestPersistentUserOp: a plan holds its user operator, which keeps working
// after Op.Free until the plan is freed.
func TestPersistentUserOp(t *testing.T) {
	w := World()
	me := w.Rank()
	sum, err := NewOpOf(func(in, inout []int64) {
		for i := range in {
			inout[i] += in[i]
		}
	}, true)
	require.NoError(t, err)
	send, recv, want := make([]int64, 9), make([]int64, 9), make([]int64, 9)
	p, err := AllreduceInit(w, send, recv, sum)
	require.NoError(t, err)
	require.NoError(t, sum.Free())
	ok := true
	for iter := range 50 {
		for i := range send {
			send[i] = distinct[int64](me, iter, i)
		}
		plans{p}.start(t)
		plans{p}.finish(t, iter)
		require.NoError(t, Allreduce(w, send, want, OpSum))
		checkOnce(t, &ok, want, recv, "Allreduce_init with a freed user operator, start %d", iter)
	}
	require.NotNil(t, opSlots[sum.user-1].Load(), "the plan holds the freed operator's slot")
	require.NoError(t, p.Free())
	require.Nil(t, opSlots[sum.user-1].Load(), "the plan's Free releases the slot")
}

// TestPersistentBesideNonblocking: a multi-request call that completes a
// plan and a nonblocking collective together finishes the one and leaves
// the other startable.
func TestPersistentBesideNonblocking(t *testing.T) {
	w := World()
	x, y, z := []float64{1, 2}, make([]float64, 2), make([]float64, 2)
	p, err := AllreduceInit(w, x, y, OpSum)
	require.NoError(t, err)
	for iter := range 4 {
		require.NoError(t, p.Start())
		nb, err := Iallreduce(w, x, z, OpSum)
		require.NoError(t, err)
		reqs := []*Request{p, nb}
		if iter%2 == 0 {
			require.NoError(t, Waitall(reqs))
		} else {
			for ok := false; !ok; {
				ok, err = Testall(reqs)
				require.NoError(t, err)
			}
		}
		require.True(t, nb.Done(), "the nonblocking request is finished")
		require.False(t, p.Done() || p.active, "the plan is inactive, not finished")
		checkEq(t, z, y, "Allreduce_init beside Iallreduce")
	}
	require.NoError(t, p.Free())
}

// TestPersistentAllocs: a start and its wait allocate nothing.
func TestPersistentAllocs(t *testing.T) {
	c := Self()
	s, r, b := make([]float64, 4), make([]float64, 4), make([]byte, 8)
	pa, err := AllreduceInit(c, s, r, OpSum)
	require.NoError(t, err)
	pb, err := c.BcastInit(b, 0)
	require.NoError(t, err)
	for _, p := range []*Request{pa, pb} {
		var err error
		n := testing.AllocsPerRun(200, func() {
			if e := p.Start(); e != nil {
				err = e
				return
			}
			if _, e := p.Wait(); e != nil {
				err = e
			}
		})
		require.NoError(t, err)
		require.Zero(t, n, "allocations per Start and Wait")
		require.NoError(t, p.Free())
	}
}

// TestPersistentMisuse: bad arguments are refused as the blocking forms
// refuse them, and so is a plan started twice, freed while active, or used
// after Free; each case fails alike on every rank, before MPI.
func TestPersistentMisuse(t *testing.T) {
	w := World()
	p, me := w.Size(), w.Rank()
	huge := hugeBytes(t)
	f2, f1 := []float64{1, 2}, make([]float64, 1)
	fp := func(n int) []float64 { return make([]float64, n) }
	alias := fp(2*p + 1)
	freed, err := w.Dup()
	require.NoError(t, err)
	require.NoError(t, freed.Free())
	gone, err := NewOp(func(in, inout []byte, dt Datatype) {}, false)
	require.NoError(t, err)
	require.NoError(t, gone.Free())
	mk := func(_ *Request, err error) error { return err }

	cases := []struct {
		name string
		err  error
		want error
	}{
		{"Bcast_init nil", mk(w.BcastInit(nil, 0)), ErrNilBuffer},
		{"Bcast_init count", mk(w.BcastInit(huge, 0)), ErrCount},
		{"Bcast_init root = size", mk(w.BcastInit([]byte{1}, p)), ErrRank},
		{"typed Bcast_init root -1", mk(BcastInit(w, f2, -1)), ErrRank},
		{"Bcast_init on freed comm", mk(freed.BcastInit([]byte{1}, 0)), ErrFreed},
		{"Allreduce_init nil send", mk(AllreduceInit(w, nil, f2, OpSum)), ErrNilBuffer},
		{"Allreduce_init nil recv", mk(AllreduceInit(w, f2, nil, OpSum)), ErrNilBuffer},
		{"Allreduce_init recv short", mk(AllreduceInit(w, f2, f1, OpSum)), ErrShortBuffer},
		{"Allreduce_init MINLOC on float64", mk(AllreduceInit(w, f2, fp(2), OpMinloc)), ErrDatatype},
		{"Allreduce_init freed user op", mk(AllreduceInit(w, f2, fp(2), gone)), ErrFreed},
		{"Allreduce_init zero Op", mk(AllreduceInit(w, f2, fp(2), Op{})), ErrArg},
		{"Allreduce_init partial overlap", mk(AllreduceInit(w, alias[0:2], alias[1:3], OpSum)), ErrArg},
		{"Allreduce_init on nil comm", mk(AllreduceInit(nil, f2, fp(2), OpSum)), ErrArg},
		{"Reduce_scatter_block_init nil recv", mk(ReduceScatterBlockInit(w, fp(p), nil, OpSum)), ErrNilBuffer},
		{"Reduce_scatter_block_init send short", mk(ReduceScatterBlockInit(w, fp(2*p-1), f2, OpSum)), ErrShortBuffer},
		{"Reduce_scatter_block_init partial overlap", mk(ReduceScatterBlockInit(w, alias[:p+1], alias[:1], OpSum)), ErrArg},
	}
	for _, c := range cases {
		require.ErrorIs(t, c.err, c.want, c.name)
		var mpiE *Error
		require.False(t, errors.As(c.err, &mpiE), "%s: misuse is not an MPI error", c.name)
	}

	// The life of a plan.
	send, recv := []float64{float64(me)}, make([]float64, 1)
	pl, err := AllreduceInit(w, send, recv, OpSum)
	require.NoError(t, err)
	st, err := pl.Wait()
	require.NoError(t, err, "Wait on a plan never started returns at once")
	require.Equal(t, Status{Source: AnySource, Tag: AnyTag}, st, "with an empty status")
	done, _, err := pl.Test()
	require.NoError(t, err)
	require.True(t, done, "a plan never started is complete")
	require.NoError(t, pl.Free())
	pl, err = AllreduceInit(w, send, recv, OpSum)
	require.NoError(t, err)
	require.NoError(t, pl.Start())
	require.ErrorIs(t, pl.Start(), ErrActive, "a second start before the wait")
	require.ErrorIs(t, pl.Free(), ErrActive, "Free of an active plan")
	require.ErrorIs(t, pl.Cancel(), ErrArg, "Cancel of a plan")
	_, err = pl.Wait()
	require.NoError(t, err)
	require.Equal(t, float64(p*(p-1)/2), recv[0])
	require.NoError(t, pl.Start(), "a completed plan starts again")
	_, err = pl.Wait()
	require.NoError(t, err)
	require.NoError(t, pl.Free())
	require.ErrorIs(t, pl.Start(), ErrFreed, "Start after Free")
	require.ErrorIs(t, pl.Free(), ErrFreed, "Free twice")
	_, err = pl.Wait()
	require.ErrorIs(t, err, ErrFreed, "Wait after Free")
	_, _, err = pl.Test()
	require.ErrorIs(t, err, ErrFreed, "Test after Free")

	// A nonblocking request is neither started again nor freed.
	nb, err := Iallreduce(w, send, recv, OpSum)
	require.NoError(t, err)
	require.ErrorIs(t, nb.Start(), ErrArg, "Start of a nonblocking request")
	require.ErrorIs(t, nb.Free(), ErrArg, "Free of a nonblocking request")
	_, err = nb.Wait()
	require.NoError(t, err)
	require.ErrorIs(t, nb.Start(), ErrFreed, "Start of a completed nonblocking request")
	require.ErrorIs(t, (*Request)(nil).Start(), ErrArg)

	// Outside Init..Finalize, as TestCollState does.
	pl, err = BcastInit(w, send, 0)
	require.NoError(t, err)
	for _, c := range []struct {
		state int32
		want  error
	}{{stateNew, ErrNotInitialized}, {stateFinal, ErrFinalized}} {
		old := state.Load()
		state.Store(c.state)
		errs := map[string]error{
			"Allreduce_init": mk(AllreduceInit(w, send, recv, OpSum)),
			"Bcast_init":     mk(w.BcastInit([]byte{1}, 0)),
			"Start":          pl.Start(),
			"Free":           pl.Free(),
		}
		state.Store(old)
		for name, err := range errs {
			require.ErrorIs(t, err, c.want, name)
		}
	}
	require.NoError(t, pl.Free())
	// No rank entered a collective: one now matches on every rank.
	require.NoError(t, w.Barrier())
}
