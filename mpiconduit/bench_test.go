package mpiconduit

import (
	"fmt"
	"testing"

	"github.com/gocoll/gocoll/mpiconduit/mpi"
)

func BenchmarkConduitSelf(b *testing.B) {
	for _, size := range []int{8, 64 << 10} {
		b.Run(fmt.Sprint(size), func(b *testing.B) {
			cd, err := NewConduit(mpi.Self())
			if err != nil {
				b.Fatal(err)
			}
			defer cd.Close()
			s, r := make([]byte, size), make([]byte, size)
			var done []uint64
			b.ReportAllocs()
			for b.Loop() {
				got := 0
				now, err := cd.Irecv(0, 1, r, 1)
				if err != nil {
					b.Fatal(err)
				}
				got += b2i(now)
				now, err = cd.Isend(0, 1, s, 2)
				if err != nil {
					b.Fatal(err)
				}
				got += b2i(now)
				for got < 2 {
					done, err = cd.Poll(done[:0])
					if err != nil {
						b.Fatal(err)
					}
					got += len(done)
				}
			}
		})
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// BenchmarkConduitStream is the floor of gocoll's MPI path: rank 0 streams
// 8-byte messages to rank 1 through the conduit without shared memory (one
// start-and-test cgo call per message, polling only when that did not
// complete it), nothing else. Compare ns/op with MPI_Bcast of 8 bytes from
// C in collbench's table. Both ranks must run the same iteration count:
//
//	go test -c -o bin/mpiconduit.test ./mpiconduit
//	mpirun --allow-run-as-root --bind-to none -np 2 bin/mpiconduit.test \
//	  -test.run xxx -test.bench ConduitStream -test.benchtime 1000000x
func BenchmarkConduitStream(b *testing.B) {
	w := mpi.World()
	if w.Size() != 2 {
		b.Skip("needs exactly 2 MPI ranks")
	}
	cd, err := NewConduitWith(w, ConduitOptions{NoSharedMemory: true})
	if err != nil {
		b.Fatal(err)
	}
	defer cd.Close()
	msg := make([]byte, 8)
	var done []uint64
	if err := w.Barrier(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		var now bool
		if w.Rank() == 0 {
			now, err = cd.Isend(1, 5, msg, 1)
		} else {
			now, err = cd.Irecv(0, 5, msg, 1)
		}
		for err == nil && !now {
			done, err = cd.Poll(done[:0])
			now = len(done) > 0
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if err := w.Barrier(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkConduitExchange is the floor of a small collective between two
// processes of one node: each sends 32 bytes (an 8-byte payload behind
// gocoll's 16-byte message header, the ring's own 8) to the other through
// the shared-memory rings and receives the other's, polling until both
// transfers are done. Compare with MPI_Allreduce of 8 bytes (collbench) and
// with gocoll.ReduceAll's row: what lies above this is the engine's.
//
//	go test -c -o bin/mpiconduit.test ./mpiconduit
//	mpirun --allow-run-as-root --bind-to none -np 2 bin/mpiconduit.test \
//	  -test.run xxx -test.bench ConduitExchange -test.benchtime 1000000x
func BenchmarkConduitExchange(b *testing.B) {
	w := mpi.World()
	if w.Size() != 2 {
		b.Skip("needs exactly 2 MPI ranks")
	}
	cd, err := NewConduit(w)
	if err != nil {
		b.Fatal(err)
	}
	defer cd.Close()
	peer := 1 - w.Rank()
	s, r := make([]byte, 24), make([]byte, 24)
	var done []uint64
	if err := w.Barrier(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		tag := i & 0xffff
		sent, err := cd.Isend(peer, tag, s, 1)
		if err != nil {
			b.Fatal(err)
		}
		got, err := cd.Irecv(peer, tag, r, 2)
		for n := b2i(sent) + b2i(got); err == nil && n < 2; n += len(done) {
			done, err = cd.Poll(done[:0])
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if err := w.Barrier(); err != nil {
		b.Fatal(err)
	}
}
