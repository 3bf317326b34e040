package coarraytest

import (
	"errors"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/gocoll/gocoll/coarray"
)

// counter is not pure: it keeps state between calls.
type counter struct{ n atomic.Int64 }

func (c *counter) op(a, b int64) int64 { return a + b + c.n.Add(1) }

// Check is one bad input case.
type Check struct {
	Name string
	// Want is the error every image must get (errors.Is and the same STAT)
	// in the checked mode, and in the default mode where Mode is Local.
	Want error
	// Mode says what the default mode gives.
	Mode Mode
	// Run makes the bad call on one image: it needs BadOperators at Init.
	// A case whose images disagree reports a call that succeeded but
	// changed its array as ErrWrongData.
	Run func(img *coarray.Image) error
}

// Mode is what a bad input case gives in the default mode (in the checked
// mode every case gives its Want on every image).
type Mode int

const (
	// Local: the images' arguments agree, so each image finds the error
	// itself: Want on every image, then the team goes on working.
	Local Mode = iota
	// Disagree: the images' arguments differ, or are bad on some images
	// only; the default mode does not agree on them (Options.Checked).
	// Each image gets Want, ErrMismatch, ErrStalled (within the stall
	// timeout) or ErrCollective (the conduit refused a message of the
	// wrong size), or succeeds with its array as it was; never wrong data,
	// never a hang. The team may be of no further use (a conduit may keep
	// the error, messages of the failed call stay unmatched).
	Disagree
	// CheckedOnly: a check the checked mode alone makes (an operator's
	// purity).
	CheckedOnly
)

// ErrWrongData is a call of a Disagree case that succeeded with its
// array changed.
var ErrWrongData = errors.New("a collective with disagreeing arguments succeeded and changed the data")

