package mpi

import (
	"errors"
	"fmt"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// The collective tests run the same collectives in the same order on every
// rank. Data checks go through checkEq, which reports without stopping, so a
// wrong value on one rank never leaves the others waiting in a collective.

// collSizes are the block lengths of the iterations: one element, a few, none,
// and enough for MPI to pick its segmented algorithms.
var collSizes = []int{1, 6, 0, 1500}

// testRoots are the roots of every rooted collective: first, middle and last.
func testRoots(p int) []int {
	rs := []int{0}
	for _, r := range []int{p / 2, p - 1} {
		if r != rs[len(rs)-1] {
			rs = append(rs, r)
		}
	}
	return rs
}

// checkEq reports the first element where got differs from want. Struct
// comparison with == skips the padding of the pair types.
func checkEq[T Element](t *testing.T, want, got []T, format string, args ...any) bool {
	t.Helper()
	what := fmt.Sprintf(format, args...)
	if len(want) != len(got) {
		t.Errorf("rank %d: %s: got %d elements, want %d", World().Rank(), what, len(got), len(want))
		return false
	}
	for i := range want {
		if want[i] != got[i] {
			t.Errorf("rank %d: %s: element %d of %d: got %v, want %v", World().Rank(), what, i, len(want), got[i], want[i])
			return false
		}
	}
	return true
}

func filled[T any](n int, f func(i int) T) []T {
	s := make([]T, n)
	for i := range s {
		s[i] = f(i)
	}
	return s
}

// numOf converts x to T: every type holds the small integers the tests use
// exactly; complex values get an imaginary part too, pairs Loc = x.
func numOf[T Element](x int64) T {
	var v T
	switch p := any(&v).(type) {
	case *int8:
		*p = int8(x)
	case *int16:
		*p = int16(x)
	case *int32:
		*p = int32(x)
	case *int64:
		*p = x
	case *int:
		*p = int(x)
	case *uint8:
		*p = uint8(x)
	case *uint16:
		*p = uint16(x)
	case *uint32:
		*p = uint32(x)
	case *uint64:
		*p = uint64(x)
	case *uint:
		*p = uint(x)
	case *float32:
		*p = float32(x)
	case *float64:
		*p = float64(x)
	case *complex64:
		*p = complex(float32(x), float32(x%3-1))
	case *complex128:
		*p = complex(float64(x), float64(x%3-1))
	case *Float64Int:
		*p = Float64Int{Val: float64(x), Loc: int32(x)}
	case *Float32Int:
		*p = Float32Int{Val: float32(x), Loc: int32(x)}
	case *Int32Int:
		*p = Int32Int{Val: int32(x), Loc: int32(x)}
	case *Int64Int:
		*p = Int64Int{Val: x, Loc: int32(x)}
	default:
		panic(fmt.Sprintf("num: %T", v))
	}
	return v
}

// distinct gives, at each index, values that differ per rank and per
// iteration (97 and 13 are odd, so even 8-bit types keep ranks apart).
func distinct[T Element](rank, iter, i int) T { return numOf[T](int64(97*rank + 13*iter + i)) }

// movers are the data-moving collectives under test, byte-level or typed.
type movers[T Element] struct {
	bcast     func(*Comm, []T, int) error
	gather    func(*Comm, []T, []T, int) error
	scatter   func(*Comm, []T, []T, int) error
	allgather func(*Comm, []T, []T) error
	alltoall  func(*Comm, []T, []T) error
}

func typedMovers[T Element]() movers[T] {
	return movers[T]{Bcast[T], Gather[T], Scatter[T], Allgather[T], Alltoall[T]}
}

var byteMovers = movers[byte]{(*Comm).Bcast, (*Comm).Gather, (*Comm).Scatter, (*Comm).Allgather, (*Comm).Alltoall}

func runMove[T Element](t *testing.T, m movers[T]) {
	w := World()
	p, me := w.Size(), w.Rank()
	junk := numOf[T](-1)
	none := func(int) T { return junk }
	for iter, n := range collSizes {
		mine := filled(n, func(i int) T { return distinct[T](me, iter, i) })
		// Block q of a gathered buffer holds rank q's values.
		gathered := filled(p*n, func(j int) T { return distinct[T](j/n, iter, j%n) })
		for _, root := range testRoots(p) {
			b := filled(n, none)
			if me == root {
				b = filled(n, func(i int) T { return distinct[T](root, iter, i) })
			}
			require.NoError(t, m.bcast(w, b, root))
			checkEq(t, filled(n, func(i int) T { return distinct[T](root, iter, i) }), b, "Bcast root %d n %d", root, n)

			var recv []T // nil off the root: ignored there
			if me == root {
				recv = filled(p*n, none)
			}
			require.NoError(t, m.gather(w, mine, recv, root))
			if me == root {
				checkEq(t, gathered, recv, "Gather root %d n %d", root, n)
			}
			// In place: the root's send is its own block of recv.
			send := mine
			if me == root {
				recv = filled(p*n, func(j int) T {
					if j/n == root {
						return distinct[T](root, iter, j%n)
					}
					return junk
				})
				send = recv[root*n : (root+1)*n]
			}
			require.NoError(t, m.gather(w, send, recv, root))
			if me == root {
				checkEq(t, gathered, recv, "Gather in place root %d n %d", root, n)
			}

			// Scatter: block q of the root's send is val(root, iter, q*n+i).
			all := func() []T { return filled(p*n, func(j int) T { return distinct[T](root, iter, j) }) }
			mineOf := filled(n, func(i int) T { return distinct[T](root, iter, me*n+i) })
			var src []T
			if me == root {
				src = all()
			}
			got := filled(n, none)
			require.NoError(t, m.scatter(w, src, got, root))
			checkEq(t, mineOf, got, "Scatter root %d n %d", root, n)
			// In place: the root's recv is its own block of send.
			got = filled(n, none)
			if me == root {
				src = all()
				got = src[root*n : (root+1)*n]
			}
			require.NoError(t, m.scatter(w, src, got, root))
			checkEq(t, mineOf, got, "Scatter in place root %d n %d", root, n)
			if me == root {
				checkEq(t, all(), src, "Scatter in place leaves the root's send as it was")
			}
		}

		recv := filled(p*n, none)
		require.NoError(t, m.allgather(w, mine, recv))
		checkEq(t, gathered, recv, "Allgather n %d", n)
		recv = filled(p*n, func(j int) T {
			if j/n == me {
				return distinct[T](me, iter, j%n)
			}
			return junk
		})
		require.NoError(t, m.allgather(w, recv[me*n:(me+1)*n], recv))
		checkEq(t, gathered, recv, "Allgather in place n %d", n)

		// Alltoall: block j of rank q's send goes to block q of rank j.
		send := filled(p*n, func(j int) T { return distinct[T](me, iter, j) })
		want := filled(p*n, func(j int) T { return distinct[T](j/n, iter, me*n+j%n) })
		recv = filled(p*n, none)
		require.NoError(t, m.alltoall(w, send, recv))
		checkEq(t, want, recv, "Alltoall n %d", n)
		checkEq(t, filled(p*n, func(j int) T { return distinct[T](me, iter, j) }), send, "Alltoall leaves send as it was")
		require.NoError(t, m.alltoall(w, send, send))
		checkEq(t, want, send, "Alltoall in place n %d", n)
	}
}

func TestDataMovement(t *testing.T) {
	t.Run("bytes", func(t *testing.T) { runMove(t, byteMovers) })
	t.Run("int8", func(t *testing.T) { runMove(t, typedMovers[int8]()) })
	t.Run("int16", func(t *testing.T) { runMove(t, typedMovers[int16]()) })
	t.Run("int32", func(t *testing.T) { runMove(t, typedMovers[int32]()) })
	t.Run("int64", func(t *testing.T) { runMove(t, typedMovers[int64]()) })
	t.Run("uint16", func(t *testing.T) { runMove(t, typedMovers[uint16]()) })
	t.Run("uint32", func(t *testing.T) { runMove(t, typedMovers[uint32]()) })
	t.Run("uint64", func(t *testing.T) { runMove(t, typedMovers[uint64]()) })
	t.Run("float32", func(t *testing.T) { runMove(t, typedMovers[float32]()) })
	t.Run("float64", func(t *testing.T) { runMove(t, typedMovers[float64]()) })
	t.Run("complex64", func(t *testing.T) { runMove(t, typedMovers[complex64]()) })
	t.Run("complex128", func(t *testing.T) { runMove(t, typedMovers[complex128]()) })
	t.Run("Float64Int", func(t *testing.T) { runMove(t, typedMovers[Float64Int]()) })
	t.Run("Int32Int", func(t *testing.T) { runMove(t, typedMovers[Int32Int]()) })
}

// finishAll finishes reqs with Waitall or, on odd iterations, polls Testall.
func finishAll(t *testing.T, reqs []*Request, iter int) {
	t.Helper()
	if iter%2 == 0 {
		require.NoError(t, Waitall(reqs))
	} else {
		for {
			ok, err := Testall(reqs)
			require.NoError(t, err)
			if ok {
				break
			}
		}
	}
	for i, r := range reqs {
		require.True(t, r.Done(), "request %d", i)
	}
}

// inFlight collects started requests.
type inFlight struct {
	t    *testing.T
	reqs []*Request
}

func (s *inFlight) add(r *Request, err error) {
	s.t.Helper()
	require.NoError(s.t, err)
	require.NotNil(s.t, r)
	s.reqs = append(s.reqs, r)
}

// imovers are the nonblocking data-moving collectives, byte-level or typed.
type imovers[T Element] struct {
	bcast     func(*Comm, []T, int) (*Request, error)
	gather    func(*Comm, []T, []T, int) (*Request, error)
	scatter   func(*Comm, []T, []T, int) (*Request, error)
	allgather func(*Comm, []T, []T) (*Request, error)
	alltoall  func(*Comm, []T, []T) (*Request, error)
}

func typedImovers[T Element]() imovers[T] {
	return imovers[T]{Ibcast[T], Igather[T], Iscatter[T], Iallgather[T], Ialltoall[T]}
}

var byteImovers = imovers[byte]{(*Comm).Ibcast, (*Comm).Igather, (*Comm).Iscatter, (*Comm).Iallgather, (*Comm).Ialltoall}

// runImove starts every nonblocking data-moving collective, in place and
// not, for one root at a time, then completes them all together.
func runImove[T Element](t *testing.T, m imovers[T]) {
	w := World()
	p, me := w.Size(), w.Rank()
	junk := numOf[T](-1)
	none := func(int) T { return junk }
	for iter, n := range collSizes {
		mine := filled(n, func(i int) T { return distinct[T](me, iter, i) })
		gathered := filled(p*n, func(j int) T { return distinct[T](j/n, iter, j%n) })
		for _, root := range testRoots(p) {
			s := &inFlight{t: t}
			rb, err := w.Ibarrier()
			s.add(rb, err)

			b := filled(n, none)
			if me == root {
				b = filled(n, func(i int) T { return distinct[T](root, iter, i) })
			}
			s.add(m.bcast(w, b, root))

			var g1, g2 []T
			send := mine
			if me == root {
				g1 = filled(p*n, none)
				g2 = filled(p*n, func(j int) T {
					if j/n == root {
						return distinct[T](root, iter, j%n)
					}
					return junk
				})
				send = g2[root*n : (root+1)*n]
			}
			s.add(m.gather(w, mine, g1, root))
			s.add(m.gather(w, send, g2, root))

			var src1, src2 []T
			sc1, sc2 := filled(n, none), filled(n, none)
			if me == root {
				src1 = filled(p*n, func(j int) T { return distinct[T](root, iter, j) })
				src2 = filled(p*n, func(j int) T { return distinct[T](root, iter, j) })
				sc2 = src2[root*n : (root+1)*n]
			}
			s.add(m.scatter(w, src1, sc1, root))
			s.add(m.scatter(w, src2, sc2, root))

			a1 := filled(p*n, none)
			a2 := filled(p*n, func(j int) T {
				if j/n == me {
					return distinct[T](me, iter, j%n)
				}
				return junk
			})
			s.add(m.allgather(w, mine, a1))
			s.add(m.allgather(w, a2[me*n:(me+1)*n], a2))

			x1 := filled(p*n, func(j int) T { return distinct[T](me, iter, j) })
			x2 := filled(p*n, func(j int) T { return distinct[T](me, iter, j) })
			t1 := filled(p*n, none)
			s.add(m.alltoall(w, x1, t1))
			s.add(m.alltoall(w, x2, x2))

			finishAll(t, s.reqs, iter+root)

			checkEq(t, filled(n, func(i int) T { return distinct[T](root, iter, i) }), b, "Ibcast root %d n %d", root, n)
			if me == root {
				checkEq(t, gathered, g1, "Igather root %d n %d", root, n)
				checkEq(t, gathered, g2, "Igather in place root %d n %d", root, n)
			}
			mineOf := filled(n, func(i int) T { return distinct[T](root, iter, me*n+i) })
			checkEq(t, mineOf, sc1, "Iscatter root %d n %d", root, n)
			checkEq(t, mineOf, sc2, "Iscatter in place root %d n %d", root, n)
			checkEq(t, gathered, a1, "Iallgather n %d", n)
			checkEq(t, gathered, a2, "Iallgather in place n %d", n)
			want := filled(p*n, func(j int) T { return distinct[T](j/n, iter, me*n+j%n) })
			checkEq(t, want, t1, "Ialltoall n %d", n)
			checkEq(t, want, x2, "Ialltoall in place n %d", n)
		}
	}
}

func TestNonblockingDataMovement(t *testing.T) {
	t.Run("bytes", func(t *testing.T) { runImove(t, byteImovers) })
	t.Run("int32", func(t *testing.T) { runImove(t, typedImovers[int32]()) })
	t.Run("uint64", func(t *testing.T) { runImove(t, typedImovers[uint64]()) })
	t.Run("float64", func(t *testing.T) { runImove(t, typedImovers[float64]()) })
	t.Run("complex64", func(t *testing.T) { runImove(t, typedImovers[complex64]()) })
	t.Run("Int64Int", func(t *testing.T) { runImove(t, typedImovers[Int64Int]()) })
}

func TestBarriers(t *testing.T) {
	w := World()
	for i := 0; i < 3; i++ {
		require.NoError(t, w.Barrier())
		s := &inFlight{t: t}
		for k := 0; k < 4; k++ {
			s.add(w.Ibarrier())
		}
		finishAll(t, s.reqs, i)
	}
}

// runReduce checks every reduction, blocking and nonblocking, in place and
// not, for one operator and element type, against the value folded here from
// the known inputs of all ranks in rank order: f(a, b) with a from lower ranks.
func runReduce[T Element](t *testing.T, op Op, f func(a, b T) T, gen func(rank, iter, i int) T) {
	w := World()
	p, me := w.Size(), w.Rank()
	for iter, n := range collSizes {
		in := func(q, m int) []T { return filled(m, func(i int) T { return gen(q, iter, i) }) }
		// fold reduces elements off..off+m of ranks lo..hi-1.
		fold := func(fMin, fMax, off, m int) []T {
			out := filled(m, func(i int) T { return gen(fMin, iter, off+i) })
			for q := fMin + 1; q < fMax; q++ {
				for i := range out {
					out[i] = f(out[i], gen(q, iter, off+i))
				}
			}
			return out
		}
		mine := in(me, n)
		all := fold(0, p, 0, n)

		recv := make([]T, n)
		require.NoError(t, Allreduce(w, mine, recv, op))
		checkEq(t, all, recv, "Allreduce n %d", n)
		checkEq(t, in(me, n), mine, "Allreduce leaves send as it was")
		x := in(me, n)
		require.NoError(t, Allreduce(w, x, x, op))
		checkEq(t, all, x, "Allreduce in place n %d", n)

		for _, root := range testRoots(p) {
			var recv []T // nil off the root: ignored there
			if me == root {
				recv = make([]T, n)
			}
			require.NoError(t, Reduce(w, mine, recv, op, root))
			if me == root {
				checkEq(t, all, recv, "Reduce root %d n %d", root, n)
			}
			x := in(me, n)
			require.NoError(t, Reduce(w, x, x, op, root))
			if me == root {
				checkEq(t, all, x, "Reduce in place root %d n %d", root, n)
			} else {
				checkEq(t, in(me, n), x, "Reduce off the root leaves send as it was")
			}
		}

		prefix := fold(0, me+1, 0, n)
		recv = make([]T, n)
		require.NoError(t, Scan(w, mine, recv, op))
		checkEq(t, prefix, recv, "Scan n %d", n)
		x = in(me, n)
		require.NoError(t, Scan(w, x, x, op))
		checkEq(t, prefix, x, "Scan in place n %d", n)

		recv = make([]T, n)
		require.NoError(t, Exscan(w, mine, recv, op))
		x = in(me, n)
		require.NoError(t, Exscan(w, x, x, op))
		if me > 0 { // rank 0's result is undefined
			checkEq(t, fold(0, me, 0, n), recv, "Exscan n %d", n)
			checkEq(t, fold(0, me, 0, n), x, "Exscan in place n %d", n)
		}

		block := fold(0, p, me*n, n)
		wide := in(me, p*n)
		recv = make([]T, n)
		require.NoError(t, ReduceScatterBlock(w, wide, recv, op))
		checkEq(t, block, recv, "ReduceScatterBlock n %d", n)
		x = in(me, p*n)
		require.NoError(t, ReduceScatterBlock(w, x, x, op))
		checkEq(t, block, x[:n], "ReduceScatterBlock in place n %d", n)

		// The nonblocking forms, all in flight at once.
		rs := testRoots(p)
		root := rs[iter%len(rs)]
		s := &inFlight{t: t}
		a1, a2 := make([]T, n), in(me, n)
		var r1 []T
		if me == root {
			r1 = make([]T, n)
		}
		r2 := in(me, n)
		s1, s2 := make([]T, n), in(me, n)
		e1, e2 := make([]T, n), in(me, n)
		b1, b2 := make([]T, n), in(me, p*n)
		s.add(Iallreduce(w, mine, a1, op))
		s.add(Iallreduce(w, a2, a2, op))
		s.add(Ireduce(w, mine, r1, op, root))
		s.add(Ireduce(w, r2, r2, op, root))
		s.add(Iscan(w, mine, s1, op))
		s.add(Iscan(w, s2, s2, op))
		s.add(Iexscan(w, mine, e1, op))
		s.add(Iexscan(w, e2, e2, op))
		s.add(IreduceScatterBlock(w, wide, b1, op))
		s.add(IreduceScatterBlock(w, b2, b2, op))
		finishAll(t, s.reqs, iter)
		checkEq(t, all, a1, "Iallreduce n %d", n)
		checkEq(t, all, a2, "Iallreduce in place n %d", n)
		if me == root {
			checkEq(t, all, r1, "Ireduce root %d n %d", root, n)
			checkEq(t, all, r2, "Ireduce in place root %d n %d", root, n)
		}
		checkEq(t, prefix, s1, "Iscan n %d", n)
		checkEq(t, prefix, s2, "Iscan in place n %d", n)
		if me > 0 {
			checkEq(t, fold(0, me, 0, n), e1, "Iexscan n %d", n)
			checkEq(t, fold(0, me, 0, n), e2, "Iexscan in place n %d", n)
		}
		checkEq(t, block, b1, "IreduceScatterBlock n %d", n)
		checkEq(t, block, b2[:n], "IreduceScatterBlock in place n %d", n)
	}
}

type intType interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~int | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uint
}

