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

// TestTypedMForms: the typed m forms by a representative of each node of
// [2, 1, 3] images.
func TestTypedMForms(t *testing.T) {
	per := []int{2, 1, 3}
	const P = 6
	err := colltest.RunImages(per, colltest.Options{MaxDelay: 20 * time.Microsecond}, coll.Options{}, nil, time.Minute, func(im *coll.Image, nd *colltest.Node) (err error) {
		tb, tm := im.Table(), im.TeamAll()
		first, T := tb.First(im.Node()), tb.On(im.Node())
		f := gsync.InMySync | gsync.OutMySync | gsync.Local
		nd.Rendezvous("rep", T)
		if im.ImageNum() != first {
			nd.Rendezvous("rep", T)
			return im.Barrier(tm) // a node keeps calling gocoll while its peers may need it
		}
		defer func() {
			nd.Rendezvous("rep", T)
			if err == nil {
				err = im.Barrier(tm)
			}
		}()
		list := func(n int) [][]particle {
			l := make([][]particle, T)
			for k := range l {
				l[k] = make([]particle, n)
			}
			return l
		}
		// broadcast from image 4 (node 2)
		dsts := list(1)
		var src []particle
		if first <= 4 && 4 < first+T {
			src = []particle{{1, 2, 3, 4}}
		}
		if err := coll.BroadcastMOf(im, tm, dsts, 4, src, 1, f); err != nil {
			return err
		}
		for k := range dsts {
			if dsts[k][0] != (particle{1, 2, 3, 4}) {
				return fmt.Errorf("broadcast to image %d: %v", first+k, dsts[k])
			}
		}
		// gather_all and exchange of int64
		srcs, all := make([][]int64, T), make([][]int64, T)
		xs, xd := make([][]int64, T), make([][]int64, T)
		for k := range srcs {
			me := int64(first + k)
			srcs[k], all[k] = []int64{me, -me}, make([]int64, 2*P)
			xs[k], xd[k] = make([]int64, P), make([]int64, P)
			for q := range P {
				xs[k][q] = me*100 + int64(q)
			}
		}
		if err := coll.GatherAllMOf(im, tm, all, srcs, 2, f); err != nil {
			return err
		}
		if err := coll.ExchangeMOf(im, tm, xd, xs, 1, f); err != nil {
			return err
		}
		for k := range all {
			for q := range P {
				if all[k][2*q] != int64(q) || all[k][2*q+1] != -int64(q) || xd[k][q] != int64(q*100+first+k) {
					return fmt.Errorf("image %d: gather_all %v exchange %v", first+k, all[k], xd[k])
				}
			}
		}
		// scatter from image 0, gather to image 5
		sd := make([][]int32, T)
		for k := range sd {
			sd[k] = make([]int32, 1)
		}
		var ssrc []int32
		if first == 0 {
			ssrc = []int32{10, 11, 12, 13, 14, 15}
		}
		if err := coll.ScatterMOf(im, tm, sd, 0, ssrc, 1, f); err != nil {
			return err
		}
		var gdst []int32
		if first+T == P {
			gdst = make([]int32, P)
		}
		if err := coll.GatherMOf(im, tm, P-1, gdst, sd, 1, f); err != nil {
			return err
		}
		for k := range sd {
			if sd[k][0] != int32(10+first+k) {
				return fmt.Errorf("scatter to image %d: %v", first+k, sd[k])
			}
		}
		if gdst != nil && fmt.Sprint(gdst) != "[10 11 12 13 14 15]" {
			return fmt.Errorf("gather: %v", gdst)
		}
		if _, err := coll.BroadcastMOfNB(im, tm, [][]*int{{nil}}, 0, nil, 1, f); !errors.Is(err, coll.ErrType) {
			return fmt.Errorf("pointers: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
