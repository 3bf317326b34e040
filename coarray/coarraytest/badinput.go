package coarraytest

import (
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/gocoll/gocoll/coarray"
)

// counter is not pure: it keeps state between calls.
type counter struct{ n atomic.Int64 }

func (c *counter) op(a, b int64) int64 { return a + b + c.n.Add(1) }

// Check is one bad input case.
type Check struct {
	Name string
	// Want is the error every image must get (errors.Is and the same STAT).
	Want error
	// Checked: the case needs the checked mode (the images disagree).
	Checked bool
	// Run makes the bad call on one image: it needs BadOperators at Init.
	Run func(img *coarray.Image) error
}

var ctr = &counter{}

// BadOperators are the operators BadInput's cases use, to give Init.
var BadOperators = []coarray.Operator{
	coarray.OperatorOf(func(a, b int64) int64 { return a + b }, 0),
	coarray.OperatorOf(func(a, b int64) int64 { panic("boom") }, 0),
	coarray.OperatorOf(ctr.op, 0),
	coarray.OperatorOf(func(a, b string) string { return a + b }, 0),
}

// RunCheck runs c on img and checks the error, then that the team still
// works.
func RunCheck(img *coarray.Image, c Check) error {
	err := c.Run(img)
	if !errors.Is(err, c.Want) {
		return fmt.Errorf("%s: got %v, want %v", c.Name, err, c.Want)
	}
	if want := coarray.Stat(c.Want); coarray.Stat(err) != want {
		return fmt.Errorf("%s: STAT %d, want %d", c.Name, coarray.Stat(err), want)
	}
	x := []int{1}
	if err := coarray.CoSum(img, x); err != nil || x[0] != img.NumImages() {
		return fmt.Errorf("%s: after the error: %v, %v", c.Name, x, err)
	}
	return nil
}

