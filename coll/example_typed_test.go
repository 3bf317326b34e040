package coll_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	"github.com/gocoll/gocoll/images"
	"github.com/gocoll/gocoll/reducefn"
	gsync "github.com/gocoll/gocoll/sync"
)

// onFour runs body on four in-process images and closes them (an image
// may owe the others progress after its last collective returned).
func onFour(body func(im *coll.Image, f gsync.Flags) error) {
	f := gsync.InMySync | gsync.OutMySync | gsync.Local
	err := colltest.Run(4, colltest.Options{}, coll.Options{}, time.Minute, func(im *coll.Image) error {
		return errors.Join(body(im, f), im.Close())
	})
	if err != nil {
		log.Fatal(err)
	}
}

// The built-in operations work on the element types MPI's do; a vector
// per image is reduced lane by lane.
func ExampleOp() {
	onFour(func(im *coll.Image, f gsync.Flags) error {
		me := int64(im.ImageNum())
		x := []int64{me, 1 << me, me % 2}
		out := make([]int64, 3)
		for _, op := range []coll.Op{coll.Sum, coll.Max, coll.BitOr, coll.LogAnd} {
			if err := coll.ReduceAllOf(im, im.TeamAll(), out, x, op, f); err != nil {
				return err
			}
			if me == 0 {
				fmt.Println(op, out)
			}
		}
		return nil
	})
	// Output:
	// Sum [6 15 2]
	// Max [3 8 1]
	// BitOr [3 15 1]
	// LogAnd [0 1 0]
}

// shear2 is a 2x2 matrix; its product is associative but not commutative.
type shear2 [4]int

var shearMul = coll.OpOf(func(a, b shear2) shear2 {
	return shear2{a[0]*b[0] + a[1]*b[2], a[0]*b[1] + a[1]*b[3], a[2]*b[0] + a[3]*b[2], a[2]*b[1] + a[3]*b[3]}
}, false)

// A user operation, not commutative: the images' matrices multiplied in
// rank order. Make operations once, as package-level variables.
func ExampleOpOf() {
	onFour(func(im *coll.Image, f gsync.Flags) error {
		m := []shear2{{1, im.ImageNum(), 0, 1}} // a shear by the image number
		prod := make([]shear2, 1)
		if err := coll.ReduceAllOf(im, im.TeamAll(), prod, m, shearMul, f); err != nil {
			return err
		}
		if im.ImageNum() == 0 {
			fmt.Println(prod[0])
		}
		return nil
	})
	// Output: [1 6 0 1]
}

var absMax = coll.SliceOpOf(func(dst, a, b []float64) {
	for i := range dst {
		dst[i] = max(abs(a[i]), abs(b[i]))
	}
}, true)

func abs(x float64) float64 { return max(x, -x) }

// A user operation on whole vectors.
func ExampleSliceOpOf() {
	onFour(func(im *coll.Image, f gsync.Flags) error {
		x := []float64{float64(-im.ImageNum()), 0.5}
		out := make([]float64, 2)
		if err := coll.ReduceAllOf(im, im.TeamAll(), out, x, absMax, f); err != nil {
			return err
		}
		if im.ImageNum() == 0 {
			fmt.Println(out)
		}
		return nil
	})
	// Output: [3 0.5]
}

func ExampleReduceAllOf() {
	onFour(func(im *coll.Image, f gsync.Flags) error {
		x := []reducefn.ValLoc[float64]{{Val: float64((im.ImageNum() + 2) % 4), Loc: int64(im.ImageNum())}}
		low := make([]reducefn.ValLoc[float64], 1)
		if err := coll.ReduceAllOf(im, im.TeamAll(), low, x, coll.MinLoc, f); err != nil {
			return err
		}
		if im.ImageNum() == 3 {
			fmt.Printf("least %v, on image %d\n", low[0].Val, low[0].Loc)
		}
		return nil
	})
	// Output: least 0, on image 2
}

