package mpi

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// mat packs the 2x2 matrix [a b; c d] of uint16 entries (arithmetic mod
// 2^16) into one uint64, so a matrix is one MPI element and no split of a
// buffer by MPI can cut one in two.
func mat(a, b, c, d uint16) uint64 {
	return uint64(a) | uint64(b)<<16 | uint64(c)<<32 | uint64(d)<<48
}

func unmat(x uint64) (a, b, c, d uint16) {
	return uint16(x), uint16(x >> 16), uint16(x >> 32), uint16(x >> 48)
}

// matMul is the matrix product x*y: associative, not commutative.
func matMul(x, y uint64) uint64 {
	xa, xb, xc, xd := unmat(x)
	ya, yb, yc, yd := unmat(y)
	return mat(xa*ya+xb*yc, xa*yb+xb*yd, xc*ya+xd*yc, xc*yb+xd*yd)
}

func genMat(rank, iter, i int) uint64 {
	return mat(uint16(1+rank), uint16(2+iter+i%5), uint16(rank*rank+i%3), uint16(3+rank%4+iter))
}

// matOp is the MPI operator of matMul: MPI's in comes from lower ranks, so
// inout = in * inout keeps rank order.
func matOp(calls *atomic.Int64) (Op, error) {
	return NewOpOf(func(in, inout []uint64) {
		calls.Add(1)
		for k := range inout {
			inout[k] = matMul(in[k], inout[k])
		}
	}, false)
}

func TestUserOpNonCommutative(t *testing.T) {
	p := World().Size()
	if p > 1 {
		// A wrong order can only show if the order matters for these inputs.
		fwd, rev := genMat(0, 0, 0), genMat(p-1, 0, 0)
		for q := 1; q < p; q++ {
			fwd = matMul(fwd, genMat(q, 0, 0))
		}
		for q := p - 2; q >= 0; q-- {
			rev = matMul(rev, genMat(q, 0, 0))
		}
		require.NotEqual(t, fwd, rev, "test inputs must not commute")
	}
	var calls atomic.Int64
	op, err := matOp(&calls)
	require.NoError(t, err)
	runReduce(t, op, matMul, genMat)
	if p > 1 {
		require.Positive(t, calls.Load(), "MPI must have called the Go operator")
	}
	require.NoError(t, op.Free())
}

// asSlice views b as elements of T.
func asSlice[T any](b []byte) []T {
	if len(b) == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), len(b)/int(unsafe.Sizeof(z)))
}

// absMax keeps the value of larger magnitude, the larger one on a tie: a
// total order, so commutative and associative.
func absMax[T int32 | float64](a, b T) T {
	ma, mb := max(a, -a), max(b, -b)
	if ma > mb || (ma == mb && a > b) {
		return a
	}
	return b
}

func absMaxInto[T int32 | float64](in, inout []T) {
	for i := range inout {
		inout[i] = absMax(in[i], inout[i])
	}
}

func TestUserOpBytes(t *testing.T) {
	var bad atomic.Int64
	op, err := NewOp(func(in, inout []byte, dt Datatype) {
		if len(in) != len(inout) || len(in)%dt.Size() != 0 {
			bad.Add(1)
			return
		}
		switch dt {
		case Float64:
			absMaxInto(asSlice[float64](in), asSlice[float64](inout))
		case Int32:
			absMaxInto(asSlice[int32](in), asSlice[int32](inout))
		default:
			bad.Add(1)
		}
	}, true)
	require.NoError(t, err)
	// One byte-level operator serves any element type.
	runReduce(t, op, absMax[float64], genArith[float64])
	runReduce(t, op, absMax[int32], genArith[int32])
	require.Zero(t, bad.Load(), "the operator got the datatype of the call and whole elements")
	require.NoError(t, op.Free())
}

func TestUserOpTypedCommutative(t *testing.T) {
	// A commutative typed operator on complex values: a+b+ab, which is
	// associative ((1+a)(1+b)-1) and exact on small integers.
	op, err := NewOpOf(func(in, inout []complex128) {
		for i := range inout {
			inout[i] = in[i] + inout[i] + in[i]*inout[i]
		}
	}, true)
	require.NoError(t, err)
	f := func(a, b complex128) complex128 { return a + b + a*b }
	gen := func(rank, iter, i int) complex128 {
		return complex(float64((rank+iter+i)%3-1), float64((rank*iter+i)%2))
	}
	runReduce(t, op, f, gen)
	require.NoError(t, op.Free())
}

