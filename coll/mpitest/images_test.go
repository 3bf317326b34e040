package mpitest

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	"github.com/gocoll/gocoll/images"
	"github.com/gocoll/gocoll/mpiconduit"
	"github.com/gocoll/gocoll/mpiconduit/mpi"
	"github.com/gocoll/gocoll/reducefn"
	gsync "github.com/gocoll/gocoll/sync"
)

// Functions of the images tests.
const (
	fnSum    = iota // int64 sum
	fnAffine        // composition of x -> a*x + b over int64: non-commutative
)

var fns = []reducefn.Entry{fnSum: reducefn.Sum[int64](), fnAffine: {Fn: affine, Flags: reducefn.NonComm}}

// affine composes maps (a, b) (x -> a*x + b), the left one applied first,
// in the callback's prefix shape.
func affine(results, left, right []byte, es int, _ reducefn.Flags, _ int) {
	var a, b int64 = 1, 0
	apply := func(e []byte) {
		a2, b2 := int64(binary.LittleEndian.Uint64(e)), int64(binary.LittleEndian.Uint64(e[8:]))
		a, b = a2*a, a2*b+b2
	}
	for i := 0; i+es <= len(left); i += es {
		apply(left[i : i+es])
	}
	for i := 0; i+es <= len(right); i += es {
		apply(right[i : i+es])
		binary.LittleEndian.PutUint64(results[i:], uint64(a))
		binary.LittleEndian.PutUint64(results[i+8:], uint64(b))
	}
}

// runImages runs fn on every image of this process, per[rank] of them,
// each on its own goroutine after its own coll.Init.
func runImages(per []int, opts coll.Options, fn func(im *coll.Image, nd *colltest.Node) error) error {
	return runImagesOn(mpiconduit.ConduitOptions{}, per, opts, fn)
}

// runImagesOn is runImages on a conduit made with options co.
func runImagesOn(co mpiconduit.ConduitOptions, per []int, opts coll.Options, fn func(im *coll.Image, nd *colltest.Node) error) error {
	return runImagesWith(co, per, opts, fns, fn)
}

// runImagesWith is runImagesOn with the function table table.
func runImagesWith(co mpiconduit.ConduitOptions, per []int, opts coll.Options, table []reducefn.Entry, fn func(im *coll.Image, nd *colltest.Node) error) error {
	w := mpi.World()
	tbl, err := images.New(per)
	if err != nil {
		return err
	}
	cd, err := mpiconduit.NewConduitWith(w, co)
	if err != nil {
		return err
	}
	me := w.Rank()
	nd := colltest.NewNode(per[me])
	errs := make([]error, per[me])
	var wg sync.WaitGroup
	for k := range per[me] {
		wg.Go(func() {
			img := tbl.First(me) + k
			im, err := coll.Init(cd, tbl, img, table, 0, opts)
			if err == nil {
				err = fn(im, nd)
			}
			if err != nil {
				errs[k] = fmt.Errorf("image %d (rank %d): %w", img, me, err)
			}
		})
	}
	wg.Wait()
	return errors.Join(append(errs, cd.Close())...)
}

// tables are the images tables at this rank count: T images on every
// rank for T = 1, 2, 4 (4 only up to np 4), and an uneven one.
func tables(np int) [][]int {
	var ts [][]int
	for _, T := range []int{1, 2, 4} {
		if T == 4 && np > 4 {
			continue
		}
		per := make([]int, np)
		for i := range per {
			per[i] = T
		}
		ts = append(ts, per)
	}
	uneven := make([]int, np)
	for i := range uneven {
		uneven[i] = 1 + (i+1)%3
	}
	return append(ts, uneven)
}

