package mpi

import (
	"errors"
	"testing"
)

// vPlace is a layout of a block per rank in one buffer: rank i's count(i)
// elements at displs[i], with a gap of one element before each block (so
// that a write outside the blocks shows), in reverse rank order when
// reversed (displacements need not follow ranks).
func vPlace(p int, count func(i int) int, reversed bool) (counts, displs []int, size int) {
	counts, displs = make([]int, p), make([]int, p)
	for k := range p {
		i := k
		if reversed {
			i = p - 1 - k
		}
		counts[i] = count(i)
		size++ // the gap
		displs[i] = size
		size += counts[i]
	}
	return counts, displs, size + 1
}

// vWant is a buffer of size elements, sentinel outside the blocks, and
// block i filled by val(i, k) for its k-th element.
func vWant(size int, counts, displs []int, val func(i, k int) float64) []float64 {
	b := filled(size, func(int) float64 { return -1 })
	for i := range counts {
		for k := range counts[i] {
			b[displs[i]+k] = val(i, k)
		}
	}
	return b
}

// TestVCollectives checks Gatherv, Scatterv, Allgatherv and Alltoallv
// against the blocks each rank computes for itself: uneven counts, zero
// counts, gaps between blocks, blocks out of rank order, every root.
func TestVCollectives(t *testing.T) {
	w := World()
	p, me := w.Size(), w.Rank()
	count := func(i int) int { return (i*3 + 1) % 4 } // 1, 0, 3, 2, ...
	val := func(i, k int) float64 { return float64(1000*i + k) }
	for _, reversed := range []bool{false, true} {
		counts, displs, size := vPlace(p, count, reversed)
		own := filled(count(me), func(k int) float64 { return val(me, k) })
		all := vWant(size, counts, displs, val)
		for _, root := range testRoots(p) {
			recv := filled(size, func(int) float64 { return -1 })
			if err := Gatherv(w, own, recv, counts, displs, root); err != nil {
				t.Fatalf("rank %d: Gatherv root %d: %v", me, root, err)
			}
			if me == root {
				checkEq(t, all, recv, "Gatherv root %d reversed %v", root, reversed)
			}

			got := filled(count(me), func(int) float64 { return -1 })
			var send []float64
			if me == root {
				send = all
			}
			if err := Scatterv(w, send, counts, displs, got, root); err != nil {
				t.Fatalf("rank %d: Scatterv root %d: %v", me, root, err)
			}
			checkEq(t, own, got, "Scatterv root %d reversed %v", root, reversed)
		}
		recv := filled(size, func(int) float64 { return -1 })
		if err := Allgatherv(w, own, recv, counts, displs); err != nil {
			t.Fatalf("rank %d: Allgatherv: %v", me, err)
		}
		checkEq(t, all, recv, "Allgatherv reversed %v", reversed)

		// Alltoallv: rank q sends rank j (q+j)%3 elements of value
		// 1000*q+10*j+k; each side lays its blocks out as vPlace does.
		pair := func(q, j int) int { return (q + j) % 3 }
		sc, sd, ssize := vPlace(p, func(j int) int { return pair(me, j) }, reversed)
		rc, rd, rsize := vPlace(p, func(q int) int { return pair(q, me) }, !reversed)
		send := vWant(ssize, sc, sd, func(j, k int) float64 { return float64(1000*me + 10*j + k) })
		want := vWant(rsize, rc, rd, func(q, k int) float64 { return float64(1000*q + 10*me + k) })
		got := filled(rsize, func(int) float64 { return -1 })
		if err := Alltoallv(w, send, sc, sd, got, rc, rd); err != nil {
			t.Fatalf("rank %d: Alltoallv: %v", me, err)
		}
		checkEq(t, want, got, "Alltoallv reversed %v", reversed)
	}
	// The byte forms take the same path with bytes as elements.
	counts, displs, size := vPlace(p, count, false)
	recv := make([]byte, size)
	own := make([]byte, count(me))
	for k := range own {
		own[k] = byte(me + k)
	}
	if err := w.Allgatherv(own, recv, counts, displs); err != nil {
		t.Fatalf("rank %d: byte Allgatherv: %v", me, err)
	}
	for i := range p {
		for k := range counts[i] {
			if recv[displs[i]+k] != byte(i+k) {
				t.Errorf("rank %d: byte Allgatherv: rank %d's element %d is %d", me, i, k, recv[displs[i]+k])
			}
		}
	}
}