// The non-blocking form overlaps the reduction with other work.
func ExampleReduceAllOfNB() {
	onFour(func(im *coll.Image, f gsync.Flags) error {
		sum := make([]float64, 1)
		h, err := coll.ReduceAllOfNB(im, im.TeamAll(), sum, []float64{0.25}, coll.Sum, f)
		if err != nil {
			return err
		}
		// ... work that touches neither buffer ...
		if err := h.Wait(context.Background()); err != nil {
			return err
		}
		if im.ImageNum() == 0 {
			fmt.Println(sum)
		}
		return nil
	})
	// Output: [1]
}

func ExampleReduceOf() {
	onFour(func(im *coll.Image, f gsync.Flags) error {
		var total []int
		if im.ImageNum() == 1 {
			total = make([]int, 1) // the root's alone (LOCAL addressing)
		}
		if err := coll.ReduceOf(im, im.TeamAll(), 1, total, []int{im.ImageNum()}, coll.Sum, f); err != nil {
			return err
		}
		if im.ImageNum() == 1 {
			fmt.Println(total)
		}
		return nil
	})
	// Output: [6]
}

func ExamplePrefixReduceOf() {
	onFour(func(im *coll.Image, f gsync.Flags) error {
		upto := make([]int, 1)
		if err := coll.PrefixReduceOf(im, im.TeamAll(), upto, []int{im.ImageNum() + 1}, coll.Prod, f); err != nil {
			return err
		}
		if im.ImageNum() == 3 {
			fmt.Println(upto) // 1*2*3*4
		}
		return nil
	})
	// Output: [24]
}

func ExampleExclusivePrefixReduceOf() {
	onFour(func(im *coll.Image, f gsync.Flags) error {
		before := make([]int, 1)
		if err := coll.ExclusivePrefixReduceOf(im, im.TeamAll(), before, []int{10}, coll.Sum, f); err != nil {
			return err
		}
		if im.ImageNum() == 2 {
			fmt.Println(before) // images 0 and 1 brought 10 each
		}
		return nil
	})
	// Output: [20]
}

func ExampleReduceOfNB() {
	onFour(func(im *coll.Image, f gsync.Flags) error {
		var best []float64
		if im.ImageNum() == 0 {
			best = make([]float64, 1)
		}
		h, err := coll.ReduceOfNB(im, im.TeamAll(), 0, best, []float64{float64(im.ImageNum()) / 2}, coll.Max, f)
		if err != nil {
			return err
		}
		if err := h.Wait(context.Background()); err != nil {
			return err
		}
		if best != nil {
			fmt.Println(best)
		}
		return nil
	})
	// Output: [1.5]
}

func ExamplePrefixReduceOfNB() {
	onFour(func(im *coll.Image, f gsync.Flags) error {
		upto := make([]int, 1)
		h, err := coll.PrefixReduceOfNB(im, im.TeamAll(), upto, []int{1}, coll.Sum, f)
		if err != nil {
			return err
		}
		if err := h.Wait(context.Background()); err != nil {
			return err
		}
		if im.ImageNum() == 2 {
			fmt.Println(upto) // images 0, 1 and 2
		}
		return nil
	})
	// Output: [3]
}

func ExampleExclusivePrefixReduceOfNB() {
	onFour(func(im *coll.Image, f gsync.Flags) error {
		below := make([]int, 1)
		h, err := coll.ExclusivePrefixReduceOfNB(im, im.TeamAll(), below, []int{im.ImageNum()}, coll.Max, f)
		if err != nil {
			return err
		}
		if err := h.Wait(context.Background()); err != nil {
			return err
		}
		if im.ImageNum() == 3 {
			fmt.Println(below) // the greatest of images 0..2
		}
		return nil
	})
	// Output: [2]
}

// onTwoByTwo runs body on two nodes of two in-process images each: the
// m forms are called by each node's first image, for both of the node's
// images (first and first+1), while the other waits.
func onTwoByTwo(body func(im *coll.Image, first int, f gsync.Flags) error) {
	f := gsync.InMySync | gsync.OutMySync | gsync.Local
	err := colltest.RunImages([]int{2, 2}, colltest.Options{}, coll.Options{}, nil, time.Minute,
		func(im *coll.Image, nd *colltest.Node) error {
			first := im.Table().First(im.Node())
			nd.Rendezvous("m", 2)
			var err error
			if im.ImageNum() == first {
				err = body(im, first, f)
			}
			nd.Rendezvous("m", 2)
			return errors.Join(err, im.Close())
		})
	if err != nil {
		log.Fatal(err)
	}
}

