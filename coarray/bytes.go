package coarray

import (
	"fmt"
	"reflect"
)

// The byte-level collectives: what the generic functions run on, and what a
// program whose types Go does not name (the gfortran runtime) calls. b holds
// the whole array, contiguous; resultImage is Fortran's RESULT_IMAGE, 0 when
// absent. Every image of the current team calls with the same kind, length
// and image arguments (see the package doc, Errors).

// BroadcastBytes is CO_BROADCAST of b, elements of elemSize bytes, from the
// image sourceImage.
func (img *Image) BroadcastBytes(b []byte, elemSize, sourceImage int) error {
	c := call{op: opBroadcast, count: len(b), elem: elemSize, image: sourceImage}
	if elemSize > 0 {
		c.count = len(b) / elemSize
	}
	return img.broadcast(b, &c)
}

// SumBytes is CO_SUM of b, an array of k.
func (img *Image) SumBytes(b []byte, k Kind, resultImage int) error {
	return img.reduceBuiltin(b, opSum, k, 0, resultImage)
}

// MinBytes is CO_MIN of b, an array of k; for Char and Char4, charLen is the
// character length (characters per value), else ignored.
func (img *Image) MinBytes(b []byte, k Kind, charLen, resultImage int) error {
	return img.reduceBuiltin(b, opMin, k, charLen, resultImage)
}

// MaxBytes is CO_MAX of b, as MinBytes.
func (img *Image) MaxBytes(b []byte, k Kind, charLen, resultImage int) error {
	return img.reduceBuiltin(b, opMax, k, charLen, resultImage)
}

// ReduceBytes is CO_REDUCE of b, elements of elemSize bytes, with the
// operator op and its argument arg (passed to an ElementwiseOperator's function).
func (img *Image) ReduceBytes(b []byte, elemSize int, op Op, arg, resultImage int) error {
	c := call{op: opReduce, elem: elemSize, image: resultImage, arg: arg}
	c.fn, c.err = img.opIndex(op, nil)
	c.count, c.err = count(b, elemSize, c.err)
	return img.reduce(b, &c)
}

func (img *Image) reduceBuiltin(b []byte, op int, k Kind, charLen, resultImage int) error {
	c := call{op: op, elem: k.Size(), image: resultImage}
	if k < numKinds {
		c.fn = builtin.index[op][k]
	}
	switch {
	case k >= numKinds || c.fn < 0:
		c.fn, c.err = 0, fmt.Errorf("%w: %s of %v", ErrType, opNames[op], k)
	case k.char():
		c.elem *= charLen
		c.arg = c.elem
		if charLen <= 0 {
			c.err = fmt.Errorf("%w: character length %d", ErrLength, charLen)
		}
	}
	c.count, c.err = count(b, c.elem, c.err)
	return img.reduce(b, &c)
}

var opNames = [...]string{"", "CO_BROADCAST", "CO_SUM", "CO_MIN", "CO_MAX", "CO_REDUCE", "FORM TEAM"}

// count is the number of elements of elemSize bytes in b, or an error.
func count(b []byte, elemSize int, err error) (int, error) {
	if err != nil || elemSize <= 0 {
		return 0, err
	}
	if len(b)%elemSize != 0 {
		return 0, fmt.Errorf("%w: %d bytes is not a whole number of %d-byte elements", ErrType, len(b), elemSize)
	}
	return len(b) / elemSize, nil
}

// opIndex is the function index of operator op, checking that it was made
// for typ (nil: any).
func (img *Image) opIndex(op Op, typ reflect.Type) (int, error) {
	ops := img.sh.ops
	if op < 0 || int(op) >= len(ops) {
		return 0, fmt.Errorf("%w: Op(%d) is not one of the %d operators given to Init", ErrOperator, op, len(ops))
	}
	if t := ops[op].typ; typ != nil && t != nil && t != typ {
		return 0, fmt.Errorf("%w: Op(%d) takes %v, not %v", ErrType, op, t, typ)
	}
	return img.sh.nbuilt + int(op), nil
}
