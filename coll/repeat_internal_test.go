package coll

import (
	"testing"

	"github.com/gocoll/gocoll/reducefn"
	gsync "github.com/gocoll/gocoll/sync"
)

// oneNode is a conduit of one node, on which nothing is ever sent.
type oneNode struct{}

func (oneNode) Node() int                                    { return 0 }
func (oneNode) Nodes() int                                   { return 1 }
func (oneNode) MaxTag() int                                  { return 1<<31 - 1 }
func (oneNode) Isend(int, int, []byte, uint64) (bool, error) { return true, nil }
func (oneNode) Irecv(int, int, []byte, uint64) (bool, error) { return true, nil }
func (oneNode) Poll(d []uint64) ([]uint64, error)            { return d, nil }

// BenchmarkReduceAllOneNode times a ReduceAll of one float64 on a team of
// one node (its checks, and a schedule with nothing to send): "repeat"
// the same call on the same buffers, which takes its record (core's lastcall.go),
// "other" a call on other buffers than the call before, checked in full.
//
//	go test -run xxx -bench ReduceAllOneNode ./coll
func BenchmarkReduceAllOneNode(b *testing.B) {
	im, err := Init(oneNode{}, nil, 0, []reducefn.Entry{reducefn.Sum[float64]()}, 0, Options{})
	if err != nil {
		b.Fatal(err)
	}
	t := im.TeamAll()
	f := gsync.InMySync | gsync.OutMySync | gsync.Local
	bufs := reducefn.Bytes(make([]float64, 4))
	for _, other := range []bool{false, true} {
		name := "repeat"
		if other {
			name = "other"
		}
		b.Run(name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				if other {
					i ^= 16
				}
				if err := im.ReduceAll(t, bufs[i:i+8], bufs[i+8:i+16], Cyclic, 8, 1, 0, 0, f); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
