package coll

import (
	"errors"
	"fmt"
	"reflect"
	"unsafe"

	"github.com/gocoll/gocoll/images"
	gsync "github.com/gocoll/gocoll/sync"
)

// The typed layer: the same collectives over []T for any fixed-size T
// without pointers (numbers, arrays and structs of them). count is in
// elements of T; the byte API does the work.

// ErrType: T holds pointers, so its bytes cannot be moved between nodes.
var ErrType = errors.New("gocoll: element type holds pointers")

// raw is the byte view of s, or ErrType when T cannot be moved as bytes.
func raw[T any](s []T) ([]byte, int, error) {
	t := reflect.TypeFor[T]()
	if hasPointers(t) {
		return nil, 0, fmt.Errorf("%w: %v", ErrType, t)
	}
	size := int(t.Size())
	if s == nil {
		return nil, size, nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*size), size, nil
}

func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.String, reflect.Slice, reflect.Map, reflect.Chan,
		reflect.Func, reflect.Interface, reflect.UnsafePointer:
		return true
	case reflect.Array:
		return hasPointers(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
	}
	return false
}

// typed converts dst and src and calls the byte-level collective.
func typed[T any](dst, src []T, count int, call func(dst, src []byte, nbytes int) (gsync.Handle, error)) (gsync.Handle, error) {
	d, size, err := raw(dst)
	if err != nil {
		return gsync.Handle{}, err
	}
	s, _, _ := raw(src)
	return call(d, s, count*size)
}

// BroadcastOf is Broadcast of count elements.
func BroadcastOf[T any](im *Image, t *images.Team, dst []T, root int, src []T, count int, f gsync.Flags) error {
	return wait(BroadcastOfNB(im, t, dst, root, src, count, f))
}

// BroadcastOfNB is BroadcastNB of count elements.
func BroadcastOfNB[T any](im *Image, t *images.Team, dst []T, root int, src []T, count int, f gsync.Flags) (gsync.Handle, error) {
	return typed(dst, src, count, func(d, s []byte, n int) (gsync.Handle, error) { return im.BroadcastNB(t, d, root, s, n, f) })
}

// ScatterOf is Scatter of count elements per image.
func ScatterOf[T any](im *Image, t *images.Team, dst []T, root int, src []T, count int, f gsync.Flags) error {
	return wait(ScatterOfNB(im, t, dst, root, src, count, f))
}

// ScatterOfNB is ScatterNB of count elements per image.
func ScatterOfNB[T any](im *Image, t *images.Team, dst []T, root int, src []T, count int, f gsync.Flags) (gsync.Handle, error) {
	return typed(dst, src, count, func(d, s []byte, n int) (gsync.Handle, error) { return im.ScatterNB(t, d, root, s, n, f) })
}

// GatherOf is Gather of count elements per image.
func GatherOf[T any](im *Image, t *images.Team, root int, dst, src []T, count int, f gsync.Flags) error {
	return wait(GatherOfNB(im, t, root, dst, src, count, f))
}

// GatherOfNB is GatherNB of count elements per image.
func GatherOfNB[T any](im *Image, t *images.Team, root int, dst, src []T, count int, f gsync.Flags) (gsync.Handle, error) {
	return typed(dst, src, count, func(d, s []byte, n int) (gsync.Handle, error) { return im.GatherNB(t, root, d, s, n, f) })
}

// GatherAllOf is GatherAll of count elements per image.
func GatherAllOf[T any](im *Image, t *images.Team, dst, src []T, count int, f gsync.Flags) error {
	return wait(GatherAllOfNB(im, t, dst, src, count, f))
}

// GatherAllOfNB is GatherAllNB of count elements per image.
func GatherAllOfNB[T any](im *Image, t *images.Team, dst, src []T, count int, f gsync.Flags) (gsync.Handle, error) {
	return typed(dst, src, count, func(d, s []byte, n int) (gsync.Handle, error) { return im.GatherAllNB(t, d, s, n, f) })
}

// ExchangeOf is Exchange of count elements per block.
func ExchangeOf[T any](im *Image, t *images.Team, dst, src []T, count int, f gsync.Flags) error {
	return wait(ExchangeOfNB(im, t, dst, src, count, f))
}

// ExchangeOfNB is ExchangeNB of count elements per block.
func ExchangeOfNB[T any](im *Image, t *images.Team, dst, src []T, count int, f gsync.Flags) (gsync.Handle, error) {
	return typed(dst, src, count, func(d, s []byte, n int) (gsync.Handle, error) { return im.ExchangeNB(t, d, s, n, f) })
}

