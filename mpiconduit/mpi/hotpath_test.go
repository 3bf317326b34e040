package mpi

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The hot paths answer from precomputed facts (Datatype.kind, opKinds, the
// type switch of DatatypeOf); these tests hold them to the reference checks.

var allTypes = []Datatype{Byte, Int8, Int16, Int32, Int64, Uint8, Uint16, Uint32, Uint64,
	Float32, Float64, Complex64, Complex128, FloatInt, DoubleInt, TwoInt, LongInt}

var allOps = []Op{OpSum, OpProd, OpMin, OpMax, OpLand, OpLor, OpLxor, OpBand, OpBor, OpBxor,
	OpMinloc, OpMaxloc, OpReplace, OpNoOp, {}}

func TestPredefinedFastPath(t *testing.T) {
	for _, d := range append(allTypes, Datatype{}) {
		if d.dtype != nil {
			require.Equal(t, kindOf(d), int(d.kind), "kind of %s", d)
		}
		for _, o := range allOps {
			want := checkPredefined("op", o, d) == nil
			require.Equal(t, want, predefinedOK(o, d), "%s on %s", o, d)
		}
	}
}

type (
	namedFloat float64
	namedInt   int
	namedUint  uint
	namedByte  uint8
)

func TestDatatypeOfNamed(t *testing.T) {
	require.Equal(t, Float64, DatatypeOf[namedFloat]())
	require.Equal(t, DatatypeOf[int](), DatatypeOf[namedInt]())
	require.Equal(t, DatatypeOf[uint](), DatatypeOf[namedUint]())
	require.Equal(t, Uint8, DatatypeOf[namedByte]())
	require.Equal(t, DoubleInt, DatatypeOf[Float64Int]())
	require.Equal(t, 8, DatatypeOf[int]().Size())
	require.Equal(t, 0, Datatype{}.Size())
	require.Equal(t, "", Datatype{}.String())
	require.Equal(t, "", Op{}.String())
}

// TestHotPathAllocs pins down what the blocking calls and a nonblocking
// collective allocate: nothing, and the Request.
func TestHotPathAllocs(t *testing.T) {
	c := Self()
	s, r := make([]float64, 1), make([]float64, 1)
	b, rb := make([]byte, 8), make([]byte, 8)
	pair := &selfPair{via: NewBounce(8)}
	defer pair.via.Free()
	for _, tc := range []struct {
		name string
		max  float64
		fn   func() error
	}{
		{"Allreduce", 0, func() error { return Allreduce(c, s, r, OpSum) }},
		{"Bcast", 0, func() error { return c.Bcast(b, 0) }},
		// MPI_Send to oneself may wait for the matching receive (MPICH's
		// does), and MPI_Recv for the send: the other side of each is a
		// nonblocking call of the batched layer, which allocates nothing.
		{"Send+Recv", 0, func() error {
			if err := pair.run(c, rb, 3, false, func() error { return c.Send(b, 0, 3) }); err != nil {
				return err
			}
			return pair.run(c, b, 4, true, func() error { _, err := c.Recv(rb, 0, 4); return err })
		}},
		{"Iallreduce+Wait", 1, func() error {
			req, err := Iallreduce(c, s, r, OpSum)
			if err != nil {
				return err
			}
			_, err = req.Wait()
			return err
		}},
	} {
		var err error
		n := testing.AllocsPerRun(200, func() {
			if e := tc.fn(); e != nil {
				err = e
			}
		})
		require.NoError(t, err, tc.name)
		require.LessOrEqual(t, n, tc.max, "%s allocations per call", tc.name)
	}
}

// selfPair is the nonblocking half of a transfer to oneself, made once
// (cgo arguments escape: the handle table allocated per call would count).
type selfPair struct {
	via Bounce
	hs  [1]Handle
	idx [1]int32
}

// run starts the nonblocking half on c (a receive into b, or a send of b
// when send is set, through via), runs the blocking half, and waits for the
// nonblocking one.
func (p *selfPair) run(c *Comm, b []byte, tag int, send bool, blocking func() error) error {
	var done bool
	var err error
	if send {
		p.hs[0], done, err = c.IsendBounce(b, p.via, 0, tag)
	} else {
		p.hs[0], done, err = c.IrecvBounce(b, p.via, 0, tag)
	}
	if err != nil {
		return err
	}
	if err := blocking(); err != nil {
		return err
	}
	for !done {
		n, err := TestsomeHandles(p.hs[:], p.idx[:])
		if err != nil {
			return err
		}
		done = n == 1
	}
	if !send {
		copy(b, p.via.Bytes(len(b)))
	}
	return nil
}

// Benchmarks of the binding's per-call cost on MPI_COMM_SELF, where MPI does
// almost nothing: what they measure is mostly the Go side and the cgo call.
// Run with `go test -run '^$' -bench . ./mpiconduit/mpi` (an MPI singleton).

func BenchmarkSelfSendRecv(b *testing.B) {
	if Library == "mpich" {
		b.Skip("MPICH's MPI_Send to oneself waits for the receive (legal MPI): see BenchmarkSelfIsendIrecv")
	}
	c, s, r := Self(), make([]byte, 8), make([]byte, 8)
	b.ReportAllocs()
	for b.Loop() {
		if err := c.Send(s, 0, 1); err != nil {
			b.Fatal(err)
		}
		if _, err := c.Recv(r, 0, 1); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSelfIsendIrecvWait(b *testing.B) {
	c, s, r := Self(), make([]byte, 8), make([]byte, 8)
	b.ReportAllocs()
	for b.Loop() {
		rr, err := c.Irecv(r, 0, 1)
		if err != nil {
			b.Fatal(err)
		}
		sr, err := c.Isend(s, 0, 1)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := sr.Wait(); err != nil {
			b.Fatal(err)
		}
		if _, err := rr.Wait(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSelfBarrier(b *testing.B) {
	c := Self()
	b.ReportAllocs()
	for b.Loop() {
		if err := c.Barrier(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSelfBcast(b *testing.B) {
	c, buf := Self(), make([]byte, 8)
	b.ReportAllocs()
	for b.Loop() {
		if err := c.Bcast(buf, 0); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSelfReduce(b *testing.B) {
	c, s, r := Self(), make([]float64, 1), make([]float64, 1)
	b.ReportAllocs()
	for b.Loop() {
		if err := Reduce(c, s, r, OpSum, 0); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSelfAllreduce(b *testing.B) {
	c, s, r := Self(), make([]float64, 1), make([]float64, 1)
	b.ReportAllocs()
	for b.Loop() {
		if err := Allreduce(c, s, r, OpSum); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSelfScan(b *testing.B) {
	c, s, r := Self(), make([]float64, 1), make([]float64, 1)
	b.ReportAllocs()
	for b.Loop() {
		if err := Scan(c, s, r, OpSum); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSelfGather(b *testing.B) {
	c, s, r := Self(), make([]byte, 8), make([]byte, 8)
	b.ReportAllocs()
	for b.Loop() {
		if err := c.Gather(s, r, 0); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSelfAlltoall(b *testing.B) {
	c, s, r := Self(), make([]byte, 8), make([]byte, 8)
	b.ReportAllocs()
	for b.Loop() {
		if err := c.Alltoall(s, r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSelfIbcastWait(b *testing.B) {
	c, buf := Self(), make([]byte, 8)
	b.ReportAllocs()
	for b.Loop() {
		req, err := c.Ibcast(buf, 0)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := req.Wait(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSelfIallreduceWait(b *testing.B) {
	c, s, r := Self(), make([]float64, 1), make([]float64, 1)
	b.ReportAllocs()
	for b.Loop() {
		req, err := Iallreduce(c, s, r, OpSum)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := req.Wait(); err != nil {
			b.Fatal(err)
		}
	}
}