type ordType interface {
	intType | ~float32 | ~float64
}

// The predefined operators, computed here.
func fSum[T Number](a, b T) T   { return a + b }
func fProd[T Number](a, b T) T  { return a * b }
func fMin[T ordType](a, b T) T  { return min(a, b) }
func fMax[T ordType](a, b T) T  { return max(a, b) }
func fBand[T intType](a, b T) T { return a & b }
func fBor[T intType](a, b T) T  { return a | b }
func fBxor[T intType](a, b T) T { return a ^ b }
func fLand[T intType](a, b T) T { return truth[T](a != 0 && b != 0) }
func fLor[T intType](a, b T) T  { return truth[T](a != 0 || b != 0) }
func fLxor[T intType](a, b T) T { return truth[T]((a != 0) != (b != 0)) }

func truth[T intType](b bool) T {
	if b {
		return 1
	}
	return 0
}

// pairOf is the value and index of a MINLOC/MAXLOC pair.
func pairOf[T Element](x T) (float64, int32) {
	switch p := any(x).(type) {
	case Float64Int:
		return p.Val, p.Loc
	case Float32Int:
		return float64(p.Val), p.Loc
	case Int32Int:
		return float64(p.Val), p.Loc
	case Int64Int:
		return float64(p.Val), p.Loc
	}
	panic(fmt.Sprintf("pairOf: %T", x))
}

