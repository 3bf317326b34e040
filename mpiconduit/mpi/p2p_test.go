package mpi

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// pattern is a value distinct per (rank, iteration, index), so a misplaced
// or stale element shows.
func pattern(rank, iter, i int) int64 { return int64(rank)<<40 | int64(iter)<<20 | int64(i) }

func TestInitReportsThreadLevel(t *testing.T) {
	require.Equal(t, ThreadMultiple, Provided(), "Open MPI should grant MPI_THREAD_MULTIPLE")
	require.True(t, Initialized())
	require.False(t, Finalized())
	require.GreaterOrEqual(t, TagUB(), 32767)
	t0 := Wtime()
	require.GreaterOrEqual(t, t0, 0.0)
	require.GreaterOrEqual(t, Wtime(), t0)
	_, err := Init(ThreadMultiple)
	require.ErrorIs(t, err, ErrInitialized)
}

func TestSendRecvRing(t *testing.T) {
	w := World()
	p, me := w.Size(), w.Rank()
	next, prev := (me+1)%p, (me+p-1)%p
	for iter := 0; iter < 3; iter++ {
		out := make([]int64, 100+iter)
		for i := range out {
			out[i] = pattern(me, iter, i)
		}
		in := make([]int64, len(out))
		// Even ranks send first so that a blocking ring cannot deadlock;
		// at np 1 the rank sends to itself through Isend.
		r, err := Isend(w, out, next, iter)
		require.NoError(t, err)
		st, err := Recv(w, in, prev, iter)
		require.NoError(t, err)
		_, err = r.Wait()
		require.NoError(t, err)
		require.Equal(t, prev, st.Source)
		require.Equal(t, iter, st.Tag)
		require.Equal(t, len(in), st.Count)
		for i := range in {
			require.Equal(t, pattern(prev, iter, i), in[i], "element %d", i)
		}
	}
}

func TestSendRecvBytesAndTypes(t *testing.T) {
	needRanks(t, 2)
	w := World()
	switch w.Rank() {
	case 0:
		require.NoError(t, w.Send([]byte("hello"), 1, 7))
		require.NoError(t, Send(w, []float32{1.5, -2}, 1, 8))
		require.NoError(t, Send(w, []complex128{complex(1, 2)}, 1, 9))
		require.NoError(t, Send(w, []uint16{65535}, 1, 10))
	case 1:
		b := make([]byte, 5)
		st, err := w.Recv(b, 0, 7)
		require.NoError(t, err)
		require.Equal(t, "hello", string(b))
		require.Equal(t, 5, st.Count)
		f := make([]float32, 2)
		_, err = Recv(w, f, 0, 8)
		require.NoError(t, err)
		require.Equal(t, []float32{1.5, -2}, f)
		z := make([]complex128, 1)
		_, err = Recv(w, z, AnySource, AnyTag)
		require.NoError(t, err)
		require.Equal(t, complex(1, 2), z[0])
		u := make([]uint16, 1)
		_, err = Recv(w, u, 0, 10)
		require.NoError(t, err)
		require.Equal(t, uint16(65535), u[0])
	}
	require.NoError(t, w.Barrier())
}

func TestProbeIprobeAndTruncate(t *testing.T) {
	needRanks(t, 2)
	w := World()
	switch w.Rank() {
	case 0:
		require.NoError(t, Send(w, []int32{1, 2, 3}, 1, 3))
		require.NoError(t, Send(w, []int32{4, 5, 6}, 1, 4))
	case 1:
		st, err := w.Probe(0, 3)
		require.NoError(t, err)
		require.Equal(t, 0, st.Source)
		require.Equal(t, 3, st.Tag)
		require.Equal(t, 12, st.Count, "Probe counts bytes")
		in := make([]int32, st.Count/4)
		_, err = Recv(w, in, 0, 3)
		require.NoError(t, err)
		require.Equal(t, []int32{1, 2, 3}, in)
		var ok bool
		for !ok {
			st, ok, err = w.Iprobe(AnySource, 4)
			require.NoError(t, err)
		}
		require.Equal(t, 4, st.Tag)
		short := make([]int32, 2)
		_, err = Recv(w, short, 0, 4)
		var me *Error
		require.ErrorAs(t, err, &me, "a too-long message must be an MPI error")
		require.Equal(t, ClassTruncate, me.Class)
		require.ErrorIs(t, err, &Error{Class: ClassTruncate})
		require.NotEmpty(t, me.Msg)
	}
	require.NoError(t, w.Barrier())
}