// rawList is the byte view of every slice of l (nil stays nil).
func rawList[T any](l [][]T) ([][]byte, int, error) {
	_, size, err := raw[T](nil)
	if err != nil || l == nil {
		return nil, size, err
	}
	out := make([][]byte, len(l))
	for i, s := range l {
		out[i], _, _ = raw(s)
	}
	return out, size, nil
}

// typedM converts the lists and single arguments of an m form and calls
// the byte-level collective.
func typedM[T any](dsts [][]T, dst []T, srcs [][]T, src []T, count int,
	call func(dsts [][]byte, dst []byte, srcs [][]byte, src []byte, nbytes int) (gsync.Handle, error)) (gsync.Handle, error) {
	dl, size, err := rawList(dsts)
	if err != nil {
		return gsync.Handle{}, err
	}
	sl, _, _ := rawList(srcs)
	d, _, _ := raw(dst)
	s, _, _ := raw(src)
	return call(dl, d, sl, s, count*size)
}

// BroadcastMOf is BroadcastM of count elements.
func BroadcastMOf[T any](im *Image, t *images.Team, dsts [][]T, root int, src []T, count int, f gsync.Flags) error {
	return wait(BroadcastMOfNB(im, t, dsts, root, src, count, f))
}

// BroadcastMOfNB is BroadcastMNB of count elements.
func BroadcastMOfNB[T any](im *Image, t *images.Team, dsts [][]T, root int, src []T, count int, f gsync.Flags) (gsync.Handle, error) {
	return typedM(dsts, nil, nil, src, count, func(dl [][]byte, _ []byte, _ [][]byte, s []byte, n int) (gsync.Handle, error) {
		return im.BroadcastMNB(t, dl, root, s, n, f)
	})
}

// ScatterMOf is ScatterM of count elements per image.
func ScatterMOf[T any](im *Image, t *images.Team, dsts [][]T, root int, src []T, count int, f gsync.Flags) error {
	return wait(ScatterMOfNB(im, t, dsts, root, src, count, f))
}

// ScatterMOfNB is ScatterMNB of count elements per image.
func ScatterMOfNB[T any](im *Image, t *images.Team, dsts [][]T, root int, src []T, count int, f gsync.Flags) (gsync.Handle, error) {
	return typedM(dsts, nil, nil, src, count, func(dl [][]byte, _ []byte, _ [][]byte, s []byte, n int) (gsync.Handle, error) {
		return im.ScatterMNB(t, dl, root, s, n, f)
	})
}

// GatherMOf is GatherM of count elements per image.
func GatherMOf[T any](im *Image, t *images.Team, root int, dst []T, srcs [][]T, count int, f gsync.Flags) error {
	return wait(GatherMOfNB(im, t, root, dst, srcs, count, f))
}

// GatherMOfNB is GatherMNB of count elements per image.
func GatherMOfNB[T any](im *Image, t *images.Team, root int, dst []T, srcs [][]T, count int, f gsync.Flags) (gsync.Handle, error) {
	return typedM(nil, dst, srcs, nil, count, func(_ [][]byte, d []byte, sl [][]byte, _ []byte, n int) (gsync.Handle, error) {
		return im.GatherMNB(t, root, d, sl, n, f)
	})
}

// GatherAllMOf is GatherAllM of count elements per image.
func GatherAllMOf[T any](im *Image, t *images.Team, dsts, srcs [][]T, count int, f gsync.Flags) error {
	return wait(GatherAllMOfNB(im, t, dsts, srcs, count, f))
}

// GatherAllMOfNB is GatherAllMNB of count elements per image.
func GatherAllMOfNB[T any](im *Image, t *images.Team, dsts, srcs [][]T, count int, f gsync.Flags) (gsync.Handle, error) {
	return typedM(dsts, nil, srcs, nil, count, func(dl [][]byte, _ []byte, sl [][]byte, _ []byte, n int) (gsync.Handle, error) {
		return im.GatherAllMNB(t, dl, sl, n, f)
	})
}

// ExchangeMOf is ExchangeM of count elements per block.
func ExchangeMOf[T any](im *Image, t *images.Team, dsts, srcs [][]T, count int, f gsync.Flags) error {
	return wait(ExchangeMOfNB(im, t, dsts, srcs, count, f))
}

// ExchangeMOfNB is ExchangeMNB of count elements per block.
func ExchangeMOfNB[T any](im *Image, t *images.Team, dsts, srcs [][]T, count int, f gsync.Flags) (gsync.Handle, error) {
	return typedM(dsts, nil, srcs, nil, count, func(dl [][]byte, _ []byte, sl [][]byte, _ []byte, n int) (gsync.Handle, error) {
		return im.ExchangeMNB(t, dl, sl, n, f)
	})
}