// fMinloc and fMaxloc keep the smaller index on equal values, as MPI does.
func fMinloc[T Element](a, b T) T {
	va, la := pairOf(a)
	vb, lb := pairOf(b)
	if vb < va || (vb == va && lb < la) {
		return b
	}
	return a
}

func fMaxloc[T Element](a, b T) T {
	va, la := pairOf(a)
	vb, lb := pairOf(b)
	if vb > va || (vb == va && lb < la) {
		return b
	}
	return a
}

// Inputs: genArith is distinct per rank (37 is prime to 101) and signed;
// genSmall keeps products exact in every type; genLogic has zeros; genPairs have
// equal values on several ranks, so the index rule matters. Sums and
// products of 8- and 16-bit types stay in range (genNarrow, genUnit,
// genPos): Open MPI's AVX operators saturate where its C loops wrap
// (open-mpi/ompi#8045), so an overflowing result is not portable.
func genArith[T Element](rank, iter, i int) T {
	return numOf[T](int64((37*rank+11*iter+5*i)%101 - 50))
}

// genNarrow is distinct per rank (5 = 37 mod 16 is prime to 16), and 8 of
// them sum to at most 120; genNarrowSigned is the same shifted to -8..7.
func genNarrow[T Element](rank, iter, i int) T {
	return numOf[T](int64((37*rank + 11*iter + 5*i) % 16))
}