// RunCheck runs c on img (checked tells the mode it was initialized in)
// and checks the error, then that the team still works.
func RunCheck(img *coarray.Image, c Check, checked bool) error {
	err := c.Run(img)
	if !checked && c.Mode == Disagree {
		return checkDisagree(c, err)
	}
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

// checkDisagree is the verdict on a Disagree case's outcome on one image
// in the default mode.
func checkDisagree(c Check, err error) error {
	if err == nil {
		return nil
	}
	for _, ok := range []error{c.Want, coarray.ErrMismatch, coarray.ErrStalled, coarray.ErrCollective} {
		if errors.Is(err, ok) && coarray.Stat(err) == coarray.Stat(ok) {
			return nil
		}
	}
	return fmt.Errorf("%s (default mode): got %v, want nil with the data as it was, or an error of %v, ErrMismatch, ErrStalled or ErrCollective", c.Name, err, c.Want)
}

// kept is err, or ErrWrongData if the call succeeded but x changed from
// was.
func kept[T comparable](err error, x []T, was ...T) error {
	if err == nil && !slices.Equal(x, was) {
		return fmt.Errorf("%w: %v, was %v", ErrWrongData, x, was)
	}
	return err
}

var ctr = &counter{}

// BadOperators are the operators BadInput's cases use, to give Init.
var BadOperators = []coarray.Operator{
	coarray.OperatorOf(func(a, b int64) int64 { return a + b }, 0),
	coarray.OperatorOf(func(a, b int64) int64 { panic("boom") }, 0),
	coarray.OperatorOf(ctr.op, 0),
	coarray.OperatorOf(func(a, b string) string { return a + b }, 0),
}

// BadInput is the list of misuses: each gives its named error (and STAT)
// on every image, never a hang, as its Mode says.
var BadInput = []Check{
	{"source image 0", coarray.ErrInvalidImage, Local, func(img *coarray.Image) error {
		return coarray.CoBroadcast(img, []int{1}, 0)
	}},
	{"source image beyond the team", coarray.ErrInvalidImage, Local, func(img *coarray.Image) error {
		return coarray.CoBroadcast(img, []int{1}, img.NumImages()+1)
	}},
	{"result image beyond the team", coarray.ErrInvalidImage, Local, func(img *coarray.Image) error {
		return coarray.CoSum(img, []float64{1}, coarray.ResultImage(img.NumImages()+1))
	}},
	{"result image negative", coarray.ErrInvalidImage, Local, func(img *coarray.Image) error {
		return coarray.CoMax(img, []int8{1}, coarray.ResultImage(-1))
	}},
	{"result image on one image only", coarray.ErrInvalidImage, Disagree, func(img *coarray.Image) error {
		ri := 1
		if img.ThisImage() == img.NumImages() {
			ri = 99
		}
		x := []float64{1}
		return kept(coarray.CoSum(img, x, coarray.ResultImage(ri)), x, 1)
	}},
	{"mismatched lengths", coarray.ErrMismatch, Disagree, func(img *coarray.Image) error {
		if img.NumImages() == 1 {
			return coarray.ErrMismatch // one image always agrees
		}
		x := slices.Repeat([]int32{int32(img.ThisImage())}, img.ThisImage())
		was := slices.Clone(x)
		return kept(coarray.CoSum(img, x), x, was...)
	}},
	{"mismatched result images", coarray.ErrMismatch, Disagree, func(img *coarray.Image) error {
		if img.NumImages() == 1 {
			return coarray.ErrMismatch // one image always agrees
		}
		me := float32(img.ThisImage())
		x := []float32{me}
		return kept(coarray.CoMin(img, x, coarray.ResultImage(img.ThisImage())), x, me)
	}},
	{"mismatched source images", coarray.ErrMismatch, Disagree, func(img *coarray.Image) error {
		if img.NumImages() == 1 {
			return coarray.ErrMismatch // one image always agrees
		}
		x := []int{10 * img.ThisImage()}
		return kept(coarray.CoBroadcast(img, x, img.ThisImage()), x, 10*img.ThisImage())
	}},
	{"pointer type", coarray.ErrType, Local, func(img *coarray.Image) error {
		return coarray.CoBroadcast(img, []*int{nil}, 1)
	}},
	{"operator of another type", coarray.ErrType, Local, func(img *coarray.Image) error {
		return coarray.CoReduce(img, []int32{1}, 0)
	}},
	{"operator not registered", coarray.ErrOperator, Local, func(img *coarray.Image) error {
		return coarray.CoReduce(img, []int64{1}, 9)
	}},
	{"string longer than CharLen", coarray.ErrLength, Local, func(img *coarray.Image) error {
		return coarray.CoMax(img, []string{"abcdef"}, coarray.CharLen(3))
	}},
	{"string longer than CharLen on one image only", coarray.ErrLength, Local, func(img *coarray.Image) error {
		// Local in both modes: string collectives always agree.
		s := "ab"
		if img.ThisImage() == img.NumImages() {
			s = "abcdef"
		}
		return coarray.CoMin(img, []string{s}, coarray.CharLen(3))
	}},
	{"operator result longer than the character length", coarray.ErrLength, Local, func(img *coarray.Image) error {
		if img.NumImages() == 1 {
			return fmt.Errorf("%w: (no operator call on one image)", coarray.ErrLength)
		}
		return somewhere(img, coarray.CoReduce(img, []string{"ab"}, 3), coarray.ErrLength)
	}},
	{"operator that panics", coarray.ErrOperator, Local, func(img *coarray.Image) error {
		if img.NumImages() == 1 {
			return coarray.ErrOperator
		}
		return somewhere(img, coarray.CoReduce(img, []int64{1}, 1), coarray.ErrOperator)
	}},
	{"impure operator", coarray.ErrImpure, CheckedOnly, func(img *coarray.Image) error {
		if img.NumImages() == 1 {
			return coarray.ErrImpure
		}
		return somewhere(img, coarray.CoReduce(img, []int64{1}, 2), coarray.ErrImpure)
	}},
	{"team number 0", coarray.ErrTeamNumber, Local, func(img *coarray.Image) error {
		_, err := img.FormTeam(0, 0)
		return err
	}},
	{"team number negative on one image", coarray.ErrTeamNumber, Local, func(img *coarray.Image) error {
		n := 1
		if img.ThisImage() == 1 {
			n = -5
		}
		_, err := img.FormTeam(n, 0)
		return err
	}},
	{"new index repeated", coarray.ErrNewIndex, Local, func(img *coarray.Image) error {
		if img.NumImages() == 1 {
			_, err := img.FormTeam(1, 2) // out of range
			return err
		}
		_, err := img.FormTeam(1, 1)
		return err
	}},
	{"new index out of range", coarray.ErrNewIndex, Local, func(img *coarray.Image) error {
		_, err := img.FormTeam(1, img.ThisImage()+1)
		return err
	}},
	{"the outer image inside CHANGE TEAM", coarray.ErrNotCurrent, Local, func(img *coarray.Image) error {
		team, err := img.FormTeam(1, 0)
		if err != nil {
			return err
		}
		defer team.Free()
		return img.ChangeTeam(team, func(in *coarray.Image) error {
			return coarray.CoSum(img, []int{1})
		})
	}},
	{"the inner image after END TEAM", coarray.ErrNotCurrent, Local, func(img *coarray.Image) error {
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
	{"a team not formed on the current team", coarray.ErrTeam, Local, func(img *coarray.Image) error {
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