// TestVCollectivesMisuse: arguments every rank can tell are wrong fail on
// every rank before MPI is called.
func TestVCollectivesMisuse(t *testing.T) {
	w := World()
	p, me := w.Size(), w.Rank()
	ones := filled(p, func(int) int { return 1 })
	seq := filled(p, func(i int) int { return i })
	same := make([]int, p)                                         // every block at 0
	neg := filled(p, func(i int) int { return 1 - 2*max(1-i, 0) }) // -1 first
	one := []float64{1}
	buf := make([]float64, p)
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"Allgatherv short counts", Allgatherv(w, one, buf, ones[:p-1], seq), ErrArg},
		{"Allgatherv short displs", Allgatherv(w, one, buf, ones, seq[:p-1]), ErrArg},
		{"Allgatherv recv too short", Allgatherv(w, one, buf[:p-1], ones, seq), ErrShortBuffer},
		{"Allgatherv nil recv", Allgatherv(w, one, nil, ones, seq), ErrNilBuffer},
		{"Alltoallv negative count", Alltoallv(w, buf, neg, seq, buf[:0], neg, seq), ErrArg},
		{"Alltoallv send and recv alike", Alltoallv(w, buf, ones, seq, buf, ones, seq), ErrArg},
		{"Gatherv root out of range", Gatherv(w, one, buf, ones, seq, p), ErrRank},
		{"Scatterv recv not the root's count", Scatterv(w, buf, ones, seq, make([]float64, 2), me), ErrArg},
	}
	if p > 1 {
		cases = append(cases, struct {
			name string
			err  error
			want error
		}{"Allgatherv overlapping blocks", Allgatherv(w, one, buf, ones, same), ErrArg})
	}
	for _, c := range cases {
		if !errors.Is(c.err, c.want) {
			t.Errorf("rank %d: %s: %v, want %v", me, c.name, c.err, c.want)
		}
	}
}

// TestReduceScatter: rank r sends r+j at position j of the vector; rank
// i's block of the sum holds p*(j)+p(p-1)/2 at each of its positions j,
// for uneven and zero counts.
func TestReduceScatter(t *testing.T) {
	w := World()
	p, me := w.Size(), w.Rank()
	counts := filled(p, func(i int) int { return (i*3 + 1) % 4 })
	total, first := 0, 0
	for i, n := range counts {
		if i == me {
			first = total
		}
		total += n
	}
	send := filled(total, func(j int) float64 { return float64(me + j) })
	recv := filled(counts[me], func(int) float64 { return -1 })
	if err := ReduceScatter(w, send, recv, counts, OpSum); err != nil {
		t.Fatalf("rank %d: ReduceScatter: %v", me, err)
	}
	want := filled(counts[me], func(k int) float64 { return float64(p*(first+k) + p*(p-1)/2) })
	checkEq(t, want, recv, "ReduceScatter")
	for _, c := range []struct {
		name string
		err  error
		want error
	}{
		{"short counts", ReduceScatter(w, send, recv, counts[:p-1], OpSum), ErrArg},
		{"recv not this rank's count", ReduceScatter(w, send, make([]float64, counts[me]+1), counts, OpSum), ErrArg},
		{"send short", ReduceScatter(w, send[:max(total-1, 0)], recv, filled(p, func(int) int { return total }), OpSum), ErrShortBuffer},
	} {
		if !errors.Is(c.err, c.want) {
			t.Errorf("rank %d: ReduceScatter %s: %v, want %v", me, c.name, c.err, c.want)
		}
	}
}