// TestImagesMatrixMPI runs the data-movement matrix with several images per
// rank, on TeamAll and on the odd/even split of it.
func TestImagesMatrixMPI(t *testing.T) {
	for _, per := range tables(mpi.World().Size()) {
		t.Run(fmt.Sprint(per), func(t *testing.T) {
			err := runImages(per, coll.Options{}, func(im *coll.Image, nd *colltest.Node) error {
				cfg := colltest.MatrixConfig{Sizes: []int{1, 100}, InFlight: 2}
				if err := colltest.Matrix(im, nd, im.TeamAll(), cfg); err != nil {
					return fmt.Errorf("TeamAll: %w", err)
				}
				half, err := im.Split(im.TeamAll(), im.ImageNum()%2, -im.ImageNum())
				if err != nil {
					return err
				}
				if err := colltest.Matrix(im, nd, half, cfg); err != nil {
					return fmt.Errorf("odd/even team: %w", err)
				}
				if err := im.Destroy(half); err != nil {
					return err
				}
				return im.Barrier(im.TeamAll())
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestImagesReductionsMPI: with several images per rank, integer sums and
// prefix sums of a blocked array equal native MPI's on the ranks' totals,
// and the non-commutative affine composition equals the sequential fold in
// image order, in every form.
func TestImagesReductionsMPI(t *testing.T) {
	w := mpi.World()
	for _, per := range tables(w.Size()) {
		t.Run(fmt.Sprint(per), func(t *testing.T) {
			var mu sync.Mutex
			sums := map[int]int64{} // this rank's images' local sums, by image
			err := runImages(per, coll.Options{}, func(im *coll.Image, nd *colltest.Node) error {
				return reduceImages(im, nd, &mu, sums)
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

func reduceImages(im *coll.Image, nd *colltest.Node, mu *sync.Mutex, sums map[int]int64) error {
	tm, img, P := im.TeamAll(), im.ImageNum(), im.Images()
	tb := im.Table()
	const k = 5 // elements per image, blocked
	value := func(j int) int64 { return int64(j*7919%1000003) - 500000 + int64(j%7)<<36 }
	mine := make([]int64, k)
	var local int64
	for i := range mine {
		mine[i] = value(img*k + i)
		local += mine[i]
	}
	// The native reference: each rank's total over its images, then
	// MPI_Allreduce and MPI_Exscan over ranks (one goroutine per rank).
	mu.Lock()
	sums[img] = local
	mu.Unlock()
	nd.Rendezvous("sums", nd.Images())
	var rankTotal, before, total int64
	mu.Lock()
	for i := range tb.On(im.Node()) {
		rankTotal += sums[tb.First(im.Node())+i]
	}
	for i := tb.First(im.Node()); i < img; i++ {
		before += sums[i]
	}
	mu.Unlock()
	var err error
	if img == tb.First(im.Node()) {
		w := mpi.World()
		out := []int64{0}
		if err = mpi.Allreduce(w, []int64{rankTotal}, out, mpi.OpSum); err == nil {
			total = out[0]
			err = mpi.Exscan(w, []int64{rankTotal}, out, mpi.OpSum)
			if w.Rank() == 0 {
				out[0] = 0
			}
		}
		mu.Lock()
		sums[-1], sums[-2] = total, out[0]
		mu.Unlock()
	}
	nd.Rendezvous("native", nd.Images())
	if err != nil {
		return err
	}
	mu.Lock()
	total, before = sums[-1], before+sums[-2]
	mu.Unlock()

	b := reducefn.Bytes[int64]
	blocked := coll.Layout{BlockSize: k}
	got := []int64{-1}
	if err := im.ReduceAll(tm, b(got), b(mine), blocked, 8, k*P, fnSum, 0, allMy); err != nil {
		return err
	}
	if got[0] != total {
		return fmt.Errorf("ReduceAll on image %d: %d, native %d", img, got[0], total)
	}
	pre := make([]int64, k)
	if err := im.PrefixReduce(tm, b(pre), blocked, b(mine), blocked, 8, k*P, fnSum, 0, allMy); err != nil {
		return err
	}
	acc := before
	for i, x := range mine {
		acc += x
		if pre[i] != acc {
			return fmt.Errorf("PrefixReduce on image %d element %d: %d, want %d", img, i, pre[i], acc)
		}
	}
	// Non-commutative, cyclic: the fold of every element in array order.
	count := 3*P + 1
	elem := func(j int) []int64 { return []int64{int64(1 + j%3), int64(j*31 - 7)} }
	want := []int64{1, 0}
	for j := range count {
		e := elem(j)
		want = []int64{e[0] * want[0], e[0]*want[1] + e[1]}
	}
	var src []int64
	for j := img; j < count; j += P {
		src = append(src, elem(j)...)
	}
	res := make([]int64, 2)
	if err := im.ReduceAll(tm, b(res), b(src), coll.Cyclic, 16, count, fnAffine, 0, allMy); err != nil {
		return err
	}
	if res[0] != want[0] || res[1] != want[1] {
		return fmt.Errorf("affine ReduceAll on image %d: %v, want %v", img, res, want)
	}
	// The same by a representative with the m form (Local lists).
	rep := img == tb.First(im.Node())
	nd.Rendezvous("rep", nd.Images())
	if rep {
		srcs, dsts := make([][]byte, tb.On(im.Node())), make([][]byte, tb.On(im.Node()))
		for i := range srcs {
			var s []int64
			for j := tb.First(im.Node()) + i; j < count; j += P {
				s = append(s, elem(j)...)
			}
			srcs[i], dsts[i] = b(s), make([]byte, 16)
		}
		if err := im.ReduceAllM(tm, dsts, srcs, coll.Cyclic, 16, count, fnAffine, 0, gsync.InMySync|gsync.OutMySync|gsync.Local); err != nil {
			return err
		}
		for i, d := range dsts {
			if int64(binary.LittleEndian.Uint64(d)) != want[0] || int64(binary.LittleEndian.Uint64(d[8:])) != want[1] {
				return fmt.Errorf("affine ReduceAllM for image %d: %x, want %v", tb.First(im.Node())+i, d, want)
			}
		}
	}
	nd.Rendezvous("rep", nd.Images())
	return im.Barrier(tm)
}

const allMy = gsync.InMySync | gsync.OutMySync | gsync.Local | gsync.AllThreads

// TestOverlappingTeamsMPI: two images per rank as a grid with two columns;
// every image starts a gather_all on its row and one on its column before
// syncing either, and the even and odd images broadcast on their own teams
// at the same time with no order between those two teams.
func TestOverlappingTeamsMPI(t *testing.T) {
	np := mpi.World().Size()
	per := make([]int, np)
	for i := range per {
		per[i] = 2
	}
	err := runImages(per, coll.Options{}, func(im *coll.Image, _ *colltest.Node) error {
		all, img := im.TeamAll(), im.ImageNum()
		row, err := im.Split(all, img/2, img) // a node's two images
		if err != nil {
			return err
		}
		col, err := im.Split(all, img%2, img) // one image of every node
		if err != nil {
			return err
		}
		for it := range 100 {
			rdst, cdst := make([]int64, row.Size()), make([]int64, col.Size())
			mine := []int64{int64(it*1000 + img)}
			b := reducefn.Bytes[int64]
			hr, err := im.GatherAllNB(row, b(rdst), b(mine), 8, allMy)
			if err != nil {
				return err
			}
			hc, err := im.GatherAllNB(col, b(cdst), b(mine), 8, allMy)
			if err != nil {
				return err
			}
			bc := []int64{-1}
			hb, err := im.BroadcastNB(col, b(bc), it%col.Size(), b(mine), 8, allMy)
			if err != nil {
				return err
			}
			if err := gsync.WaitAll(context.Background(), []gsync.Handle{hb, hc, hr}); err != nil {
				return err
			}
			for r, v := range rdst {
				if v != int64(it*1000+row.Image(r)) {
					return fmt.Errorf("it %d row block %d = %d", it, r, v)
				}
			}
			for r, v := range cdst {
				if v != int64(it*1000+col.Image(r)) {
					return fmt.Errorf("it %d column block %d = %d", it, r, v)
				}
			}
			if bc[0] != int64(it*1000+col.Image(it%col.Size())) {
				return fmt.Errorf("it %d column broadcast = %d", it, bc[0])
			}
		}
		for _, tm := range []*images.Team{row, col} {
			if err := im.Destroy(tm); err != nil {
				return err
			}
		}
		return im.Barrier(all)
	})
	if err != nil {
		t.Fatal(err)
	}
}