func genNarrowSigned[T Element](rank, iter, i int) T {
	return numOf[T](int64((37*rank+11*iter+5*i)%16 - 8))
}

func genSmall[T Element](rank, iter, i int) T {
	v := int64((rank+2*iter+i)%3 + 1)
	if (rank+i)%4 == 3 {
		v = -v
	}
	return numOf[T](v)
}

// genPos is genSmall without signs: at most 3^8 for 8 ranks.
func genPos[T Element](rank, iter, i int) T {
	return numOf[T](int64((rank+2*iter+i)%3 + 1))
}

// genUnit is 1 or -1, and 2 on ranks 0 and 1 at even indices: a product
// of any number of them fits in 8 bits.
func genUnit[T Element](rank, iter, i int) T {
	v := int64(1)
	if (rank+iter+i)%3 == 0 {
		v = -1
	}
	if rank < 2 && i%2 == 0 {
		v *= 2
	}
	return numOf[T](v)
}

func genLogic[T Element](rank, iter, i int) T {
	if (rank+iter+i)%3 == 0 {
		return numOf[T](0)
	}
	return genArith[T](rank, iter, i)
}

func genPairs[T Element](rank, iter, i int) T {
	v := int64((37*rank + 11*iter + 5*i) % 4)
	loc := int32((rank*5)%8*1000 + i) // not monotonic in rank
	var x T
	switch p := any(&x).(type) {
	case *Float64Int:
		*p = Float64Int{Val: float64(v), Loc: loc}
	case *Float32Int:
		*p = Float32Int{Val: float32(v), Loc: loc}
	case *Int32Int:
		*p = Int32Int{Val: int32(v), Loc: loc}
	case *Int64Int:
		*p = Int64Int{Val: v, Loc: loc}
	}
	return x
}

