package colltest

import (
	"context"
	"fmt"
	"slices"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/images"
	"github.com/gocoll/gocoll/reducefn"
	gsync "github.com/gocoll/gocoll/sync"
)

// VCalls runs the v-variants (GatherV, ScatterV, GatherAllV, ExchangeV)
// steps times on team t with counts that change from step to step (zeros
// included) and displacements that put the blocks in another order on
// every image, with a gap after each; every block is checked against a
// serial model, and every gap against the value it held before (in step
// 4, ExchangeV's blocks are thousands of times larger). Steps alternate
// blocking and NB forms, and typed (int32) and byte forms. f is the calls'
// flags.
func VCalls(im *coll.Image, t *images.Team, f gsync.Flags, steps int) error {
	P, me := t.Size(), t.Rank(im.ImageNum())
	for step := range steps {
		nb, typed := step%2 == 1, step%4 < 2
		root := step % P
		counts := vCounts(P, step)
		for _, k := range []func() error{
			func() error { return vGather(im, t, f, nb, typed, root, me, step, counts) },
			func() error { return vScatter(im, t, f, nb, typed, root, me, step, counts) },
			func() error { return vGatherAll(im, t, f, nb, typed, me, step, counts) },
			func() error { return vExchange(im, t, f, nb, typed, me, step) },
		} {
			if err := k(); err != nil {
				return fmt.Errorf("step %d (nb %v, typed %v): %w", step, nb, typed, err)
			}
		}
	}
	return nil
}

// vCounts are the counts of a step: 0 to 4 elements, some ranks none.
func vCounts(P, step int) []int {
	c := make([]int, P)
	for r := range c {
		c[r] = (r*7 + step*3) % 5
	}
	return c
}

// vPlace lays out blocks of counts in the buffer of image me: in rank
// order rotated by me and reversed, each followed by a gap of one
// element. It returns the displacements and the buffer's length.
func vPlace(counts []int, me int) (displs []int, n int) {
	P := len(counts)
	displs = make([]int, P)
	for i := range P {
		r := (P - 1 - i + me) % P
		displs[r] = n
		n += counts[r] + 1
	}
	return displs, n
}

// vVal is element e of the block that image `from` gives image `to` in
// step.
func vVal(step, from, to, e int) int32 { return int32(step*100000 + from*1000 + to*10 + e) }

const vGap = -7 // what gaps hold before and after

// vBuffer is a buffer of n elements holding vGap.
func vBuffer(n int) []int32 {
	b := make([]int32, n)
	for i := range b {
		b[i] = vGap
	}
	return b
}

// vWait syncs an NB form's handle.
func vWait(h gsync.Handle, err error) error {
	if err != nil {
		return err
	}
	return h.Wait(context.Background())
}

// scaled is l in bytes: int32 elements.
func scaled(l []int) []int {
	out := make([]int, len(l))
	for i, x := range l {
		out[i] = 4 * x
	}
	return out
}

// checkBlocks checks buffer b of image me, laid out by displs, against
// want(r, e) for the blocks of counts, and vGap everywhere else.
func checkBlocks(name string, b []int32, counts, displs []int, want func(r, e int) int32) error {
	expect := vBuffer(len(b))
	for r, c := range counts {
		for e := range c {
			expect[displs[r]+e] = want(r, e)
		}
	}
	if !slices.Equal(b, expect) {
		return fmt.Errorf("%s: got %v, want %v (counts %v, displs %v)", name, b, expect, counts, displs)
	}
	return nil
}

func vGather(im *coll.Image, t *images.Team, f gsync.Flags, nb, typed bool, root, me, step int, counts []int) error {
	displs, n := vPlace(counts, me)
	dst := vBuffer(n)
	src := make([]int32, counts[me]+1)
	for e := range src {
		src[e] = vVal(step, me, root, e)
	}
	var err error
	switch {
	case typed && nb:
		err = vWait(coll.GatherVOfNB(im, t, root, dst, counts, displs, src, f))
	case typed:
		err = coll.GatherVOf(im, t, root, dst, counts, displs, src, f)
	case nb:
		err = vWait(im.GatherVNB(t, root, reducefn.Bytes(dst), scaled(counts), scaled(displs), reducefn.Bytes(src), f))
	default:
		err = im.GatherV(t, root, reducefn.Bytes(dst), scaled(counts), scaled(displs), reducefn.Bytes(src), f)
	}
	if err != nil {
		return fmt.Errorf("GatherV: %w", err)
	}
	if me != root {
		return checkBlocks("GatherV off the root", dst, nil, nil, nil)
	}
	return checkBlocks("GatherV", dst, counts, displs, func(r, e int) int32 { return vVal(step, r, root, e) })
}

