package coll_test

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	gsync "github.com/gocoll/gocoll/sync"
)

// TestInSegmentInProcess: the one-sided path (puts, gets and their control
// messages) gives every collective's data in all nine sync modes, with one
// and several images per node, with random delays.
func TestInSegmentInProcess(t *testing.T) {
	for i, per := range [][]int{{1}, {1, 1}, {1, 1, 1}, {1, 1, 1, 1, 1}, {2, 2}, {1, 3, 2}, {1, 1, 1, 1, 1, 1, 1, 1}} {
		t.Run(fmt.Sprint(per), func(t *testing.T) {
			t.Parallel()
			P := 0
			for _, k := range per {
				P += k
			}
			delay := colltest.Options{MaxDelay: 20 * time.Microsecond, Seed: uint64(i + 11)}
			opts := coll.Options{SegmentSize: colltest.SegmentNeed(P, 3000), OneSidedMin: 1}
			err := colltest.RunImages(per, delay, opts, nil, 2*time.Minute, func(im *coll.Image, _ *colltest.Node) error {
				if len(im.Segment()) != opts.SegmentSize {
					return fmt.Errorf("segment of %d bytes, want %d", len(im.Segment()), opts.SegmentSize)
				}
				return colltest.InSegment(im, im.TeamAll(), nil)
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestSegmentMisuse: segment flags on memory outside the segment, or with
// no segment at all, are ErrNotInSegment on the image that passed it.
func TestSegmentMisuse(t *testing.T) {
	for _, size := range []int{0, 4096} {
		err := colltest.RunImages([]int{1, 1}, colltest.Options{}, coll.Options{SegmentSize: size}, table, time.Minute, func(im *coll.Image, _ *colltest.Node) error {
			all := im.TeamAll()
			seg := im.Segment()
			if (size == 0) != (seg == nil) {
				return fmt.Errorf("SegmentSize %d: segment of %d bytes", size, len(seg))
			}
			off := make([]byte, 64)
			my := gsync.InMySync | gsync.OutMySync | gsync.Local
			in := make([]byte, 64) // as off: not in the (absent) segment
			if seg != nil {
				in = seg[:64]
			}
			for name, err := range map[string]error{
				"dst off the segment":          im.GatherAll(all, off[:16], in[:8], 8, my|gsync.DstInSegment),
				"src off the segment":          im.GatherAll(all, in[16:32], off[:8], 8, my|gsync.SrcInSegment),
				"both, dst off":                im.Exchange(all, off[:16], in[:16], 8, my|gsync.SrcInSegment|gsync.DstInSegment),
				"a reduction's source":         im.ReduceAll(all, in[:8], off[:8], coll.Cyclic, 8, 2, 0, 0, my|gsync.SrcInSegment),
				"dst a copy of segment memory": im.Broadcast(all, append([]byte(nil), in[:8]...), 0, off[:8], 8, my|gsync.DstInSegment),
			} {
				if !errors.Is(err, coll.ErrNotInSegment) {
					return fmt.Errorf("SegmentSize %d, %s: %v, want ErrNotInSegment", size, name, err)
				}
			}
			return im.Barrier(all)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, o := range []coll.Options{{SegmentSize: -1}, {OneSidedMin: -1}} {
		if err := colltest.Run(1, colltest.Options{}, o, time.Minute, func(*coll.Image) error { return nil }); !errors.Is(err, coll.ErrOptions) {
			t.Errorf("%+v: %v, want ErrOptions", o, err)
		}
	}
}

// TestSegmentPathTaken: in-segment data areas move one-sided, one put (or
// get) per edge of the tree, from Options.OneSidedMin bytes on; smaller
// transfers move as messages.
func TestSegmentPathTaken(t *testing.T) {
	const P, n = 4, 100
	all := gsync.InAllSync | gsync.OutAllSync | gsync.Local
	for _, c := range []struct {
		name       string
		f          gsync.Flags
		min        int
		puts, gets int64
	}{
		{"DstInSegment", all | gsync.DstInSegment, 1, P - 1, 0},
		{"SrcInSegment", all | gsync.SrcInSegment, n, 0, P - 1},
		{"both", all | gsync.SrcInSegment | gsync.DstInSegment, 1, P - 1, 0},
		{"neither", all, 1, 0, 0},
		{"below OneSidedMin", all | gsync.SrcInSegment | gsync.DstInSegment, n + 1, 0, 0},
		{"below the default", all | gsync.SrcInSegment | gsync.DstInSegment, 0, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := colltest.NewWorld(P, colltest.Options{})
			err := w.RunImages([]int{1, 1, 1, 1}, coll.Options{SegmentSize: 4 * n, OneSidedMin: c.min}, nil, time.Minute, func(im *coll.Image, _ *colltest.Node) error {
				seg := im.Segment()
				src, dst := seg[:n], seg[2*n:3*n]
				for i := range src {
					src[i] = byte(i + 1)
				}
				if err := im.Broadcast(im.TeamAll(), dst, 1, src, n, c.f); err != nil {
					return err
				}
				for i, b := range dst {
					if b != byte(i+1) {
						return fmt.Errorf("dst[%d] = %d", i, b)
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if puts, gets := w.OneSided(); puts != c.puts || gets != c.gets {
				t.Errorf("%d puts and %d gets, want %d and %d", puts, gets, c.puts, c.gets)
			}
		})
	}
}

// TestSegmentMismatch: on the one-sided path a call that disagrees (the
// receiver expects fewer bytes than the root sends) fails with
// ErrMismatch where the control message's header is checked, before the
// write (DstInSegment: at the root) or the read (SrcInSegment: at the
// receiver); the peer's wait ends in ErrMismatch or ErrStalled, and not a
// byte of the receiver's segment changes.
func TestSegmentMismatch(t *testing.T) {
	const seg, sent, expected = 8 << 10, 2 << 10, 1 << 10
	for _, f := range []gsync.Flags{gsync.DstInSegment, gsync.SrcInSegment, gsync.DstInSegment | gsync.SrcInSegment} {
		t.Run(f.String(), func(t *testing.T) {
			opts := coll.Options{SegmentSize: seg, OneSidedMin: 1, StallTimeout: time.Second}
			var mismatched atomic.Int32
			err := colltest.RunImages([]int{1, 1}, colltest.Options{}, opts, table, time.Minute, func(im *coll.Image, _ *colltest.Node) error {
				s := im.Segment()
				for i := range s {
					s[i] = 0xA5
				}
				my := gsync.InMySync | gsync.OutMySync | gsync.Local | f
				var err error
				if im.ImageNum() == 0 {
					for i := range sent {
						s[seg/2+i] = byte(i)
					}
					err = im.Broadcast(im.TeamAll(), s[:sent], 0, s[seg/2:seg/2+sent], sent, my)
				} else {
					err = im.Broadcast(im.TeamAll(), s[:expected], 0, s[seg/2:seg/2+expected], expected, my)
				}
				if errors.Is(err, coll.ErrMismatch) {
					mismatched.Add(1)
				} else if !errors.Is(err, coll.ErrStalled) {
					return fmt.Errorf("image %d: %v, want ErrMismatch or ErrStalled", im.ImageNum(), err)
				}
				if im.ImageNum() == 1 {
					for i, b := range s {
						if b != 0xA5 {
							return fmt.Errorf("byte %d of the receiver's segment is %#x: written by a call that disagrees", i, b)
						}
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if mismatched.Load() == 0 {
				t.Error("no image saw ErrMismatch: the control message's header went unchecked")
			}
			if mismatched.Load() == 0 {
				t.Error("no image saw ErrMismatch: the control message's header went unchecked")
			}
		})
	}
}