func reduceCase[T Element](t *testing.T, op Op, f func(a, b T) T, gen func(rank, iter, i int) T) {
	t.Run(fmt.Sprintf("%s/%s", DatatypeOf[T](), op), func(t *testing.T) {
		if mpichUnsignedMinMax[T](op) {
			t.Skipf("MPICH before 4.1 takes unsigned types for signed in MPI_MIN and MPI_MAX (pmodels/mpich#6083); this is %s", mpichVersion())
		}
		runReduce(t, op, f, gen)
	})
}

func TestReductions(t *testing.T) {
	reduceCase(t, OpSum, fSum[int8], genNarrowSigned[int8])
	reduceCase(t, OpProd, fProd[int8], genUnit[int8])
	reduceCase(t, OpMax, fMax[int8], genArith[int8])
	reduceCase(t, OpLand, fLand[int8], genLogic[int8])
	reduceCase(t, OpBxor, fBxor[int8], genArith[int8])

	reduceCase(t, OpSum, fSum[int16], genArith[int16])
	reduceCase(t, OpMin, fMin[int16], genArith[int16])
	reduceCase(t, OpLor, fLor[int16], genLogic[int16])
	reduceCase(t, OpBand, fBand[int16], genArith[int16])

	reduceCase(t, OpSum, fSum[int32], genArith[int32])
	reduceCase(t, OpProd, fProd[int32], genSmall[int32])
	reduceCase(t, OpLxor, fLxor[int32], genLogic[int32])
	reduceCase(t, OpBor, fBor[int32], genArith[int32])

	reduceCase(t, OpSum, fSum[int64], genArith[int64])
	reduceCase(t, OpProd, fProd[int64], genSmall[int64])
	reduceCase(t, OpMin, fMin[int64], genArith[int64])
	reduceCase(t, OpMax, fMax[int64], genArith[int64])
	reduceCase(t, OpLand, fLand[int64], genLogic[int64])
	reduceCase(t, OpBxor, fBxor[int64], genArith[int64])
	reduceCase(t, OpSum, fSum[int], genArith[int])

	reduceCase(t, OpSum, fSum[uint8], genNarrow[uint8])
	reduceCase(t, OpMin, fMin[uint8], genArith[uint8])
	reduceCase(t, OpBor, fBor[uint8], genArith[uint8])
	reduceCase(t, OpLxor, fLxor[uint8], genLogic[uint8])

	reduceCase(t, OpProd, fProd[uint16], genPos[uint16])
	reduceCase(t, OpMax, fMax[uint16], genArith[uint16])
	reduceCase(t, OpBand, fBand[uint16], genArith[uint16])
	reduceCase(t, OpLor, fLor[uint16], genLogic[uint16])

	reduceCase(t, OpSum, fSum[uint32], genArith[uint32]) // wraps: 32 and 64 bits have no saturating forms
	reduceCase(t, OpMin, fMin[uint32], genArith[uint32])
	reduceCase(t, OpBxor, fBxor[uint32], genArith[uint32])
	reduceCase(t, OpLand, fLand[uint32], genLogic[uint32])

	reduceCase(t, OpSum, fSum[uint64], genArith[uint64])
	reduceCase(t, OpProd, fProd[uint64], genSmall[uint64])
	reduceCase(t, OpMax, fMax[uint64], genArith[uint64])
	reduceCase(t, OpBor, fBor[uint64], genArith[uint64])
	reduceCase(t, OpLxor, fLxor[uint64], genLogic[uint64])

	reduceCase(t, OpSum, fSum[float32], genArith[float32])
	reduceCase(t, OpProd, fProd[float32], genSmall[float32])
	reduceCase(t, OpMin, fMin[float32], genArith[float32])
	reduceCase(t, OpMax, fMax[float32], genArith[float32])

	reduceCase(t, OpSum, fSum[float64], genArith[float64])
	reduceCase(t, OpProd, fProd[float64], genSmall[float64])
	reduceCase(t, OpMin, fMin[float64], genArith[float64])
	reduceCase(t, OpMax, fMax[float64], genArith[float64])

	reduceCase(t, OpSum, fSum[complex64], genArith[complex64])
	reduceCase(t, OpProd, fProd[complex64], genSmall[complex64])
	reduceCase(t, OpSum, fSum[complex128], genArith[complex128])
	reduceCase(t, OpProd, fProd[complex128], genSmall[complex128])

	reduceCase(t, OpMinloc, fMinloc[Float64Int], genPairs[Float64Int])
	reduceCase(t, OpMaxloc, fMaxloc[Float64Int], genPairs[Float64Int])
	reduceCase(t, OpMinloc, fMinloc[Float32Int], genPairs[Float32Int])
	reduceCase(t, OpMaxloc, fMaxloc[Float32Int], genPairs[Float32Int])
	reduceCase(t, OpMinloc, fMinloc[Int32Int], genPairs[Int32Int])
	reduceCase(t, OpMaxloc, fMaxloc[Int32Int], genPairs[Int32Int])
	reduceCase(t, OpMinloc, fMinloc[Int64Int], genPairs[Int64Int])
	reduceCase(t, OpMaxloc, fMaxloc[Int64Int], genPairs[Int64Int])
}