// BadInput is the list of misuses: each gives its named error (and STAT)
// on every image, never a hang.
var BadInput = []Check{
	{"source image 0", coarray.ErrInvalidImage, false, func(img *coarray.Image) error {
		return coarray.CoBroadcast(img, []int{1}, 0)
	}},
	{"source image beyond the team", coarray.ErrInvalidImage, false, func(img *coarray.Image) error {
		return coarray.CoBroadcast(img, []int{1}, img.NumImages()+1)
	}},
	{"result image beyond the team", coarray.ErrInvalidImage, false, func(img *coarray.Image) error {
		return coarray.CoSum(img, []float64{1}, coarray.ResultImage(img.NumImages()+1))
	}},
	{"result image negative", coarray.ErrInvalidImage, false, func(img *coarray.Image) error {
		return coarray.CoMax(img, []int8{1}, coarray.ResultImage(-1))
	}},
	{"result image on one image only", coarray.ErrInvalidImage, true, func(img *coarray.Image) error {
		ri := 1
		if img.ThisImage() == img.NumImages() {
			ri = 99
		}
		return coarray.CoSum(img, []float64{1}, coarray.ResultImage(ri))
	}},
	{"mismatched lengths", coarray.ErrMismatch, true, func(img *coarray.Image) error {
		if img.NumImages() == 1 {
			return coarray.ErrMismatch // one image always agrees
		}
		return coarray.CoSum(img, make([]int32, img.ThisImage()))
	}},
	{"mismatched result images", coarray.ErrMismatch, true, func(img *coarray.Image) error {
		if img.NumImages() == 1 {
			return coarray.ErrMismatch // one image always agrees
		}
		return coarray.CoMin(img, []float32{1}, coarray.ResultImage(img.ThisImage()))
	}},
	{"mismatched source images", coarray.ErrMismatch, true, func(img *coarray.Image) error {
		if img.NumImages() == 1 {
			return coarray.ErrMismatch // one image always agrees
		}
		return coarray.CoBroadcast(img, []int{1}, img.ThisImage())
	}},
	{"pointer type", coarray.ErrType, false, func(img *coarray.Image) error {
		return coarray.CoBroadcast(img, []*int{nil}, 1)
	}},
	{"operator of another type", coarray.ErrType, false, func(img *coarray.Image) error {
		return coarray.CoReduce(img, []int32{1}, 0)
	}},
	{"operator not registered", coarray.ErrOperator, false, func(img *coarray.Image) error {
		return coarray.CoReduce(img, []int64{1}, 9)
	}},
	{"string longer than CharLen", coarray.ErrLength, false, func(img *coarray.Image) error {
		return coarray.CoMax(img, []string{"abcdef"}, coarray.CharLen(3))
	}},
	{"operator result longer than the character length", coarray.ErrLength, false, func(img *coarray.Image) error {
		if img.NumImages() == 1 {
			return fmt.Errorf("%w: (no operator call on one image)", coarray.ErrLength)
		}
		return somewhere(img, coarray.CoReduce(img, []string{"ab"}, 3), coarray.ErrLength)
	}},
	{"operator that panics", coarray.ErrOperator, false, func(img *coarray.Image) error {
		if img.NumImages() == 1 {
			return coarray.ErrOperator
		}
		return somewhere(img, coarray.CoReduce(img, []int64{1}, 1), coarray.ErrOperator)
	}},
	{"impure operator", coarray.ErrImpure, true, func(img *coarray.Image) error {
		if img.NumImages() == 1 {
			return coarray.ErrImpure
		}
		return somewhere(img, coarray.CoReduce(img, []int64{1}, 2), coarray.ErrImpure)
	}},
	{"team number 0", coarray.ErrTeamNumber, false, func(img *coarray.Image) error {
		_, err := img.FormTeam(0, 0)
		return err
	}},
	{"team number negative on one image", coarray.ErrTeamNumber, false, func(img *coarray.Image) error {
		n := 1
		if img.ThisImage() == 1 {
			n = -5
		}
		_, err := img.FormTeam(n, 0)
		return err
	}},
	{"new index repeated", coarray.ErrNewIndex, false, func(img *coarray.Image) error {
		if img.NumImages() == 1 {
			_, err := img.FormTeam(1, 2) // out of range
			return err
		}
		_, err := img.FormTeam(1, 1)
		return err
	}},
	{"new index out of range", coarray.ErrNewIndex, false, func(img *coarray.Image) error {
		_, err := img.FormTeam(1, img.ThisImage()+1)
		return err
	}},
	{"the outer image inside CHANGE TEAM", coarray.ErrNotCurrent, false, func(img *coarray.Image) error {
		team, err := img.FormTeam(1, 0)
		if err != nil {
			return err
		}
		defer team.Free()
		return img.ChangeTeam(team, func(in *coarray.Image) error {
			return coarray.CoSum(img, []int{1})
		})
	}},
	{"the inner image after END TEAM", coarray.ErrNotCurrent, false, func(img *coarray.Image) error {
		team, err := img.FormTeam(1, 0)
		if err != nil {
			return err
		}
		defer team.Free()
		var inner *coarray.Image
		if err := img.ChangeTeam(team, func(in *coarray.Image) error { inner = in; return nil }); err != nil {
			return err
		}
		return inner.SyncAll()
	}},
	{"a team not formed on the current team", coarray.ErrTeam, false, func(img *coarray.Image) error {
		outer, err := img.FormTeam(1, 0)
		if err != nil {
			return err
		}
		defer outer.Free()
		return img.ChangeTeam(outer, func(in *coarray.Image) error {
			return in.ChangeTeam(outer, func(*coarray.Image) error { return nil })
		})
	}},
}

// somewhere: an operator's failure is reported on the images where the
// operator ran (in a tree, others only receive the result); one image at
// least must have seen it. It returns want on every image if one did.
func somewhere(img *coarray.Image, err, want error) error {
	saw := []int{0}
	if errors.Is(err, want) {
		saw[0] = 1
	} else if err != nil {
		return err
	}
	if e := coarray.CoMax(img, saw); e != nil {
		return e
	}
	if saw[0] == 0 {
		return nil
	}
	return want
}
