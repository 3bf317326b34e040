package main

import (
	"fmt"
	"log"

	"github.com/gocoll/gocoll"
)

func main() {
	im, err := gocoll.Start()
	if err != nil {
		log.Fatal(err)
	}
	defer gocoll.Stop(im)
	x := []float64{1, 2, float64(im.ImageNum())} // this image's vector
	sum := make([]float64, len(x))
	if err := gocoll.ReduceAll(im, sum, x, gocoll.Sum); err != nil {
		log.Fatal(err)
	}
	if im.ImageNum() == 0 {
		fmt.Println(im.Images(), "images, sum:", sum)
	}
}
