package gocoll_test

import (
	"errors"
	"fmt"
	"log"
	"math"
	"time"

	"github.com/gocoll/gocoll"
	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	"github.com/gocoll/gocoll/reducefn"
	gsync "github.com/gocoll/gocoll/sync"
)

// A whole program: every image counts the images, by a sum of ones. Run
// it under mpirun (mpirun -np 4 ./prog); without mpirun it is a job of
// one image.
func Example() {
	im, err := gocoll.Start()
	if err != nil {
		log.Fatal(err)
	}
	defer gocoll.Stop(im)
	n := make([]int, 1)
	if err := gocoll.ReduceAll(im, n, []int{1}, gocoll.Sum); err != nil {
		log.Fatal(err)
	}
	fmt.Println(n[0] == im.Images())
	// Output: true
}

// onFour runs body on four images in one process (package colltest's
// in-process conduit, as tests do; under mpirun, gocoll.Start gives each
// process its image instead), then closes them, as gocoll.Stop does: an
// image may owe the others progress after its last collective returned (a
// tree's inner node forwarding their blocks).
func onFour(body func(im *coll.Image) error) {
	err := colltest.Run(4, colltest.Options{}, coll.Options{}, time.Minute, func(im *coll.Image) error {
		return errors.Join(body(im), im.Close())
	})
	if err != nil {
		log.Fatal(err)
	}
}

func ExampleReduceAll() {
	onFour(func(im *coll.Image) error {
		me := float64(im.ImageNum())
		x := []float64{me, 1 - me}
		hi := make([]float64, 2)
		if err := gocoll.ReduceAll(im, hi, x, gocoll.Max); err != nil {
			return err
		}
		if im.ImageNum() == 0 {
			fmt.Println(hi)
		}
		return nil
	})
	// Output: [3 1]
}

func ExampleReduce() {
	onFour(func(im *coll.Image) error {
		x := []int{im.ImageNum() + 1}
		var prod []int // only the root needs a destination
		if im.ImageNum() == 0 {
			prod = make([]int, 1)
		}
		if err := gocoll.Reduce(im, 0, prod, x, gocoll.Prod); err != nil {
			return err
		}
		if im.ImageNum() == 0 {
			fmt.Println(prod)
		}
		return nil
	})
	// Output: [24]
}

func ExamplePrefixReduce() {
	onFour(func(im *coll.Image) error {
		x, upto := []int{10}, make([]int, 1)
		if err := gocoll.PrefixReduce(im, upto, x, gocoll.Sum); err != nil {
			return err
		}
		all := make([]int, 4)
		if err := gocoll.GatherAll(im, all, upto); err != nil {
			return err
		}
		if im.ImageNum() == 0 {
			fmt.Println(all)
		}
		return nil
	})
	// Output: [10 20 30 40]
}

func ExampleExclusivePrefixReduce() {
	onFour(func(im *coll.Image) error {
		// Where each image's 3 items start in a global numbering.
		start := []int{0}
		if err := gocoll.ExclusivePrefixReduce(im, start, []int{3}, gocoll.Sum); err != nil {
			return err
		}
		all := make([]int, 4)
		if err := gocoll.GatherAll(im, all, start); err != nil {
			return err
		}
		if im.ImageNum() == 0 {
			fmt.Println(all)
		}
		return nil
	})
	// Output: [0 3 6 9]
}

// MinLoc finds the smallest value and the image that holds it.
func ExampleMinLoc() {
	onFour(func(im *coll.Image) error {
		me := im.ImageNum()
		x := []reducefn.ValLoc[float64]{{Val: math.Abs(float64(me) - 2.2), Loc: int64(me)}}
		best := make([]reducefn.ValLoc[float64], 1)
		if err := gocoll.ReduceAll(im, best, x, gocoll.MinLoc); err != nil {
			return err
		}
		if me == 0 {
			fmt.Println("closest to 2.2: image", best[0].Loc)
		}
		return nil
	})
	// Output: closest to 2.2: image 2
}

func ExampleBroadcast() {
	onFour(func(im *coll.Image) error {
		var src []string2
		if im.ImageNum() == 1 {
			src = []string2{{'h', 'i'}}
		}
		dst := make([]string2, 1)
		if err := gocoll.Broadcast(im, dst, 1, src); err != nil {
			return err
		}
		if im.ImageNum() == 3 {
			fmt.Println(string(dst[0][:]))
		}
		return nil
	})
	// Output: hi
}

