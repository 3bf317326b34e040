package colltest

import (
	"context"
	"fmt"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/images"
	gsync "github.com/gocoll/gocoll/sync"
)

// InSegment checks the one-sided path on team t: every data-movement
// collective, at its roots, in all nine sync modes, with SrcInSegment,
// DstInSegment and both, every image's buffers carved from its segment
// (Options.SegmentSize of at least SegmentNeed), non-blocking and
// blocking; the data must be what the collective defines, as off the
// segment. Every image of t calls it (with AllThreads where a node hosts
// several images).
func InSegment(im *coll.Image, t *images.Team, sizes []int) error {
	if sizes == nil {
		sizes = []int{1, 100, 3000}
	}
	seg := im.Segment()
	P := t.Size()
	me := t.Rank(im.ImageNum())
	threads := gsync.Flags(0)
	if im.Images() > im.Table().Nodes() {
		threads = gsync.AllThreads
	}
	ins := []gsync.Flags{gsync.InNoSync, gsync.InMySync, gsync.InAllSync}
	outs := []gsync.Flags{gsync.OutNoSync, gsync.OutMySync, gsync.OutAllSync}
	flagsets := []gsync.Flags{gsync.SrcInSegment, gsync.DstInSegment, gsync.SrcInSegment | gsync.DstInSegment}
	it := 700000
	for ki := range kinds {
		k := &kinds[ki]
		for _, root := range roots(k, P) {
			for i, in := range ins {
				for j, out := range outs {
					for fi, fs := range flagsets {
						it++
						n := sizes[(i+j+fi)%len(sizes)]
						f := in | out | gsync.Local | threads | fs
						src, dst := carve(seg, k.src(P, me == root)*n, k.dst(P, me == root)*n, it, P)
						if fs&gsync.SrcInSegment == 0 {
							src = make([]byte, len(src))
						}
						if fs&gsync.DstInSegment == 0 {
							dst = make([]byte, len(dst))
						}
						for b := 0; b < len(src)/n; b++ {
							for x := range n {
								src[b*n+x] = k.srcVal(it, me, b, x)
							}
						}
						for x := range dst {
							dst[x] = 0xEE
						}
						if len(src) == 0 {
							src = nil
						}
						if len(dst) == 0 {
							dst = nil
						}
						h, err := k.nb(im, t, dst, root, src, n, f)
						if err == nil {
							err = h.Wait(context.Background())
						}
						if err == nil && out == gsync.OutNoSync {
							err = im.Barrier(t) // every image synced: all data has moved
						}
						if err != nil {
							return fmt.Errorf("%s root %d %v n=%d: %w", k.name, root, f, n, err)
						}
						for b := 0; b < len(dst)/n; b++ {
							for x := range n {
								if got, want := dst[b*n+x], k.dstVal(it, me, root, b, x); got != want {
									return fmt.Errorf("%s root %d %v n=%d: rank %d dst block %d byte %d = %#x, want %#x",
										k.name, root, f, n, me, b, x, got, want)
								}
							}
						}
					}
				}
			}
		}
	}
	return im.Barrier(t)
}

// SegmentNeed is the segment InSegment needs per image for P images and
// its largest size n.
func SegmentNeed(P, n int) int { return 2*P*n + 64 }

// carve cuts a source and a destination of the given lengths from seg, at
// an offset that changes with it (so that no two calls in a row use the
// same addresses).
func carve(seg []byte, srcLen, dstLen, it, P int) (src, dst []byte) {
	off := (it * 8) % 64
	src = seg[off : off+srcLen : off+srcLen]
	dst = seg[off+srcLen : off+srcLen+dstLen : off+srcLen+dstLen]
	return src, dst
}