// TestCollMisuse checks that every misuse is refused locally, before MPI,
// with its own error. Each case fails on every rank alike ("at the root"
// cases name this rank as root), so no rank enters a collective.
func TestCollMisuse(t *testing.T) {
	w := World()
	p, me := w.Size(), w.Rank()
	other := (me + 1) % p
	huge := hugeBytes(t)
	hugeI8 := unsafe.Slice((*int8)(unsafe.Pointer(&huge[0])), len(huge))
	f2 := []float64{1, 2}
	f1 := make([]float64, 1)
	fp := func(n int) []float64 { return make([]float64, n) }
	bp := func(n int) []byte { return make([]byte, n) }

	freed, err := w.Dup()
	require.NoError(t, err)
	require.NoError(t, freed.Free())
	i32op, err := NewOpOf(func(in, inout []int32) {}, true)
	require.NoError(t, err)
	gone, err := NewOp(func(in, inout []byte, dt Datatype) {}, false)
	require.NoError(t, err)
	require.NoError(t, gone.Free())
	defer func() { require.NoError(t, i32op.Free()) }()

	nb := func(_ *Request, err error) error { return err }
	alias := fp(2*p + 1) // alias[1:3] is never a whole block

	cases := []struct {
		name string
		err  error
		want error
	}{
		{"Bcast nil", w.Bcast(nil, 0), ErrNilBuffer},
		{"typed Bcast nil", Bcast[int32](w, nil, 0), ErrNilBuffer},
		{"Ibcast nil", nb(w.Ibcast(nil, 0)), ErrNilBuffer},
		{"Allreduce nil send", Allreduce(w, nil, f2, OpSum), ErrNilBuffer},
		{"Allreduce nil recv", Allreduce(w, f2, nil, OpSum), ErrNilBuffer},
		{"Iallreduce nil recv", nb(Iallreduce(w, f2, nil, OpSum)), ErrNilBuffer},
		{"Reduce nil recv at root", Reduce(w, f2, nil, OpSum, me), ErrNilBuffer},
		{"Reduce nil send", Reduce(w, nil, f2, OpSum, me), ErrNilBuffer},
		{"Ireduce nil recv at root", nb(Ireduce(w, f2, nil, OpSum, me)), ErrNilBuffer},
		{"Scan nil send", Scan(w, nil, f2, OpSum), ErrNilBuffer},
		{"Iscan nil recv", nb(Iscan(w, f2, nil, OpSum)), ErrNilBuffer},
		{"Exscan nil recv", Exscan(w, f2, nil, OpSum), ErrNilBuffer},
		{"Iexscan nil send", nb(Iexscan(w, nil, f2, OpSum)), ErrNilBuffer},
		{"ReduceScatterBlock nil recv", ReduceScatterBlock(w, fp(p), nil, OpSum), ErrNilBuffer},
		{"ReduceScatterBlock nil send", ReduceScatterBlock(w, nil, f1, OpSum), ErrNilBuffer},
		{"IreduceScatterBlock nil send", nb(IreduceScatterBlock(w, nil, f1, OpSum)), ErrNilBuffer},
		{"Gather nil send", w.Gather(nil, bp(p), me), ErrNilBuffer},
		{"Gather nil recv at root", w.Gather([]byte{1}, nil, me), ErrNilBuffer},
		{"Igather nil recv at root", nb(Igather(w, f1, nil, me)), ErrNilBuffer},
		{"Scatter nil send at root", w.Scatter(nil, []byte{1}, me), ErrNilBuffer},
		{"Scatter nil recv", Scatter(w, fp(p), nil, me), ErrNilBuffer},
		{"Iscatter nil send at root", nb(w.Iscatter(nil, []byte{1}, me)), ErrNilBuffer},
		{"Allgather nil recv", w.Allgather([]byte{1}, nil), ErrNilBuffer},
		{"Iallgather nil send", nb(Iallgather(w, nil, fp(p))), ErrNilBuffer},
		{"Alltoall nil send", w.Alltoall(nil, bp(p)), ErrNilBuffer},
		{"Ialltoall nil recv", nb(Ialltoall(w, fp(p), nil)), ErrNilBuffer},

		{"Gather recv at root short", w.Gather(bp(3), bp(3*p-1), me), ErrShortBuffer},
		{"Igather recv at root short", nb(Igather(w, f2, fp(2*p-1), me)), ErrShortBuffer},
		{"Scatter send at root short", w.Scatter(bp(3*p-1), bp(3), me), ErrShortBuffer},
		{"Iscatter send at root short", nb(Iscatter(w, fp(2*p-1), f2, me)), ErrShortBuffer},
		{"Allgather recv short", Allgather(w, f2, fp(2*p-1)), ErrShortBuffer},
		{"Iallgather recv short", nb(w.Iallgather(bp(2), bp(2*p-1))), ErrShortBuffer},
		{"Alltoall recv short", Alltoall(w, fp(2*p), fp(2*p-1)), ErrShortBuffer},
		{"Ialltoall recv short", nb(w.Ialltoall(bp(2*p), bp(2*p-1))), ErrShortBuffer},
		{"Reduce recv at root short", Reduce(w, f2, f1, OpSum, me), ErrShortBuffer},
		{"Allreduce recv short", Allreduce(w, f2, f1, OpSum), ErrShortBuffer},
		{"Iallreduce recv short", nb(Iallreduce(w, f2, f1, OpSum)), ErrShortBuffer},
		{"Scan recv short", Scan(w, f2, f1, OpMax), ErrShortBuffer},
		{"Exscan recv short", Exscan(w, f2, f1, OpMax), ErrShortBuffer},
		{"ReduceScatterBlock send short", ReduceScatterBlock(w, fp(2*p-1), f2, OpSum), ErrShortBuffer},
		{"IreduceScatterBlock send short", nb(IreduceScatterBlock(w, fp(2*p-1), f2, OpSum)), ErrShortBuffer},

		{"Bcast count", w.Bcast(huge, 0), ErrCount},
		{"Ibcast count", nb(w.Ibcast(huge, 0)), ErrCount},
		{"Allreduce count", Allreduce(w, hugeI8, hugeI8, OpSum), ErrCount},
		{"Reduce count", Reduce(w, hugeI8, nil, OpSum, other), ErrCount},
		{"Gather count", w.Gather(huge, nil, me), ErrCount},
		{"Scatter count", w.Scatter(nil, huge, me), ErrCount},
		{"Allgather count", w.Allgather(huge, bp(1)), ErrCount},
		{"Scan count", Scan(w, hugeI8, hugeI8, OpSum), ErrCount},

		{"Bcast root = size", w.Bcast([]byte{1}, p), ErrRank},
		{"Bcast root -1", Bcast(w, f2, -1), ErrRank},
		{"Ibcast root = size", nb(Ibcast(w, f2, p)), ErrRank},
		{"Reduce root = size", Reduce(w, f2, f2, OpSum, p), ErrRank},
		{"Ireduce root -1", nb(Ireduce(w, f2, fp(2), OpSum, -1)), ErrRank},
		{"Gather root = size", w.Gather([]byte{1}, bp(p), p), ErrRank},
		{"Igather root AnySource", nb(w.Igather([]byte{1}, bp(p), AnySource)), ErrRank},
		{"Scatter root -1", w.Scatter(bp(p), []byte{1}, -1), ErrRank},
		{"Iscatter root = size", nb(Iscatter(w, fp(p), f1, p)), ErrRank},

		{"MINLOC on float64", Allreduce(w, f2, fp(2), OpMinloc), ErrDatatype},
		{"MAXLOC on int32", Reduce(w, []int32{1}, []int32{0}, OpMaxloc, me), ErrDatatype},
		{"Iscan MINLOC on uint8", nb(Iscan(w, []uint8{1}, []uint8{0}, OpMinloc)), ErrDatatype},
		{"SUM on a pair", Allreduce(w, []Float64Int{{}}, []Float64Int{{}}, OpSum), ErrDatatype},
		{"BAND on float64", Scan(w, f2, fp(2), OpBand), ErrDatatype},
		{"LAND on float32", Exscan(w, []float32{1}, []float32{0}, OpLand), ErrDatatype},
		{"MIN on complex128", Allreduce(w, []complex128{1}, []complex128{0}, OpMin), ErrDatatype},
		{"int32 user op on float64", Allreduce(w, f2, fp(2), i32op), ErrDatatype},
		{"int32 user op on float64, nonblocking", nb(Iallreduce(w, f2, fp(2), i32op)), ErrDatatype},
		{"freed user op", Allreduce(w, f2, fp(2), gone), ErrFreed},
		{"freed user op, nonblocking", nb(IreduceScatterBlock(w, fp(p), f1, gone)), ErrFreed},
		{"REPLACE in a reduction", Allreduce(w, f2, fp(2), OpReplace), ErrArg},
		{"NO_OP in a reduction", Reduce(w, f2, fp(2), OpNoOp, me), ErrArg},
		{"zero Op", Allreduce(w, f2, fp(2), Op{}), ErrArg},

		{"Allreduce partial overlap", Allreduce(w, alias[0:2], alias[1:3], OpSum), ErrArg},
		{"Reduce partial overlap at root", Reduce(w, alias[1:3], alias[0:3], OpSum, me), ErrArg},
		{"Gather send not a block of recv", Gather(w, alias[1:3], alias[:2*p], me), ErrArg},
		{"Allgather send not a block of recv", Allgather(w, alias[1:3], alias[:2*p]), ErrArg},
		{"Scatter recv not a block of send", Scatter(w, alias[:2*p], alias[1:3], me), ErrArg},
		{"Alltoall partial overlap", Alltoall(w, alias[:p], alias[:p+1]), ErrArg},
		{"ReduceScatterBlock partial overlap", ReduceScatterBlock(w, alias[:p+1], alias[:1], OpSum), ErrArg},

		{"Bcast on freed comm", freed.Bcast([]byte{1}, 0), ErrFreed},
		{"Allreduce on freed comm", Allreduce(freed, f2, fp(2), OpSum), ErrFreed},
		{"Ibarrier on freed comm", nb(freed.Ibarrier()), ErrFreed},
		{"Igather on freed comm", nb(freed.Igather([]byte{1}, bp(p), 0)), ErrFreed},
		{"Alltoall on freed comm", freed.Alltoall(bp(p), bp(p)), ErrFreed},
		{"Ibarrier on nil comm", nb((*Comm)(nil).Ibarrier()), ErrArg},
		{"Scan on nil comm", Scan(nil, f2, fp(2), OpSum), ErrArg},
	}
	if p > 1 { // the same on every rank: these need blocks that cannot split evenly
		cases = append(cases,
			struct {
				name string
				err  error
				want error
			}{"Alltoall send not whole blocks", Alltoall(w, fp(p+1), fp(p+1)), ErrArg},
			struct {
				name string
				err  error
				want error
			}{"ReduceScatterBlock in place not whole blocks", func() error { x := fp(p + 1); return ReduceScatterBlock(w, x, x, OpSum) }(), ErrArg},
		)
	}
	for _, c := range cases {
		require.ErrorIs(t, c.err, c.want, c.name)
		var mpiE *Error
		require.False(t, errors.As(c.err, &mpiE), "%s: misuse is not an MPI error", c.name)
	}
	// No rank entered a collective: one now matches on every rank.
	require.NoError(t, w.Barrier())
}