func vScatter(im *coll.Image, t *images.Team, f gsync.Flags, nb, typed bool, root, me, step int, counts []int) error {
	displs, n := vPlace(counts, me)
	src := vBuffer(n)
	for r, c := range counts {
		for e := range c {
			src[displs[r]+e] = vVal(step, root, r, e)
		}
	}
	dst := vBuffer(counts[me] + 1)
	var err error
	switch {
	case typed && nb:
		err = vWait(coll.ScatterVOfNB(im, t, dst, root, src, counts, displs, f))
	case typed:
		err = coll.ScatterVOf(im, t, dst, root, src, counts, displs, f)
	case nb:
		err = vWait(im.ScatterVNB(t, reducefn.Bytes(dst), root, reducefn.Bytes(src), scaled(counts), scaled(displs), f))
	default:
		err = im.ScatterV(t, reducefn.Bytes(dst), root, reducefn.Bytes(src), scaled(counts), scaled(displs), f)
	}
	if err != nil {
		return fmt.Errorf("ScatterV: %w", err)
	}
	return checkBlocks("ScatterV", dst, counts[me:me+1], []int{0}, func(_, e int) int32 { return vVal(step, root, me, e) })
}

func vGatherAll(im *coll.Image, t *images.Team, f gsync.Flags, nb, typed bool, me, step int, counts []int) error {
	displs, n := vPlace(counts, me)
	dst := vBuffer(n)
	src := make([]int32, counts[me])
	for e := range src {
		src[e] = vVal(step, me, -1, e)
	}
	var err error
	switch {
	case typed && nb:
		err = vWait(coll.GatherAllVOfNB(im, t, dst, counts, displs, src, f))
	case typed:
		err = coll.GatherAllVOf(im, t, dst, counts, displs, src, f)
	case nb:
		err = vWait(im.GatherAllVNB(t, reducefn.Bytes(dst), scaled(counts), scaled(displs), reducefn.Bytes(src), f))
	default:
		err = im.GatherAllV(t, reducefn.Bytes(dst), scaled(counts), scaled(displs), reducefn.Bytes(src), f)
	}
	if err != nil {
		return fmt.Errorf("GatherAllV: %w", err)
	}
	return checkBlocks("GatherAllV", dst, counts, displs, func(r, e int) int32 { return vVal(step, r, -1, e) })
}

// vPair is the count image i sends image j in step: 0 to 3, some none.
func vPair(i, j, step int) int { return (i*3 + j*5 + step) % 4 }

func vExchange(im *coll.Image, t *images.Team, f gsync.Flags, nb, typed bool, me, step int) error {
	P := t.Size()
	scale := 1
	if step%5 == 4 {
		scale = 3000 // blocks of up to 36 KB: a node's pieces to another travel as messages of their own
	}
	sc, rc := make([]int, P), make([]int, P)
	for j := range P {
		sc[j], rc[j] = scale*vPair(me, j, step), scale*vPair(j, me, step)
	}
	sd, sn := vPlace(sc, me)
	rd, rn := vPlace(rc, me+1)
	src, dst := vBuffer(sn), vBuffer(rn)
	for j, c := range sc {
		for e := range c {
			src[sd[j]+e] = vVal(step, me, j, e)
		}
	}
	var err error
	switch {
	case typed && nb:
		err = vWait(coll.ExchangeVOfNB(im, t, dst, rc, rd, src, sc, sd, f))
	case typed:
		err = coll.ExchangeVOf(im, t, dst, rc, rd, src, sc, sd, f)
	case nb:
		err = vWait(im.ExchangeVNB(t, reducefn.Bytes(dst), scaled(rc), scaled(rd), reducefn.Bytes(src), scaled(sc), scaled(sd), f))
	default:
		err = im.ExchangeV(t, reducefn.Bytes(dst), scaled(rc), scaled(rd), reducefn.Bytes(src), scaled(sc), scaled(sd), f)
	}
	if err != nil {
		return fmt.Errorf("ExchangeV: %w", err)
	}
	return checkBlocks("ExchangeV", dst, rc, rd, func(i, e int) int32 { return vVal(step, i, me, e) })
}

