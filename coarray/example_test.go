package coarray_test

import (
	"fmt"

	"github.com/gocoll/gocoll/coarray"
)

// Four images sum their indices, broadcast a string from image 2, reduce
// with a user operator onto image 1, and split into two teams by parity.
func Example() {
	mul := coarray.OperatorOf(func(a, b int64) int64 { return a * b }, 0)
	err := runImages([]int{1, 1, 1, 1}, 0, coarray.Options{Operators: []coarray.Operator{mul}}, true,
		func(img *coarray.Image) error {
			me := img.ThisImage()
			sum := me
			if err := coarray.CoSum(img, coarray.One(&sum)); err != nil {
				return err
			}
			word := []string{fmt.Sprint("from ", me)}
			if err := coarray.CoBroadcast(img, word, 2); err != nil {
				return err
			}
			fact := []int64{int64(me)}
			if err := coarray.CoReduce(img, fact, 0, coarray.ResultImage(1)); err != nil {
				return err
			}
			team, err := img.FormTeam(1+me%2, 0)
			if err != nil {
				return err
			}
			defer team.Free()
			return img.ChangeTeam(team, func(in *coarray.Image) error {
				top := []int{me}
				if err := coarray.CoMax(in, top); err != nil {
					return err
				}
				if me == 1 {
					fmt.Println(sum, word[0], fact[0], in.TeamNumber(), in.NumImages(), top[0])
				}
				return nil
			})
		})
	fmt.Println(err)
	// Output:
	// 10 from 2 24 2 2 3
	// <nil>
}

// STAT and ERRMSG are the error's Stat and text.
func ExampleStat() {
	err := runImages([]int{1, 1}, 0, coarray.Options{}, true, func(img *coarray.Image) error {
		err := coarray.CoSum(img, []float64{1}, coarray.ResultImage(3))
		if img.ThisImage() == 1 {
			fmt.Println(coarray.Stat(err), err)
		}
		return nil
	})
	fmt.Println(err)
	// Output:
	// 1 coarray: image index is not an image of the current team: 3, the team has images 1..2
	// <nil>
}
