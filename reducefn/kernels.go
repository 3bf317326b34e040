package reducefn

// The loops of each operator, spelled out so that the operator inlines into
// a tight loop (see kernel in builtin.go): Go does not inline a function
// value, or a method of a type parameter, into a generic loop. Reslicing to
// len(a) up front lets the compiler drop the bounds checks inside the loops.
//
// The names: sum, prod; band, bor, bxor (bitwise); land, lor, lxor
// (logical); fmin, fmax (Min and Max, minmax.go); minLoc, maxLoc (ValLoc
// pairs).

func sumVec[T Number](dst, a, b []T) {
	b, dst = b[:len(a)], dst[:len(a)]
	for i, x := range a {
		dst[i] = x + b[i]
	}
}

func sumFold[T Number](acc T, s []T) T {
	for _, x := range s {
		acc = acc + x
	}
	return acc
}

func sumScan[T Number](dst, s []T, acc T) {
	dst = dst[:len(s)]
	for i, x := range s {
		acc = acc + x
		dst[i] = acc
	}
}

func prodVec[T Number](dst, a, b []T) {
	b, dst = b[:len(a)], dst[:len(a)]
	for i, x := range a {
		dst[i] = x * b[i]
	}
}

func prodFold[T Number](acc T, s []T) T {
	for _, x := range s {
		acc = acc * x
	}
	return acc
}

func prodScan[T Number](dst, s []T, acc T) {
	dst = dst[:len(s)]
	for i, x := range s {
		acc = acc * x
		dst[i] = acc
	}
}

func bandVec[T Integer](dst, a, b []T) {
	b, dst = b[:len(a)], dst[:len(a)]
	for i, x := range a {
		dst[i] = x & b[i]
	}
}

func bandFold[T Integer](acc T, s []T) T {
	for _, x := range s {
		acc = acc & x
	}
	return acc
}

func bandScan[T Integer](dst, s []T, acc T) {
	dst = dst[:len(s)]
	for i, x := range s {
		acc = acc & x
		dst[i] = acc
	}
}

func borVec[T Integer](dst, a, b []T) {
	b, dst = b[:len(a)], dst[:len(a)]
	for i, x := range a {
		dst[i] = x | b[i]
	}
}

func borFold[T Integer](acc T, s []T) T {
	for _, x := range s {
		acc = acc | x
	}
	return acc
}

func borScan[T Integer](dst, s []T, acc T) {
	dst = dst[:len(s)]
	for i, x := range s {
		acc = acc | x
		dst[i] = acc
	}
}

func bxorVec[T Integer](dst, a, b []T) {
	b, dst = b[:len(a)], dst[:len(a)]
	for i, x := range a {
		dst[i] = x ^ b[i]
	}
}

func bxorFold[T Integer](acc T, s []T) T {
	for _, x := range s {
		acc = acc ^ x
	}
	return acc
}

func bxorScan[T Integer](dst, s []T, acc T) {
	dst = dst[:len(s)]
	for i, x := range s {
		acc = acc ^ x
		dst[i] = acc
	}
}

func landVec[T Integer](dst, a, b []T) {
	b, dst = b[:len(a)], dst[:len(a)]
	for i, x := range a {
		dst[i] = b2i[T](x != 0 && b[i] != 0)
	}
}

func landFold[T Integer](acc T, s []T) T {
	for _, x := range s {
		acc = b2i[T](acc != 0 && x != 0)
	}
	return acc
}

func landScan[T Integer](dst, s []T, acc T) {
	dst = dst[:len(s)]
	for i, x := range s {
		acc = b2i[T](acc != 0 && x != 0)
		dst[i] = acc
	}
}

func lorVec[T Integer](dst, a, b []T) {
	b, dst = b[:len(a)], dst[:len(a)]
	for i, x := range a {
		dst[i] = b2i[T](x != 0 || b[i] != 0)
	}
}

func lorFold[T Integer](acc T, s []T) T {
	for _, x := range s {
		acc = b2i[T](acc != 0 || x != 0)
	}
	return acc
}

func lorScan[T Integer](dst, s []T, acc T) {
	dst = dst[:len(s)]
	for i, x := range s {
		acc = b2i[T](acc != 0 || x != 0)
		dst[i] = acc
	}
}

func lxorVec[T Integer](dst, a, b []T) {
	b, dst = b[:len(a)], dst[:len(a)]
	for i, x := range a {
		dst[i] = b2i[T]((x != 0) != (b[i] != 0))
	}
}

func lxorFold[T Integer](acc T, s []T) T {
	for _, x := range s {
		acc = b2i[T]((acc != 0) != (x != 0))
	}
	return acc
}

func lxorScan[T Integer](dst, s []T, acc T) {
	dst = dst[:len(s)]
	for i, x := range s {
		acc = b2i[T]((acc != 0) != (x != 0))
		dst[i] = acc
	}
}

func fminVec[T Ordered](dst, a, b []T) {
	b, dst = b[:len(a)], dst[:len(a)]
	for i, x := range a {
		dst[i] = fmin(x, b[i])
	}
}

func fminFold[T Ordered](acc T, s []T) T {
	for _, x := range s {
		acc = fmin(acc, x)
	}
	return acc
}

func fminScan[T Ordered](dst, s []T, acc T) {
	dst = dst[:len(s)]
	for i, x := range s {
		acc = fmin(acc, x)
		dst[i] = acc
	}
}

func fmaxVec[T Ordered](dst, a, b []T) {
	b, dst = b[:len(a)], dst[:len(a)]
	for i, x := range a {
		dst[i] = fmax(x, b[i])
	}
}

func fmaxFold[T Ordered](acc T, s []T) T {
	for _, x := range s {
		acc = fmax(acc, x)
	}
	return acc
}

func fmaxScan[T Ordered](dst, s []T, acc T) {
	dst = dst[:len(s)]
	for i, x := range s {
		acc = fmax(acc, x)
		dst[i] = acc
	}
}

func minLocVec[T Ordered](dst, a, b []ValLoc[T]) {
	b, dst = b[:len(a)], dst[:len(a)]
	for i, x := range a {
		dst[i] = minLoc(x, b[i])
	}
}

func minLocFold[T Ordered](acc ValLoc[T], s []ValLoc[T]) ValLoc[T] {
	for _, x := range s {
		acc = minLoc(acc, x)
	}
	return acc
}

func minLocScan[T Ordered](dst, s []ValLoc[T], acc ValLoc[T]) {
	dst = dst[:len(s)]
	for i, x := range s {
		acc = minLoc(acc, x)
		dst[i] = acc
	}
}

func maxLocVec[T Ordered](dst, a, b []ValLoc[T]) {
	b, dst = b[:len(a)], dst[:len(a)]
	for i, x := range a {
		dst[i] = maxLoc(x, b[i])
	}
}

func maxLocFold[T Ordered](acc ValLoc[T], s []ValLoc[T]) ValLoc[T] {
	for _, x := range s {
		acc = maxLoc(acc, x)
	}
	return acc
}

func maxLocScan[T Ordered](dst, s []ValLoc[T], acc ValLoc[T]) {
	dst = dst[:len(s)]
	for i, x := range s {
		acc = maxLoc(acc, x)
		dst[i] = acc
	}
}

// b2i is MPI's truth value: 1 for true, 0 for false.
func b2i[T Integer](c bool) T {
	if c {
		return 1
	}
	return 0
}