// TestUserOpConcurrent uses the table from several goroutines at once:
// creating, holding, freeing; and reducing with one operator on separate
// communicators concurrently (THREAD_MULTIPLE), every rank alike.
func TestUserOpConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := 0; g < 8; g++ {
		wg.Go(func() {
			for i := 0; i < 100; i++ {
				o, err := NewOpOf(func(in, inout []float64) {}, i%2 == 0)
				if err != nil {
					errs <- err
					return
				}
				slot, err := holdOp("test", o, Float64)
				if err != nil {
					errs <- err
					return
				}
				if i%3 == 0 { // freed while held: the slot stays until the release
					err = o.Free()
					releaseOp(slot)
				} else {
					releaseOp(slot)
					err = o.Free()
				}
				if err != nil {
					errs <- err
					return
				}
				if err := o.Free(); !errors.Is(err, ErrFreed) {
					errs <- fmt.Errorf("second Free: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}

	w := World()
	p, me := w.Size(), w.Rank()
	var calls atomic.Int64
	op, err := matOp(&calls)
	require.NoError(t, err)
	const lanes = 4
	comms := make([]*Comm, lanes)
	for l := range comms {
		comms[l], err = w.Dup()
		require.NoError(t, err)
	}
	got := make([][][]uint64, lanes)
	lerr := make([]error, lanes)
	for l := range lanes {
		wg.Go(func() {
			for iter := 0; iter < 10; iter++ {
				x := filled(5, func(i int) uint64 { return genMat(me, iter+l, i) })
				if err := Allreduce(comms[l], x, x, op); err != nil {
					lerr[l] = err
					return
				}
				got[l] = append(got[l], x)
			}
		})
	}
	wg.Wait()
	for l := range lanes {
		require.NoError(t, lerr[l])
		for iter, x := range got[l] {
			want := filled(5, func(i int) uint64 { return genMat(0, iter+l, i) })
			for q := 1; q < p; q++ {
				for i := range want {
					want[i] = matMul(want[i], genMat(q, iter+l, i))
				}
			}
			checkEq(t, want, x, "lane %d iteration %d", l, iter)
		}
		require.NoError(t, comms[l].Free())
	}
	require.NoError(t, op.Free())
}

func TestUserOpLifecycle(t *testing.T) {
	w := World()
	p, me := w.Size(), w.Rank()
	add := func(in, inout []int32) {
		for i := range inout {
			inout[i] += in[i]
		}
	}
	sumOp, err := NewOpOf(add, true)
	require.NoError(t, err)
	require.Contains(t, sumOp.String(), "user operator")

	// Freed while a nonblocking reduction uses it: as with MPI_Op_free the
	// reduction completes with it, and later use is refused.
	x := []int32{int32(me + 1), int32(10 * me)}
	r, err := Iallreduce(w, x, x, sumOp)
	require.NoError(t, err)
	require.NoError(t, sumOp.Free())
	_, err = r.Wait()
	require.NoError(t, err)
	checkEq(t, []int32{int32(p * (p + 1) / 2), int32(10 * p * (p - 1) / 2)}, x, "Iallreduce with its operator freed in flight")
	require.ErrorIs(t, Allreduce(w, x, x, sumOp), ErrFreed)
	require.ErrorIs(t, sumOp.Free(), ErrFreed)
	require.ErrorIs(t, OpSum.Free(), ErrArg, "predefined operators cannot be freed")
	require.ErrorIs(t, Op{}.Free(), ErrArg)
	_, err = NewOp(nil, true)
	require.ErrorIs(t, err, ErrArg)
	_, err = NewOpOf[int8](nil, true)
	require.ErrorIs(t, err, ErrArg)

	// The table fills up. sumOp's slot is still held by its completed
	// request until a collection runs the cleanup; a full table triggers
	// one, so every slot is usable.
	var ops []Op
	for {
		o, err := NewOpOf(add, true)
		if err != nil {
			require.ErrorIs(t, err, ErrOpTableFull)
			break
		}
		ops = append(ops, o)
		require.LessOrEqual(t, len(ops), MaxUserOps)
	}
	require.Len(t, ops, MaxUserOps, "all slots come back once operators are freed")

	stale := ops[0]
	require.NoError(t, stale.Free())
	fresh, err := NewOpOf(add, true)
	require.NoError(t, err)
	require.Equal(t, stale.user, fresh.user, "the freed slot is reused")
	ops[0] = fresh
	require.ErrorIs(t, Allreduce(w, x, x, stale), ErrFreed, "a stale copy must not reach the slot's new operator")
	require.ErrorIs(t, stale.Free(), ErrFreed, "nor free it")
	y := []int32{int32(me), 1}
	require.NoError(t, Allreduce(w, y, y, fresh))
	checkEq(t, []int32{int32(p * (p - 1) / 2), int32(p)}, y, "Allreduce with a reused slot")
	for _, o := range ops {
		require.NoError(t, o.Free())
	}
}
