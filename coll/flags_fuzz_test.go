package coll_test

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	gsync "github.com/gocoll/gocoll/sync"
)

// FuzzCollectiveFlags calls a broadcast with any flags, blocking or not,
// on a job of one image: flags the spec refuses (not one mode of each
// category, Aggregate on a blocking call) fail with ErrFlags, in-segment
// assertions without a segment with ErrNotInSegment, and anything else
// broadcasts (an Aggregate member once the Last without it is synced).
func FuzzCollectiveFlags(f *testing.F) {
	good := gsync.InMySync | gsync.OutMySync | gsync.Single
	for _, s := range []struct {
		fl uint32
		nb bool
	}{{uint32(good), false}, {uint32(good), true}, {uint32(good | gsync.Aggregate), true}, {uint32(good | gsync.Aggregate), false},
		{uint32(good | gsync.AllThreads), true}, {uint32(good | gsync.Local), false}, {uint32(good | gsync.SrcInSegment), true}, {0, false}, {1 << 20, true}} {
		f.Add(s.fl, s.nb)
	}
	f.Fuzz(func(t *testing.T, v uint32, nb bool) {
		fl := gsync.Flags(v)
		err := colltest.Run(1, colltest.Options{}, coll.Options{}, time.Minute, func(im *coll.Image) error {
			src, dst := []byte("collective"), make([]byte, 10)
			var err error
			h := gsync.Handle{}
			if nb {
				h, err = im.BroadcastNB(im.TeamAll(), dst, 0, src, len(src), fl)
			} else {
				err = im.Broadcast(im.TeamAll(), dst, 0, src, len(src), fl)
			}
			valid := fl.Validate() == nil && (nb || fl&gsync.Aggregate == 0)
			switch {
			case !valid:
				if !errors.Is(err, gsync.ErrFlags) {
					t.Fatalf("%v nb=%v: %v, want ErrFlags", fl, nb, err)
				}
				return nil
			case fl&(gsync.SrcInSegment|gsync.DstInSegment) != 0:
				if !errors.Is(err, coll.ErrNotInSegment) {
					t.Fatalf("%v nb=%v: %v, want ErrNotInSegment", fl, nb, err)
				}
				return nil
			case err != nil:
				t.Fatalf("%v nb=%v: %v", fl, nb, err)
			}
			if fl&gsync.Aggregate != 0 { // the Last ends the aggregate
				last := make([]byte, 10)
				if err := im.Broadcast(im.TeamAll(), last, 0, src, len(src), fl&^gsync.Aggregate); err != nil {
					t.Fatalf("%v: the Last: %v", fl, err)
				}
				if !bytes.Equal(last, src) {
					t.Fatalf("%v: the Last broadcast %q", fl, last)
				}
			}
			if err := h.Wait(context.Background()); err != nil {
				t.Fatalf("%v nb=%v: wait: %v", fl, nb, err)
			}
			if !bytes.Equal(dst, src) {
				t.Fatalf("%v nb=%v: broadcast %q", fl, nb, dst)
			}
			return im.Close()
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}