// The m form: each node's first image reduces for both of its images (a
// vector each).
func ExampleReduceAllMOf() {
	onTwoByTwo(func(im *coll.Image, first int, f gsync.Flags) error {
		srcs := [][]int{{first, 1}, {first + 1, 1}} // the node's two images' vectors
		dsts := [][]int{make([]int, 2), make([]int, 2)}
		if err := coll.ReduceAllMOf(im, im.TeamAll(), dsts, srcs, coll.Sum, f); err != nil {
			return err
		}
		if first == 0 {
			fmt.Println(dsts[0], dsts[1])
		}
		return nil
	})
	// Output: [6 4] [6 4]
}

func ExampleReduceAllMOfNB() {
	onTwoByTwo(func(im *coll.Image, first int, f gsync.Flags) error {
		srcs := [][]float64{{0.5}, {0.5}}
		dsts := [][]float64{make([]float64, 1), make([]float64, 1)}
		h, err := coll.ReduceAllMOfNB(im, im.TeamAll(), dsts, srcs, coll.Sum, f)
		if err != nil {
			return err
		}
		if err := h.Wait(context.Background()); err != nil {
			return err
		}
		if first == 2 {
			fmt.Println(dsts[1])
		}
		return nil
	})
	// Output: [2]
}

// The root's node passes the root's destination; the other node passes nil.
func ExampleReduceMOf() {
	onTwoByTwo(func(im *coll.Image, first int, f gsync.Flags) error {
		var dst []int
		if first == 2 {
			dst = make([]int, 1) // image 3's, the root
		}
		srcs := [][]int{{first}, {first + 1}}
		if err := coll.ReduceMOf(im, im.TeamAll(), 3, dst, srcs, coll.Max, f); err != nil {
			return err
		}
		if dst != nil {
			fmt.Println(dst)
		}
		return nil
	})
	// Output: [3]
}

func ExampleReduceMOfNB() {
	onTwoByTwo(func(im *coll.Image, first int, f gsync.Flags) error {
		var dst []int
		if first == 0 {
			dst = make([]int, 1) // image 0's, the root
		}
		h, err := coll.ReduceMOfNB(im, im.TeamAll(), 0, dst, [][]int{{1}, {1}}, coll.Sum, f)
		if err != nil {
			return err
		}
		if err := h.Wait(context.Background()); err != nil {
			return err
		}
		if dst != nil {
			fmt.Println(dst)
		}
		return nil
	})
	// Output: [4]
}

func ExamplePrefixReduceMOf() {
	onTwoByTwo(func(im *coll.Image, first int, f gsync.Flags) error {
		srcs := [][]int{{first + 1}, {first + 2}}
		dsts := [][]int{make([]int, 1), make([]int, 1)}
		if err := coll.PrefixReduceMOf(im, im.TeamAll(), dsts, srcs, coll.Sum, f); err != nil {
			return err
		}
		if first == 2 {
			fmt.Println(dsts[0], dsts[1]) // images 2 and 3: 1+2+3, 1+2+3+4
		}
		return nil
	})
	// Output: [6] [10]
}

func ExamplePrefixReduceMOfNB() {
	onTwoByTwo(func(im *coll.Image, first int, f gsync.Flags) error {
		srcs := [][]int{{2}, {2}}
		dsts := [][]int{make([]int, 1), make([]int, 1)}
		h, err := coll.PrefixReduceMOfNB(im, im.TeamAll(), dsts, srcs, coll.Prod, f)
		if err != nil {
			return err
		}
		if err := h.Wait(context.Background()); err != nil {
			return err
		}
		if first == 2 {
			fmt.Println(dsts[0], dsts[1])
		}
		return nil
	})
	// Output: [8] [16]
}

