package mpiconduit

import (
	"fmt"
	"testing"
	"unsafe"

	"github.com/gocoll/gocoll/mpiconduit/mpi"
	"github.com/stretchr/testify/require"
)

// TestConduitRing sends a distinct message of each size to the next rank and
// receives the previous rank's, with the receives posted before or after the
// barrier that lets the sends go, so that both the completes-at-start and
// the completes-in-Poll paths run (small through C buffers, large pinned).
// Every token must come back exactly once, by the start call or by Poll,
// and every receive must hold its sender's bytes.
func TestConduitRing(t *testing.T) {
	eachConduit(t, conduitRing)
}

// eachConduit runs f on a conduit with the shared-memory path and on one
// without it.
func eachConduit(t *testing.T, f func(t *testing.T, w *mpi.Comm, cd *Conduit)) {
	for _, o := range []ConduitOptions{{}, {NoSharedMemory: true}} {
		t.Run(fmt.Sprintf("NoSharedMemory=%v", o.NoSharedMemory), func(t *testing.T) {
			w := mpi.World()
			cd, err := NewConduitWith(w, o)
			require.NoError(t, err)
			require.Equal(t, !o.NoSharedMemory, cd.SharedMemory())
			f(t, w, cd)
			require.NoError(t, cd.Close())
		})
	}
}

func conduitRing(t *testing.T, w *mpi.Comm, cd *Conduit) {
	var err error
	p, me := w.Size(), w.Rank()
	next, prev := (me+1)%p, (me+p-1)%p
	sizes := []int{0, 1, 8, 63, 64, 65, 1000, BounceMax, BounceMax + 1, ShmMax, ShmMax + 1, 256 << 10}
	fill := func(b []byte, rank, iter, k int) {
		for i := range b {
			b[i] = byte(rank*31 + iter*7 + k*3 + i)
		}
	}
	for iter, recvFirst := range []bool{true, false, true, false} {
		seen := map[uint64]int{}
		note := func(now bool, tok uint64, err error) {
			require.NoError(t, err)
			if now {
				seen[tok]++
			}
		}
		in := make([][]byte, len(sizes))
		out := make([][]byte, len(sizes))
		postRecvs := func() {
			for k, n := range sizes {
				in[k] = make([]byte, n)
				now, err := cd.Irecv(prev, 100+k, in[k], uint64(k))
				note(now, uint64(k), err)
			}
		}
		if recvFirst {
			postRecvs()
		}
		require.NoError(t, w.Barrier())
		for k, n := range sizes {
			out[k] = make([]byte, n)
			fill(out[k], me, iter, k)
			now, err := cd.Isend(next, 100+k, out[k], uint64(1000+k))
			note(now, uint64(1000+k), err)
		}
		if !recvFirst {
			require.NoError(t, w.Barrier()) // every message has been sent
			postRecvs()
		}
		var done []uint64
		for len(seen) < 2*len(sizes) {
			done, err = cd.Poll(done[:0])
			require.NoError(t, err)
			for _, tok := range done {
				seen[tok]++
			}
		}
		for tok, c := range seen {
			require.Equal(t, 1, c, "token %d came back %d times", tok, c)
		}
		done, err = cd.Poll(done[:0])
		require.NoError(t, err)
		require.Empty(t, done, "tokens after every transfer completed")
		for k, n := range sizes {
			want := make([]byte, n)
			fill(want, prev, iter, k)
			require.Equal(t, want, in[k], "size %d from rank %d", n, prev)
			fill(out[k], -1, 0, 0) // the send buffers are free again
		}
		require.NoError(t, w.Barrier())
	}
}

func TestConduitMisuse(t *testing.T) {
	cd, err := NewConduit(mpi.Self())
	require.NoError(t, err)
	_, err = cd.Isend(0, 0, nil, 1)
	require.ErrorIs(t, err, mpi.ErrNilBuffer)
	_, err = cd.Irecv(1, 0, make([]byte, 8), 1)
	require.ErrorIs(t, err, mpi.ErrRank)
	_, err = cd.Irecv(0, -1, make([]byte, 8), 1)
	require.ErrorIs(t, err, mpi.ErrTag)
	done, err := cd.Poll(nil)
	require.NoError(t, err)
	require.Empty(t, done, "a refused transfer leaves nothing to poll")
	require.NoError(t, cd.Close())
	_, err = cd.Isend(0, 0, make([]byte, 8), 1)
	require.ErrorIs(t, err, mpi.ErrFreed)
	_, err = cd.Poll(nil)
	require.ErrorIs(t, err, mpi.ErrFreed)
}

