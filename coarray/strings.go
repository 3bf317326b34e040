package coarray

import "fmt"

// longest is the length of the longest string of ss.
func longest(ss []string) int {
	w := 0
	for _, s := range ss {
		w = max(w, len(s))
	}
	return w
}

// pack lays ss out blank-padded to width w, one value after another.
func pack(ss []string, w int) []byte {
	b := make([]byte, 0, len(ss)*w)
	for _, s := range ss {
		b = append(b, s...)
		for range w - len(s) {
			b = append(b, ' ')
		}
	}
	return b
}

// unpack sets ss to the values of width w in b.
func unpack(ss []string, b []byte, w int) {
	for i := range ss {
		ss[i] = string(b[i*w : (i+1)*w])
	}
}

// tooLong is the error of a value longer than the character length.
func tooLong(ss []string, charLen int) error {
	if w := longest(ss); charLen > 0 && w > charLen {
		return fmt.Errorf("%w: a value of %d bytes for a length of %d", ErrLength, w, charLen)
	}
	if charLen < 0 {
		return fmt.Errorf("%w: character length %d", ErrLength, charLen)
	}
	return nil
}

// broadcastStrings is CO_BROADCAST of character values: the length is
// charLen, or the source's longest value, learned in the agreement.
func (img *Image) broadcastStrings(ss []string, source, charLen int) error {
	if err := img.usable(); err != nil {
		return err
	}
	c := call{op: opBroadcast, count: len(ss), elem: charLen, image: source}
	c.err = img.checkImage(source, false)
	if c.err == nil && img.ThisImage() == source {
		c.err = tooLong(ss, charLen)
		c.width = longest(ss)
	}
	w, err := img.agree(&c, true)
	if err != nil {
		return err
	}
	if charLen > 0 {
		w = charLen
	}
	if w == 0 {
		clear(ss) // the source's values are all "": so are everybody's
		return nil
	}
	b := make([]byte, len(ss)*w) // what the source's values overwrite
	if img.ThisImage() == source {
		b = pack(ss, w)
	}
	if err := img.runBroadcast(b, source); err != nil {
		return err
	}
	unpack(ss, b, w)
	return nil
}

// reduceStrings is CO_MIN, CO_MAX or CO_REDUCE (function fn) of character
// values of length charLen, or of the longest value on the team.
func (img *Image) reduceStrings(ss []string, op, fn int, o options) error {
	if err := img.usable(); err != nil {
		return err
	}
	c := call{op: op, count: len(ss), elem: o.charLen, image: o.resultImage, fn: fn, width: longest(ss)}
	c.err = img.checkImage(o.resultImage, true)
	if c.err == nil {
		c.err = tooLong(ss, o.charLen)
	}
	w, err := img.agree(&c, true)
	if err != nil {
		return err
	}
	if o.charLen > 0 {
		w = o.charLen
	}
	if w == 0 {
		return nil // every value is "": so is every result
	}
	b := pack(ss, w)
	if err := img.runReduce(b, &call{image: o.resultImage, fn: fn, arg: w}); err != nil {
		return err
	}
	if o.resultImage == 0 || o.resultImage == img.ThisImage() {
		unpack(ss, b, w)
	}
	return nil
}
