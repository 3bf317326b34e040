package reducefn

// Elementwise makes a Func of combine, which sets dst to a op b for one
// element (dst may be a itself; arg is the collective's): the fold of left
// and the inclusive prefix over right that Func asks for, element by element.
func Elementwise(combine func(dst, a, b []byte, arg int)) Func {
	return func(results, left, right []byte, es int, _ Flags, arg int) {
		r := results[:es]
		if len(left) == 0 {
			copy(r, right[:es])
		} else {
			copy(r, left[:es])
			for off := es; off < len(left); off += es {
				combine(r, r, left[off:off+es], arg)
			}
			combine(r, r, right[:es], arg)
		}
		for off := es; off < len(right); off += es {
			combine(results[off:off+es], results[off-es:off], right[off:off+es], arg)
		}
	}
}
