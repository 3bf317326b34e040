package coll_test

import (
	"testing"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/reducefn"
	gsync "github.com/gocoll/gocoll/sync"
)

// mirror is a conduit of two nodes in one goroutine: node 1 is node 0's
// mirror, whose every message is the one node 0 sent it on the same tag.
// A collective on it runs node 0's whole part (its checks, its schedule,
// its headers and folds) with no other process and no wait, so that a
// benchmark times the executor's own work.
type mirror struct {
	sent    map[int][]byte
	waiting map[int]mirrorRecv
	done    []uint64
}

type mirrorRecv struct {
	buf   []byte
	token uint64
}

func (m *mirror) Node() int   { return 0 }
func (m *mirror) Nodes() int  { return 2 }
func (m *mirror) MaxTag() int { return 1<<31 - 1 }
func (m *mirror) Isend(_, tag int, b []byte, _ uint64) (bool, error) {
	if r, ok := m.waiting[tag]; ok {
		copy(r.buf, b)
		delete(m.waiting, tag)
		m.done = append(m.done, r.token)
		return true, nil
	}
	m.sent[tag] = append(m.sent[tag][:0], b...)
	return true, nil
}
func (m *mirror) Irecv(_, tag int, b []byte, token uint64) (bool, error) {
	if s, ok := m.sent[tag]; ok {
		copy(b, s)
		delete(m.sent, tag)
		return true, nil
	}
	m.waiting[tag] = mirrorRecv{b, token}
	return false, nil
}
func (m *mirror) Poll(d []uint64) ([]uint64, error) {
	d = append(d, m.done...)
	m.done = m.done[:0]
	return d, nil
}

// BenchmarkMirror times a blocking ReduceAll (also in place), Broadcast,
// GatherAll and GatherAllV of 8 bytes (per image), called, and the first two
// as plans, on
// node 0 of a mirror conduit: the executor's work per call, without
// messages in flight.
//
//	go test -run xxx -bench Mirror ./coll
func BenchmarkMirror(b *testing.B) {
	m := &mirror{sent: map[int][]byte{}, waiting: map[int]mirrorRecv{}}
	im, err := coll.Init(m, nil, 0, []reducefn.Entry{reducefn.Sum[float64]()}, 0, coll.Options{})
	if err != nil {
		b.Fatal(err)
	}
	f := gsync.InMySync | gsync.OutMySync | gsync.Local
	bufs := reducefn.Bytes(make([]float64, 2))
	b.Run("ReduceAll", func(b *testing.B) {
		for b.Loop() {
			if err := im.ReduceAll(im.TeamAll(), bufs[:8], bufs[8:], coll.Cyclic, 8, 2, 0, 0, f); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ReduceAllInPlace", func(b *testing.B) { // as a Fortran CO_SUM calls it
		for b.Loop() {
			if err := im.ReduceAll(im.TeamAll(), bufs[:8], bufs[:8], coll.Cyclic, 8, 2, 0, 0, f); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Broadcast", func(b *testing.B) {
		for b.Loop() {
			if err := im.Broadcast(im.TeamAll(), bufs[:8], 0, bufs[8:], 8, f); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("GatherAll", func(b *testing.B) {
		for b.Loop() {
			if err := im.GatherAll(im.TeamAll(), bufs[:16], bufs[:8], 8, f); err != nil {
				b.Fatal(err)
			}
		}
	})
	counts, displs := []int{8, 8}, []int{0, 8}
	b.Run("GatherAllV", func(b *testing.B) {
		for b.Loop() {
			if err := im.GatherAllV(im.TeamAll(), bufs[:16], counts, displs, bufs[:8], f); err != nil {
				b.Fatal(err)
			}
		}
	})
	// The same calls as plans (coll.Plan), started again and again.
	for _, c := range []struct {
		name string
		call func() error
	}{
		{"ReduceAllPlan", func() error { return im.ReduceAll(im.TeamAll(), bufs[:8], bufs[8:], coll.Cyclic, 8, 2, 0, 0, f) }},
		{"BroadcastPlan", func() error { return im.Broadcast(im.TeamAll(), bufs[:8], 0, bufs[8:], 8, f) }},
	} {
		p, err := im.NewPlan(c.call)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if err := p.Run(); err != nil {
					b.Fatal(err)
				}
			}
		})
		if err := p.Free(); err != nil {
			b.Fatal(err)
		}
	}
}