type string2 [2]byte

func ExampleScatter() {
	onFour(func(im *coll.Image) error {
		var src []int
		if im.ImageNum() == 0 {
			src = []int{0, 1, 10, 11, 20, 21, 30, 31}
		}
		mine := make([]int, 2)
		if err := gocoll.Scatter(im, mine, 0, src); err != nil {
			return err
		}
		if im.ImageNum() == 2 {
			fmt.Println(mine)
		}
		return nil
	})
	// Output: [20 21]
}

func ExampleGather() {
	onFour(func(im *coll.Image) error {
		var all []int
		if im.ImageNum() == 0 {
			all = make([]int, 4)
		}
		if err := gocoll.Gather(im, 0, all, []int{im.ImageNum() * im.ImageNum()}); err != nil {
			return err
		}
		if im.ImageNum() == 0 {
			fmt.Println(all)
		}
		return nil
	})
	// Output: [0 1 4 9]
}

func ExampleGatherAll() {
	onFour(func(im *coll.Image) error {
		all := make([]int32, 4)
		if err := gocoll.GatherAll(im, all, []int32{int32(100 + im.ImageNum())}); err != nil {
			return err
		}
		if im.ImageNum() == 3 {
			fmt.Println(all)
		}
		return nil
	})
	// Output: [100 101 102 103]
}

func ExampleExchange() {
	onFour(func(im *coll.Image) error {
		me := im.ImageNum()
		out := make([]int, 4) // block q goes to image q
		for q := range out {
			out[q] = 10*me + q
		}
		in := make([]int, 4)
		if err := gocoll.Exchange(im, in, out); err != nil {
			return err
		}
		if me == 1 {
			fmt.Println(in) // block q came from image q
		}
		return nil
	})
	// Output: [1 11 21 31]
}

// OnTeam runs a collective on a team: here the even and the odd images.
func ExampleOnTeam() {
	onFour(func(im *coll.Image) error {
		parity, err := im.Split(im.TeamAll(), im.ImageNum()%2, 0)
		if err != nil {
			return err
		}
		sum := make([]int, 1)
		if err := gocoll.ReduceAll(im, sum, []int{im.ImageNum()}, gocoll.Sum, gocoll.OnTeam(parity)); err != nil {
			return err
		}
		all := make([]int, 4)
		if err := gocoll.GatherAll(im, all, sum); err != nil {
			return err
		}
		if im.ImageNum() == 0 {
			fmt.Println(all)
		}
		return im.Destroy(parity)
	})
	// Output: [2 4 2 4]
}

// WithFlags gives the sync modes: here a root that returns as soon as its
// data left (OUT_NOSYNC), with SINGLE addressing (every argument on every
// image).
func ExampleWithFlags() {
	onFour(func(im *coll.Image) error {
		src := []float64{2.5}
		dst := make([]float64, 1)
		f := gsync.InMySync | gsync.OutNoSync | gsync.Single
		if err := gocoll.Broadcast(im, dst, 0, src, gocoll.WithFlags(f)); err != nil {
			return err
		}
		sum := make([]float64, 1)
		if err := gocoll.ReduceAll(im, sum, dst, gocoll.Sum); err != nil {
			return err
		}
		if im.ImageNum() == 0 {
			fmt.Println(sum)
		}
		return nil
	})
	// Output: [10]
}

// WithOptions passes the engine's options to Start: here the checked mode,
// in which the images agree on every collective's arguments first. (A
// process starts MPI once, so this example is built by go test but not
// run; examples/imagesum runs with these options under its test.)
func ExampleWithOptions() {
	im, err := gocoll.Start(gocoll.WithOptions(coll.Options{Check: true}))
	if err != nil {
		log.Fatal(err)
	}
	defer gocoll.Stop(im)
	// ... the program's collectives ...
}

// RunImages runs several images (goroutines) in each MPI process, each
// calling the collectives for itself. (Built by go test, not run, as for
// WithOptions: examples/imagesum is this program, run by its test in one
// process and under mpirun.)
func ExampleRunImages() {
	err := gocoll.RunImages(4, func(im *coll.Image) error {
		sum := make([]float64, 1)
		if err := gocoll.ReduceAll(im, sum, []float64{1}, gocoll.Sum); err != nil {
			return err
		}
		if im.ImageNum() == 0 {
			fmt.Println(sum[0] == float64(im.Images()))
		}
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
}