// TestCollState checks the Init/Finalize guard of every collective and user
// operator call. main_test.go checks the real states once; here the state is
// set for the duration of the calls, on a live World, so that a missing
// guard shows as a wrong error (every call is valid and alike on all ranks)
// rather than a crash.
func TestCollState(t *testing.T) {
	w := World()
	p := w.Size()
	op, err := NewOpOf(func(in, inout []int64) {}, true)
	require.NoError(t, err)
	defer func() { require.NoError(t, op.Free()) }()
	b, bs := make([]byte, p), make([]byte, p)
	x, xs := make([]int64, p), make([]int64, p)
	nb := func(_ *Request, err error) error { return err }
	calls := func() map[string]error {
		return map[string]error{
			"Ibarrier":            nb(w.Ibarrier()),
			"Comm.Bcast":          w.Bcast(b, 0),
			"Bcast":               Bcast(w, x, 0),
			"Comm.Ibcast":         nb(w.Ibcast(b, 0)),
			"Ibcast":              nb(Ibcast(w, x, 0)),
			"Reduce":              Reduce(w, x, xs, OpSum, 0),
			"Ireduce":             nb(Ireduce(w, x, xs, OpSum, 0)),
			"Allreduce":           Allreduce(w, x, xs, op),
			"Iallreduce":          nb(Iallreduce(w, x, xs, OpSum)),
			"Scan":                Scan(w, x, xs, OpSum),
			"Iscan":               nb(Iscan(w, x, xs, OpSum)),
			"Exscan":              Exscan(w, x, xs, OpSum),
			"Iexscan":             nb(Iexscan(w, x, xs, OpSum)),
			"ReduceScatterBlock":  ReduceScatterBlock(w, x, xs[:1], OpSum),
			"IreduceScatterBlock": nb(IreduceScatterBlock(w, x, xs[:1], OpSum)),
			"Comm.Gather":         w.Gather(b[:1], bs, 0),
			"Gather":              Gather(w, x[:1], xs, 0),
			"Comm.Igather":        nb(w.Igather(b[:1], bs, 0)),
			"Igather":             nb(Igather(w, x[:1], xs, 0)),
			"Comm.Scatter":        w.Scatter(b, bs[:1], 0),
			"Scatter":             Scatter(w, x, xs[:1], 0),
			"Comm.Iscatter":       nb(w.Iscatter(b, bs[:1], 0)),
			"Iscatter":            nb(Iscatter(w, x, xs[:1], 0)),
			"Comm.Allgather":      w.Allgather(b[:1], bs),
			"Allgather":           Allgather(w, x[:1], xs),
			"Comm.Iallgather":     nb(w.Iallgather(b[:1], bs)),
			"Iallgather":          nb(Iallgather(w, x[:1], xs)),
			"Comm.Alltoall":       w.Alltoall(b, bs),
			"Alltoall":            Alltoall(w, x, xs),
			"Comm.Ialltoall":      nb(w.Ialltoall(b, bs)),
			"Ialltoall":           nb(Ialltoall(w, x, xs)),
			"NewOp":               func() error { _, err := NewOp(func(in, inout []byte, dt Datatype) {}, true); return err }(),
			"NewOpOf":             func() error { _, err := NewOpOf(func(in, inout []int8) {}, true); return err }(),
			"Op.Free":             op.Free(),
		}
	}
	for _, c := range []struct {
		state int32
		want  error
	}{{stateNew, ErrNotInitialized}, {stateFinal, ErrFinalized}} {
		old := state.Load()
		state.Store(c.state)
		got := calls()
		state.Store(old)
		for name, err := range got {
			require.ErrorIs(t, err, c.want, name)
		}
	}
}
