package coll_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	gsync "github.com/gocoll/gocoll/sync"
)

type particle struct {
	X, Y, Z float64
	ID      int32
}

func TestTypedLayer(t *testing.T) {
	const P = 5
	err := colltest.Run(P, colltest.Options{MaxDelay: 30 * time.Microsecond}, coll.Options{}, time.Minute, func(im *coll.Image) error {
		me, tm := im.ImageNum(), im.TeamAll()
		f := gsync.InMySync | gsync.OutMySync | gsync.Local
		// float64 gather_all of 3 elements per image.
		src := []float64{float64(me), float64(me) + 0.5, -float64(me)}
		all := make([]float64, 3*P)
		if err := coll.GatherAllOf(im, tm, all, src, 3, f); err != nil {
			return err
		}
		for q := range P {
			if all[3*q] != float64(q) || all[3*q+1] != float64(q)+0.5 || all[3*q+2] != -float64(q) {
				return fmt.Errorf("gather_all block %d: %v", q, all[3*q:3*q+3])
			}
		}
		// structs: broadcast from the last image, scatter, gather, exchange.
		ps := make([]particle, 2)
		var root []particle
		if me == P-1 {
			root = []particle{{1, 2, 3, 7}, {4, 5, 6, 8}}
		}
		if err := coll.BroadcastOf(im, tm, ps, P-1, root, 2, f); err != nil {
			return err
		}
		if ps[1] != (particle{4, 5, 6, 8}) {
			return fmt.Errorf("broadcast: %v", ps)
		}
		out := make([]int64, P)
		for q := range out {
			out[q] = int64(me*100 + q)
		}
		in := make([]int64, P)
		if err := coll.ExchangeOf(im, tm, in, out, 1, f); err != nil {
			return err
		}
		for q := range in {
			if in[q] != int64(q*100+me) {
				return fmt.Errorf("exchange: %v", in)
			}
		}
		var sc []int32
		if me == 0 {
			sc = []int32{10, 11, 12, 13, 14}
		}
		one := make([]int32, 1)
		if err := coll.ScatterOf(im, tm, one, 0, sc, 1, f); err != nil {
			return err
		}
		got := make([]int32, P)
		if err := coll.GatherOf(im, tm, 0, got, one, 1, f); err != nil {
			return err
		}
		if me == 0 && fmt.Sprint(got) != "[10 11 12 13 14]" {
			return fmt.Errorf("scatter then gather: %v", got)
		}
		// Pointer-holding element types are refused.
		if err := coll.BroadcastOf(im, tm, []string{"x"}, 0, []string{"y"}, 1, f); !errors.Is(err, coll.ErrType) {
			return fmt.Errorf("strings: %v", err)
		}
		return im.Barrier(tm)
	})
	if err != nil {
		t.Fatal(err)
	}
}
