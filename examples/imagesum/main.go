// Command imagesum is README's first program with several images (goroutines)
// in each MPI process: gocoll.RunImages instead of Start and Stop.
//
//	go build -o imagesum ./examples/imagesum && mpirun -np 2 ./imagesum -images 3
package main

import (
	"flag"
	"fmt"
	"log"

	"github.com/gocoll/gocoll"
	"github.com/gocoll/gocoll/coll"
)

func main() {
	k := flag.Int("images", 2, "images per process")
	flag.Parse()
	if err := sum(*k); err != nil {
		log.Fatal(err)
	}
}

// sum runs k images per process, image 0 printing the sum.
func sum(k int, opts ...gocoll.StartOption) error {
	return gocoll.RunImages(k, func(im *coll.Image) error {
		x := []float64{1, 2, float64(im.ImageNum())} // this image's vector
		sum := make([]float64, len(x))
		if err := gocoll.ReduceAll(im, sum, x, gocoll.Sum); err != nil {
			return err
		}
		if im.ImageNum() == 0 {
			fmt.Println(im.Images(), "images, sum:", sum)
		}
		return nil
	}, opts...)
}
