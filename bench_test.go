package gocoll_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/gocoll/gocoll"
	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	"github.com/gocoll/gocoll/reducefn"
	gsync "github.com/gocoll/gocoll/sync"
)

// BenchmarkFrontDoor measures what the front door costs beside the byte
// forms it calls: each collective of one float64 per image (8-byte
// blocks), as package coll's byte form and as this package's short form,
// on the in-process conduit, the same buffers every call. With one node
// (P1) the time is the call's own cost, without waiting for a peer: the
// difference between a pair's times is the typed layer's; with two (P2)
// it is a whole collective's.
//
//	go test -run xxx -bench FrontDoor -benchmem .
func BenchmarkFrontDoor(b *testing.B) {
	const f = gsync.InMySync | gsync.OutMySync | gsync.Local
	const fnSum = 0
	type bufs struct{ dst, src []float64 }
	bs := reducefn.Bytes[float64]
	for _, P := range []int{1, 2} {
		for _, c := range []struct {
			name        string
			bytes, door func(im *coll.Image, b bufs) error
		}{
			{"Broadcast",
				func(im *coll.Image, b bufs) error {
					return im.Broadcast(im.TeamAll(), bs(b.dst[:1]), 0, bs(b.src[:1]), 8, f)
				},
				func(im *coll.Image, b bufs) error { return gocoll.Broadcast(im, b.dst[:1], 0, b.src[:1]) }},
			{"Gather",
				func(im *coll.Image, b bufs) error { return im.Gather(im.TeamAll(), 0, bs(b.dst), bs(b.src[:1]), 8, f) },
				func(im *coll.Image, b bufs) error { return gocoll.Gather(im, 0, b.dst, b.src[:1]) }},
			{"GatherAll",
				func(im *coll.Image, b bufs) error { return im.GatherAll(im.TeamAll(), bs(b.dst), bs(b.src[:1]), 8, f) },
				func(im *coll.Image, b bufs) error { return gocoll.GatherAll(im, b.dst, b.src[:1]) }},
			{"Exchange",
				func(im *coll.Image, b bufs) error { return im.Exchange(im.TeamAll(), bs(b.dst), bs(b.src), 8, f) },
				func(im *coll.Image, b bufs) error { return gocoll.Exchange(im, b.dst, b.src) }},
			{"ReduceAll",
				func(im *coll.Image, b bufs) error {
					return im.ReduceAll(im.TeamAll(), bs(b.dst[:1]), bs(b.src[:1]), coll.Cyclic, 8, P, fnSum, 0, f)
				},
				func(im *coll.Image, b bufs) error { return gocoll.ReduceAll(im, b.dst[:1], b.src[:1], gocoll.Sum) }},
			{"PrefixReduce",
				func(im *coll.Image, b bufs) error {
					return im.PrefixReduce(im.TeamAll(), bs(b.dst[:1]), coll.Cyclic, bs(b.src[:1]), coll.Cyclic, 8, P, fnSum, 0, f)
				},
				func(im *coll.Image, b bufs) error { return gocoll.PrefixReduce(im, b.dst[:1], b.src[:1], gocoll.Sum) }},
		} {
			for _, form := range []struct {
				name string
				call func(im *coll.Image, b bufs) error
			}{{"bytes", c.bytes}, {"gocoll", c.door}} {
				b.Run(fmt.Sprintf("P%d/%s/%s", P, c.name, form.name), func(b *testing.B) {
					w := colltest.NewWorld(P, colltest.Options{})
					ims := make([]*coll.Image, P)
					errs := make([]error, P)
					var wg sync.WaitGroup
					for i := range P {
						wg.Go(func() {
							ims[i], errs[i] = coll.Init(w.Conduit(i), nil, 0, []reducefn.Entry{reducefn.Sum[float64]()}, 0, coll.Options{})
						})
					}
					wg.Wait()
					b.ReportAllocs()
					b.ResetTimer()
					for i := range P {
						if errs[i] != nil {
							b.Fatal(errs[i])
						}
						wg.Go(func() {
							im := ims[i]
							bb := bufs{make([]float64, P), make([]float64, P)}
							for k := range b.N {
								err := form.call(im, bb)
								if err == nil && k%64 == 63 { // (the in-process conduit searches its queue)
									err = im.Barrier(im.TeamAll())
								}
								if err != nil {
									errs[i] = fmt.Errorf("node %d: %w", i, err)
									return
								}
							}
							errs[i] = im.Close()
						})
					}
					wg.Wait()
					for _, err := range errs {
						if err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}
