package gocoll_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gocoll/gocoll"
	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	gsync "github.com/gocoll/gocoll/sync"
)

// TestDefaults runs the short forms on nodes of one and of several images
// (where every image calls for itself), with slices only where they apply.
func TestDefaults(t *testing.T) {
	for _, per := range [][]int{{1}, {1, 1, 1}, {2, 3}, {4}} {
		t.Run(fmt.Sprint(per), func(t *testing.T) {
			err := colltest.RunImages(per, colltest.Options{MaxDelay: 10 * time.Microsecond}, coll.Options{}, nil, time.Minute,
				func(im *coll.Image, _ *colltest.Node) error {
					return errors.Join(defaults(im), im.Close())
				})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

func defaults(im *coll.Image) error {
	me, P := im.ImageNum(), im.Images()
	root := P - 1
	var src []int64
	if me == root {
		src = []int64{7, 8}
	}
	got := make([]int64, 2)
	if err := gocoll.Broadcast(im, got, root, src); err != nil || got[0] != 7 || got[1] != 8 {
		return fmt.Errorf("Broadcast: %v %v", got, err)
	}
	var tot []int64
	if me == root {
		tot = make([]int64, 1)
	}
	if err := gocoll.Reduce(im, root, tot, []int64{int64(me)}, gocoll.Sum); err != nil {
		return fmt.Errorf("Reduce: %w", err)
	}
	if me == root && tot[0] != int64(P*(P-1)/2) {
		return fmt.Errorf("Reduce: %v", tot)
	}
	out, in := make([]int32, 2*P), make([]int32, 2*P)
	for q := range P {
		out[2*q], out[2*q+1] = int32(me), int32(q)
	}
	if err := gocoll.Exchange(im, in, out); err != nil {
		return fmt.Errorf("Exchange: %w", err)
	}
	for q := range P {
		if in[2*q] != int32(q) || in[2*q+1] != int32(me) {
			return fmt.Errorf("Exchange: %v", in)
		}
	}
	// Bad input: a source that is not a block per image, vectors of
	// different lengths.
	if err := gocoll.Exchange(im, in, make([]int32, 2*P+1)); P > 1 && !errors.Is(err, coll.ErrLength) {
		return fmt.Errorf("Exchange of a ragged source: %v", err)
	}
	if err := gocoll.ReduceAll(im, make([]int, 2), []int{1}, gocoll.Sum); !errors.Is(err, coll.ErrLength) {
		return fmt.Errorf("ReduceAll of different lengths: %v", err)
	}
	// WithFlags replaces the defaults: SINGLE wants every argument.
	err := gocoll.Broadcast(im, got, root, nil, gocoll.WithFlags(gsync.InMySync|gsync.OutMySync|gsync.Single|gsync.AllThreads))
	if !errors.Is(err, coll.ErrNilBuffer) {
		return fmt.Errorf("Broadcast with SINGLE and no source: %v", err)
	}
	return nil
}

func TestStopUnstarted(t *testing.T) {
	if err := gocoll.Stop(nil); !errors.Is(err, gocoll.ErrNotStarted) {
		t.Fatal(err)
	}
}