// TestConduitFloodOutOfOrder sends every rank more small messages than a
// shared-memory ring holds, and the receiver posts its receives in the
// reverse order of the sends, so that sends must queue until the receiver
// drains, and messages must wait as unexpected until their receive comes.
func TestConduitFloodOutOfOrder(t *testing.T) {
	eachConduit(t, func(t *testing.T, w *mpi.Comm, cd *Conduit) {
		p, me := w.Size(), w.Rank()
		next, prev := (me+1)%p, (me+p-1)%p
		const n, size = 3000, 64 // 3000 * 72 bytes > one ring
		out := make([][]byte, n)
		in := make([][]byte, n)
		left := map[uint64]bool{}
		for k := range n {
			out[k] = make([]byte, size)
			for i := range out[k] {
				out[k][i] = byte(me + 3*k + i)
			}
			tok := uint64(k)
			left[tok] = true
			if now, err := cd.Isend(next, k, out[k], tok); err != nil {
				t.Fatal(err)
			} else if now {
				delete(left, tok)
			}
		}
		for k := n - 1; k >= 0; k-- {
			in[k] = make([]byte, size)
			tok := uint64(n + k)
			left[tok] = true
			if now, err := cd.Irecv(prev, k, in[k], tok); err != nil {
				t.Fatal(err)
			} else if now {
				delete(left, tok)
			}
		}
		var done []uint64
		var err error
		for len(left) > 0 {
			done, err = cd.Poll(done[:0])
			require.NoError(t, err)
			for _, tok := range done {
				require.True(t, left[tok], "token %d: unknown or twice", tok)
				delete(left, tok)
			}
		}
		for k := range n {
			for i, b := range in[k] {
				if b != byte(prev+3*k+i) {
					t.Fatalf("message %d byte %d from rank %d: %d", k, i, prev, b)
				}
			}
		}
		require.NoError(t, w.Barrier())
	})
}

// shmConduit is a conduit on c, closed when the test ends; the test is
// skipped when it has no shared-memory path.
func shmConduit(t *testing.T, c *mpi.Comm) *Conduit {
	cd, err := NewConduit(c)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, cd.Close()) })
	if !cd.SharedMemory() {
		t.Skip("GOCOLL_SHM=0: no shared-memory path")
	}
	return cd
}

// TestRingsLineAligned: every ring's lines and data start on a cache line
// (in the process's own rings and in the peers' it writes to), so that a
// message's line is one cache line, its flag with it. Open MPI's shared
// window parts start 8 bytes past one; without lineAligned this fails.
func TestRingsLineAligned(t *testing.T) {
	cd := shmConduit(t, mpi.World())
	for r, p := range cd.shm.peers {
		if p == nil {
			continue
		}
		for _, b := range [][]byte{p.in.lines, p.in.data, p.out.lines, p.out.data} {
			require.Zero(t, uintptr(unsafe.Pointer(unsafe.SliceData(b)))%lineBytes, "a ring with rank %d", r)
		}
	}
}

// A message that does not fit its receive is an error from Poll on the
// shared-memory path, as MPI_ERR_TRUNCATE is on MPI's.
func TestConduitSizeMismatch(t *testing.T) {
	cd := shmConduit(t, mpi.Self())
	_, err := cd.Isend(0, 7, make([]byte, 16), 1)
	require.NoError(t, err)
	_, err = cd.Irecv(0, 7, make([]byte, 8), 2)
	require.NoError(t, err)
	_, err = cd.Poll(nil)
	require.ErrorIs(t, err, mpi.ErrShortBuffer)
}

func TestRingBytes(t *testing.T) {
	for _, c := range []struct {
		n    int
		want uint64
	}{{1, 256 << 10}, {4, 256 << 10}, {5, 128 << 10}, {8, 128 << 10}, {9, 64 << 10}, {16, 64 << 10}, {17, 32 << 10},
		{32, 32 << 10}, {64, 16 << 10}, {1000, 16 << 10}} {
		require.Equal(t, c.want, ringBytes(c.n), "%d processes", c.n)
		require.Zero(t, ringBytes(c.n)&(ringBytes(c.n)-1), "a power of two (ringAt masks offsets)")
		require.GreaterOrEqual(t, ringBytes(c.n), 2*dataBytes(int(ringBytes(c.n)/8)), "two of the largest payloads fit")
	}
}