// affine composes affine maps x -> a[0]x + a[1] (left first): associative,
// not commutative, so a fold out of rank order shows.
var affine = coll.OpOf(func(a, b [2]int64) [2]int64 { return [2]int64{a[0] * b[0], a[1]*b[0] + b[1]} }, false)

// ReduceScatters runs the reduce-scatters steps times on team t: a sum of
// int64 and a non-commutative fold of affine maps, with counts that change
// from step to step (zeros included), and ReduceScatterBlockOf; blocking
// and NB in turn. Each image's part is checked against the serial fold,
// and the element after it against being written.
func ReduceScatters(im *coll.Image, t *images.Team, f gsync.Flags, steps int) error {
	P, me := t.Size(), t.Rank(im.ImageNum())
	for step := range steps {
		nb := step%2 == 1
		counts := vCounts(P, step)
		if slices.Max(counts) == 0 {
			counts[0] = 1
		}
		total, at := 0, 0
		for r, c := range counts {
			if r == me {
				at = total
			}
			total += c
		}
		// a sum of int64
		val := func(r, i int) int64 { return int64(step*1000 + r*10 + i) }
		src := make([]int64, total)
		for i := range src {
			src[i] = val(me, i)
		}
		dst := make([]int64, counts[me]+1)
		dst[counts[me]] = vGap
		var err error
		if nb {
			err = vWait(coll.ReduceScatterOfNB(im, t, dst, src, counts, coll.Sum, f))
		} else {
			err = coll.ReduceScatterOf(im, t, dst, src, counts, coll.Sum, f)
		}
		if err != nil {
			return fmt.Errorf("step %d: ReduceScatterOf sum: %w", step, err)
		}
		want := make([]int64, counts[me]+1)
		want[counts[me]] = vGap
		for i := range counts[me] {
			for r := range P {
				want[i] += val(r, at+i)
			}
		}
		if !slices.Equal(dst, want) {
			return fmt.Errorf("step %d: ReduceScatterOf sum (counts %v): %v, want %v", step, counts, dst, want)
		}
		// a fold of affine maps, in rank order
		aff := func(r, i int) [2]int64 { return [2]int64{int64(r%3 + 1), int64(step + r*7 + i)} }
		asrc := make([][2]int64, total)
		for i := range asrc {
			asrc[i] = aff(me, i)
		}
		adst := make([][2]int64, counts[me])
		if nb {
			err = vWait(coll.ReduceScatterOfNB(im, t, adst, asrc, counts, affine, f))
		} else {
			err = coll.ReduceScatterOf(im, t, adst, asrc, counts, affine, f)
		}
		if err != nil {
			return fmt.Errorf("step %d: ReduceScatterOf affine: %w", step, err)
		}
		for i := range counts[me] {
			w := aff(0, at+i)
			for r := 1; r < P; r++ {
				b := aff(r, at+i)
				w = [2]int64{w[0] * b[0], w[1]*b[0] + b[1]}
			}
			if adst[i] != w {
				return fmt.Errorf("step %d: ReduceScatterOf affine (counts %v) lane %d: %v, want %v", step, counts, i, adst[i], w)
			}
		}
		// equal blocks
		bsrc, bdst := make([]int64, 2*P), make([]int64, 2)
		for i := range bsrc {
			bsrc[i] = val(me, i)
		}
		if err := coll.ReduceScatterBlockOf(im, t, bdst, bsrc, coll.Sum, f); err != nil {
			return fmt.Errorf("step %d: ReduceScatterBlockOf: %w", step, err)
		}
		for i := range 2 {
			var w int64
			for r := range P {
				w += val(r, 2*me+i)
			}
			if bdst[i] != w {
				return fmt.Errorf("step %d: ReduceScatterBlockOf lane %d: %d, want %d", step, i, bdst[i], w)
			}
		}
	}
	return nil
}
