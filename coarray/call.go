package coarray

import (
	"fmt"
	"unsafe"

	"github.com/gocoll/gocoll/coll"
)

// call is one collective as the agreement sees it.
type call struct {
	op    int   // opBroadcast ...
	count int   // elements
	elem  int   // bytes of an element (0 while a character length is to be agreed)
	image int   // SOURCE_IMAGE or RESULT_IMAGE, 1-based; 0 when absent
	fn    int   // function index (reductions)
	arg   int   // the function's argument
	width int   // this image's longest character value, when the length is agreed
	err   error // this image's argument error, found before the agreement
}

// The agreement vector: lanes that must agree are carried as v and -v, so
// that one maximum gives both the largest and the smallest value; width and
// the error's STAT are plain maxima.
const (
	agreeOp = iota * 2
	agreeCount
	agreeElem
	agreeImage
	agreeFn
	agreeArg
	agreeWidth
	agreeLanes = agreeWidth + 2 // width, stat
)

// agree runs the agreement over the current team when the call needs it:
// always in the checked mode, and for strings (always: they learn the
// character length, or check every image's values against it); in the
// default mode only when this image found its own arguments bad. That
// image then makes the agreement in the call's place in the team's
// sequence, where the other images, if their arguments are the same (as
// the standard requires), found the same error and do too: every image
// gets it at once. If theirs are not, they make the data collective, and
// the engine fails the two calls against each other (ErrMismatch, or
// ErrStalled after the stall timeout) instead of letting this image skip
// a call and the team's later collectives pair up wrongly. It returns the
// agreed character width and an error that every image returns alike.
func (img *Image) agree(c *call, always bool) (int, error) {
	if !img.sh.checked && !always && c.err == nil {
		return c.width, nil
	}
	if cap(img.sh.agreed) < 2*agreeLanes {
		img.sh.agreed = make([]int64, 2*agreeLanes)
	}
	v := img.sh.agreed[:2*agreeLanes]
	for i, x := range []int{c.op, c.count, c.elem, c.image, c.fn, c.arg} {
		v[2*i], v[2*i+1] = int64(x), -int64(x)
	}
	v[agreeWidth], v[agreeWidth+1] = int64(c.width), int64(Stat(c.err))
	mine := v[:agreeLanes]
	all := v[agreeLanes:]
	err := img.sh.im.ReduceAll(img.team.t, bytesOf(all), bytesOf(mine), coll.Cyclic,
		8*agreeLanes, img.NumImages(), builtin.agree, 0, flags)
	switch {
	case c.err != nil: // this image's own error is what its STAT says
		return 0, c.err
	case err != nil:
		return 0, collErr(err)
	}
	if s := int(all[agreeWidth+1]); s != StatOK {
		if e, ok := byStat[s]; ok {
			return 0, fmt.Errorf("%w (on another image)", e)
		}
		return 0, ErrCollective
	}
	for i := 0; i < agreeWidth; i += 2 {
		if all[i] != -all[i+1] {
			return 0, fmt.Errorf("%w: %s differs (from %d to %d)", ErrMismatch, agreeNames[i/2], -all[i+1], all[i])
		}
	}
	return int(all[agreeWidth]), nil
}

var agreeNames = [...]string{"operation", "element count", "element size", "source or result image", "operator", "operator argument"}

// bytesOf is the memory of s as bytes.
func bytesOf[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(z)))
}

// checkImage checks a SOURCE_IMAGE or RESULT_IMAGE argument (0 for an
// absent RESULT_IMAGE when optional).
func (img *Image) checkImage(i int, optional bool) error {
	if (optional && i == 0) || (i >= 1 && i <= img.NumImages()) {
		return nil
	}
	return fmt.Errorf("%w: %d, the team has images 1..%d", ErrInvalidImage, i, img.NumImages())
}

// broadcast runs CO_BROADCAST of b (count elements) from c.image, after the
// agreement.
func (img *Image) broadcast(b []byte, c *call) error {
	if err := img.usable(); err != nil {
		return err
	}
	if c.err == nil {
		c.err = img.checkImage(c.image, false)
	}
	if _, err := img.agree(c, false); err != nil {
		return err
	}
	return img.runBroadcast(b, c.image)
}

// runBroadcast is the engine's broadcast of b from image source.
func (img *Image) runBroadcast(b []byte, source int) error {
	if len(b) == 0 || img.NumImages() == 1 {
		return nil
	}
	return collErr(img.sh.im.Broadcast(img.team.t, b, source-1, b, len(b), flags))
}

// reduce runs a reduction of b with c.fn and c.arg, after the agreement:
// the whole array is one element of the engine's reduction (one element per
// image, the built-in operators working lane by lane), so an array is one
// collective. The result lands in b on every image, or on c.image only.
func (img *Image) reduce(b []byte, c *call) error {
	if err := img.usable(); err != nil {
		return err
	}
	if c.err == nil {
		c.err = img.checkImage(c.image, true)
	}
	if _, err := img.agree(c, false); err != nil {
		return err
	}
	return img.runReduce(b, c)
}

// runReduce is the engine's reduction of b with c.fn and c.arg, onto
// c.image or every image, in place (b is its own destination, as with
// MPI_IN_PLACE): no copy of the result.
func (img *Image) runReduce(b []byte, c *call) error {
	if len(b) == 0 || img.NumImages() == 1 {
		return nil
	}
	sh := img.sh
	before := sh.node.failures.Load()
	var err error
	if c.image == 0 {
		err = sh.im.ReduceAll(img.team.t, b, b, coll.Cyclic, len(b), img.NumImages(), c.fn, c.arg, flags)
	} else {
		var dst []byte // the result on the result image only
		if c.image == img.ThisImage() {
			dst = b
		}
		err = sh.im.Reduce(img.team.t, c.image-1, dst, b, coll.Cyclic, len(b), img.NumImages(), c.fn, c.arg, flags)
	}
	if err == nil {
		err = sh.node.since(before)
	}
	if err != nil {
		return collErr(err)
	}
	return nil
}