func TestMultiRequest(t *testing.T) {
	w := World()
	p, me := w.Size(), w.Rank()
	const per = 16
	var recvs, sends []*Request
	in := make([][]int64, p*per)
	for src := 0; src < p; src++ {
		for k := 0; k < per; k++ {
			in[src*per+k] = make([]int64, 4)
			r, err := Irecv(w, in[src*per+k], src, k)
			require.NoError(t, err)
			recvs = append(recvs, r)
		}
	}
	for dst := 0; dst < p; dst++ {
		for k := 0; k < per; k++ {
			out := []int64{pattern(me, k, 0), pattern(me, k, 1), pattern(me, k, 2), int64(dst)}
			r, err := Isend(w, out, dst, k)
			require.NoError(t, err)
			sends = append(sends, r)
		}
	}
	// Testany and Testsome complete some, Testall the rest; Waitall the sends.
	idx, _, err := Testany(recvs)
	require.NoError(t, err)
	if idx >= 0 {
		require.True(t, recvs[idx].Done())
	}
	got, err := Testsome(recvs)
	require.NoError(t, err)
	for _, i := range got {
		require.True(t, recvs[i].Done())
	}
	for {
		ok, err := Testall(recvs)
		require.NoError(t, err)
		if ok {
			break
		}
	}
	require.NoError(t, Waitall(sends))
	for src := 0; src < p; src++ {
		for k := 0; k < per; k++ {
			require.Equal(t, []int64{pattern(src, k, 0), pattern(src, k, 1), pattern(src, k, 2), int64(me)}, in[src*per+k])
		}
	}
	for _, r := range append(recvs, sends...) {
		require.True(t, r.Done())
		_, err := r.Wait()
		require.ErrorIs(t, err, ErrFreed, "a completed request is dead")
	}
	idx, _, err = Testany(recvs)
	require.NoError(t, err)
	require.Equal(t, -1, idx, "no active request left")
}

func TestCancelRecv(t *testing.T) {
	w := World()
	r, err := w.Irecv(make([]byte, 8), w.Rank(), 999)
	require.NoError(t, err)
	require.NoError(t, r.Cancel())
	st, err := r.Wait()
	require.NoError(t, err)
	require.True(t, st.Cancelled)
}

func TestP2PMisuse(t *testing.T) {
	w := World()
	p := w.Size()
	huge := hugeBytes(t)
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"nil send buffer", w.Send(nil, 0, 0), ErrNilBuffer},
		{"nil typed recv buffer", func() error { _, err := Recv[float64](w, nil, 0, 0); return err }(), ErrNilBuffer},
		{"count beyond int", w.Send(huge, 0, 0), ErrCount},
		{"dest beyond size", w.Send([]byte{1}, p, 0), ErrRank},
		{"negative dest", w.Send([]byte{1}, -5, 0), ErrRank},
		{"AnySource on send", w.Send([]byte{1}, AnySource, 0), ErrRank},
		{"tag beyond TAG_UB", func() error { _, err := w.Isend([]byte{1}, 0, TagUB()+1); return err }(), ErrTag},
		{"negative tag", w.Send([]byte{1}, 0, -3), ErrTag},
		{"AnyTag on send", w.Send([]byte{1}, 0, AnyTag), ErrTag},
		{"recv source beyond size", func() error { _, err := w.Recv([]byte{1}, p+1, 0); return err }(), ErrRank},
		{"probe bad tag", func() error { _, err := w.Probe(0, -7); return err }(), ErrTag},
		{"nil request", func() error { _, err := Testall([]*Request{nil}); return err }(), ErrArg},
		{"nil comm", (*Comm)(nil).Barrier(), ErrArg},
		{"free World", w.Free(), ErrArg},
	}
	for _, c := range cases {
		require.ErrorIs(t, c.err, c.want, c.name)
	}
	// Nothing was sent: a probe finds no stray message.
	_, found, err := w.Iprobe(AnySource, AnyTag)
	require.NoError(t, err)
	require.False(t, found, "a refused call must not send")
	var te *Error
	require.False(t, errors.As(cases[0].err, &te), "misuse is not an MPI error")
}