func ExampleExclusivePrefixReduceMOf() {
	onTwoByTwo(func(im *coll.Image, first int, f gsync.Flags) error {
		srcs := [][]int{{10}, {10}}
		dsts := [][]int{make([]int, 1), make([]int, 1)}
		if err := coll.ExclusivePrefixReduceMOf(im, im.TeamAll(), dsts, srcs, coll.Sum, f); err != nil {
			return err
		}
		if first == 2 {
			fmt.Println(dsts[0], dsts[1]) // images 2 and 3: what 0..1 and 0..2 brought
		}
		return nil
	})
	// Output: [20] [30]
}

func ExampleExclusivePrefixReduceMOfNB() {
	onTwoByTwo(func(im *coll.Image, first int, f gsync.Flags) error {
		srcs := [][]int{{first}, {first + 1}}
		dsts := [][]int{make([]int, 1), make([]int, 1)}
		h, err := coll.ExclusivePrefixReduceMOfNB(im, im.TeamAll(), dsts, srcs, coll.Max, f)
		if err != nil {
			return err
		}
		if err := h.Wait(context.Background()); err != nil {
			return err
		}
		if first == 2 {
			fmt.Println(dsts[0], dsts[1])
		}
		return nil
	})
	// Output: [1] [2]
}

// A plan of a dot product's sum, made once and started at every step of
// an iteration, as MPI_Allreduce_init and MPI_Start: each start runs the
// recorded call on the same buffers, with no checks and no allocation.
func ExampleImage_NewPlan() {
	onFour(func(im *coll.Image, f gsync.Flags) error {
		local, dot := make([]float64, 1), make([]float64, 1)
		p, err := im.NewPlan(func() error {
			return coll.ReduceAllOf(im, im.TeamAll(), dot, local, coll.Sum, f)
		})
		if err != nil {
			return err
		}
		for step := 1; step <= 3; step++ {
			local[0] = float64(step * im.ImageNum())
			if err := p.Run(); err != nil {
				return err
			}
			if im.ImageNum() == 0 {
				fmt.Println("step", step, "dot", dot[0])
			}
		}
		return p.Free()
	})
	// Output:
	// step 1 dot 6
	// step 2 dot 12
	// step 3 dot 18
}

// A gather_all of blocks of different lengths (MPI_Allgatherv): image r
// brings r elements, and every image places the blocks where its
// displacements say.
func ExampleGatherAllVOf() {
	onFour(func(im *coll.Image, f gsync.Flags) error {
		me := im.ImageNum()
		mine := make([]int32, me)
		for i := range mine {
			mine[i] = int32(10*me + i)
		}
		counts, displs := []int{0, 1, 2, 3}, []int{0, 0, 1, 3}
		all := make([]int32, 6)
		if err := coll.GatherAllVOf(im, im.TeamAll(), all, counts, displs, mine, f); err != nil {
			return err
		}
		if me == 0 {
			fmt.Println(all)
		}
		return nil
	})
	// Output:
	// [10 20 21 30 31 32]
}

// A halo exchange on a line of four images (MPI_Neighbor_alltoall on a
// Cartesian grid): each image sends its first value to the image below and
// its last to the image above, and receives theirs. The ends of the line
// have no neighbour on one side (images.NoNeighbor), where the halo keeps
// its value.
func ExampleNeighborExchangeOf() {
	onFour(func(im *coll.Image, f gsync.Flags) error {
		tm := im.TeamAll()
		g, err := images.NewGrid(tm, []int{4}, []bool{false})
		if err != nil {
			return err
		}
		me := tm.Rank(im.ImageNum())
		edges := []float64{float64(10 * me), float64(10*me + 9)} // to below, to above
		halos := []float64{-1, -1}                               // from below, from above
		if err := coll.NeighborExchangeOf(im, g, halos, edges, 1, f); err != nil {
			return err
		}
		all := make([]float64, 8)
		if err := coll.GatherOf(im, tm, 0, all, halos, 2, f); err != nil {
			return err
		}
		if me == 0 {
			for r := range 4 {
				fmt.Println("image", r, "neighbours", g.Neighbors(r), "halos", all[2*r:2*r+2])
			}
		}
		return nil
	})
	// Output:
	// image 0 neighbours [-1 1] halos [-1 10]
	// image 1 neighbours [0 2] halos [9 20]
	// image 2 neighbours [1 3] halos [19 30]
	// image 3 neighbours [2 -1] halos [29 -1]
}
