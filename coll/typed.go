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

// elemSize is the size of T in bytes, or ErrType when T cannot be moved
// as bytes. The numbers are answered without reflection's walk (numKind):
// they are most calls, and small ones.
func elemSize[T any]() (int, error) {
	var z T
	if numKind[T]() == eNone && hasPointers(typeOf[T]()) {
		return 0, typeError[T]()
	}
	return int(unsafe.Sizeof(z)), nil
}

// typeError is ErrType for T.
func typeError[T any]() error { return fmt.Errorf("%w: %v", ErrType, typeOf[T]()) }

// bytesView is s as bytes, T known to be plain.
func bytesView[T any](s []T) []byte {
	if s == nil {
		return nil
	}
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(z)))
}

// typeOf is reflect.TypeFor[T], kept out of line: inlined, it would keep
// its callers (on the path of every typed call) from being inlined.
//
//go:noinline
func typeOf[T any]() reflect.Type { return reflect.TypeFor[T]() }

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

// The blocking forms call the blocking byte forms, not the non-blocking
// ones and a wait: a blocking call has ways of its own (package doc, "Cost
// of a call").

// BroadcastOf is Broadcast of count elements.
func BroadcastOf[T any](im *Image, t *images.Team, dst []T, root int, src []T, count int, f gsync.Flags) error {
	size, err := elemSize[T]()
	if err != nil {
		return err
	}
	return im.Broadcast(t, bytesView(dst), root, bytesView(src), count*size, f)
}

// BroadcastOfNB is BroadcastNB of count elements.
func BroadcastOfNB[T any](im *Image, t *images.Team, dst []T, root int, src []T, count int, f gsync.Flags) (gsync.Handle, error) {
	size, err := elemSize[T]()
	if err != nil {
		return gsync.Handle{}, err
	}
	return im.BroadcastNB(t, bytesView(dst), root, bytesView(src), count*size, f)
}

// ScatterOf is Scatter of count elements per image.
func ScatterOf[T any](im *Image, t *images.Team, dst []T, root int, src []T, count int, f gsync.Flags) error {
	size, err := elemSize[T]()
	if err != nil {
		return err
	}
	return im.Scatter(t, bytesView(dst), root, bytesView(src), count*size, f)
}

// ScatterOfNB is ScatterNB of count elements per image.
func ScatterOfNB[T any](im *Image, t *images.Team, dst []T, root int, src []T, count int, f gsync.Flags) (gsync.Handle, error) {
	size, err := elemSize[T]()
	if err != nil {
		return gsync.Handle{}, err
	}
	return im.ScatterNB(t, bytesView(dst), root, bytesView(src), count*size, f)
}

// GatherOf is Gather of count elements per image.
func GatherOf[T any](im *Image, t *images.Team, root int, dst, src []T, count int, f gsync.Flags) error {
	size, err := elemSize[T]()
	if err != nil {
		return err
	}
	return im.Gather(t, root, bytesView(dst), bytesView(src), count*size, f)
}

// GatherOfNB is GatherNB of count elements per image.
func GatherOfNB[T any](im *Image, t *images.Team, root int, dst, src []T, count int, f gsync.Flags) (gsync.Handle, error) {
	size, err := elemSize[T]()
	if err != nil {
		return gsync.Handle{}, err
	}
	return im.GatherNB(t, root, bytesView(dst), bytesView(src), count*size, f)
}

// GatherAllOf is GatherAll of count elements per image.
func GatherAllOf[T any](im *Image, t *images.Team, dst, src []T, count int, f gsync.Flags) error {
	size, err := elemSize[T]()
	if err != nil {
		return err
	}
	return im.GatherAll(t, bytesView(dst), bytesView(src), count*size, f)
}

// GatherAllOfNB is GatherAllNB of count elements per image.
func GatherAllOfNB[T any](im *Image, t *images.Team, dst, src []T, count int, f gsync.Flags) (gsync.Handle, error) {
	size, err := elemSize[T]()
	if err != nil {
		return gsync.Handle{}, err
	}
	return im.GatherAllNB(t, bytesView(dst), bytesView(src), count*size, f)
}

// ExchangeOf is Exchange of count elements per block.
func ExchangeOf[T any](im *Image, t *images.Team, dst, src []T, count int, f gsync.Flags) error {
	size, err := elemSize[T]()
	if err != nil {
		return err
	}
	return im.Exchange(t, bytesView(dst), bytesView(src), count*size, f)
}

// ExchangeOfNB is ExchangeNB of count elements per block.
func ExchangeOfNB[T any](im *Image, t *images.Team, dst, src []T, count int, f gsync.Flags) (gsync.Handle, error) {
	size, err := elemSize[T]()
	if err != nil {
		return gsync.Handle{}, err
	}
	return im.ExchangeNB(t, bytesView(dst), bytesView(src), count*size, f)
}

// bytesList is l with every slice as bytes (nil stays nil), T known to be
// plain.
func bytesList[T any](l [][]T) [][]byte {
	if l == nil {
		return nil
	}
	out := make([][]byte, len(l))
	for i, s := range l {
		out[i] = bytesView(s)
	}
	return out
}

// listsOf is the byte view of an m form's lists and single arguments and
// its count in bytes.
func listsOf[T any](dsts [][]T, dst []T, srcs [][]T, src []T, count int) (dl [][]byte, d []byte, sl [][]byte, s []byte, nbytes int, err error) {
	size, err := elemSize[T]()
	if err != nil {
		return nil, nil, nil, nil, 0, err
	}
	return bytesList(dsts), bytesView(dst), bytesList(srcs), bytesView(src), count * size, nil
}

// BroadcastMOf is BroadcastM of count elements.
func BroadcastMOf[T any](im *Image, t *images.Team, dsts [][]T, root int, src []T, count int, f gsync.Flags) error {
	dl, _, _, s, n, err := listsOf(dsts, nil, nil, src, count)
	if err != nil {
		return err
	}
	return im.BroadcastM(t, dl, root, s, n, f)
}

// BroadcastMOfNB is BroadcastMNB of count elements.
func BroadcastMOfNB[T any](im *Image, t *images.Team, dsts [][]T, root int, src []T, count int, f gsync.Flags) (gsync.Handle, error) {
	dl, _, _, s, n, err := listsOf(dsts, nil, nil, src, count)
	if err != nil {
		return gsync.Handle{}, err
	}
	return im.BroadcastMNB(t, dl, root, s, n, f)
}

// ScatterMOf is ScatterM of count elements per image.
func ScatterMOf[T any](im *Image, t *images.Team, dsts [][]T, root int, src []T, count int, f gsync.Flags) error {
	dl, _, _, s, n, err := listsOf(dsts, nil, nil, src, count)
	if err != nil {
		return err
	}
	return im.ScatterM(t, dl, root, s, n, f)
}

// ScatterMOfNB is ScatterMNB of count elements per image.
func ScatterMOfNB[T any](im *Image, t *images.Team, dsts [][]T, root int, src []T, count int, f gsync.Flags) (gsync.Handle, error) {
	dl, _, _, s, n, err := listsOf(dsts, nil, nil, src, count)
	if err != nil {
		return gsync.Handle{}, err
	}
	return im.ScatterMNB(t, dl, root, s, n, f)
}

// GatherMOf is GatherM of count elements per image.
func GatherMOf[T any](im *Image, t *images.Team, root int, dst []T, srcs [][]T, count int, f gsync.Flags) error {
	_, d, sl, _, n, err := listsOf(nil, dst, srcs, nil, count)
	if err != nil {
		return err
	}
	return im.GatherM(t, root, d, sl, n, f)
}

// GatherMOfNB is GatherMNB of count elements per image.
func GatherMOfNB[T any](im *Image, t *images.Team, root int, dst []T, srcs [][]T, count int, f gsync.Flags) (gsync.Handle, error) {
	_, d, sl, _, n, err := listsOf(nil, dst, srcs, nil, count)
	if err != nil {
		return gsync.Handle{}, err
	}
	return im.GatherMNB(t, root, d, sl, n, f)
}

// GatherAllMOf is GatherAllM of count elements per image.
func GatherAllMOf[T any](im *Image, t *images.Team, dsts, srcs [][]T, count int, f gsync.Flags) error {
	dl, _, sl, _, n, err := listsOf(dsts, nil, srcs, nil, count)
	if err != nil {
		return err
	}
	return im.GatherAllM(t, dl, sl, n, f)
}

// GatherAllMOfNB is GatherAllMNB of count elements per image.
func GatherAllMOfNB[T any](im *Image, t *images.Team, dsts, srcs [][]T, count int, f gsync.Flags) (gsync.Handle, error) {
	dl, _, sl, _, n, err := listsOf(dsts, nil, srcs, nil, count)
	if err != nil {
		return gsync.Handle{}, err
	}
	return im.GatherAllMNB(t, dl, sl, n, f)
}

// ExchangeMOf is ExchangeM of count elements per block.
func ExchangeMOf[T any](im *Image, t *images.Team, dsts, srcs [][]T, count int, f gsync.Flags) error {
	dl, _, sl, _, n, err := listsOf(dsts, nil, srcs, nil, count)
	if err != nil {
		return err
	}
	return im.ExchangeM(t, dl, sl, n, f)
}

// ExchangeMOfNB is ExchangeMNB of count elements per block.
func ExchangeMOfNB[T any](im *Image, t *images.Team, dsts, srcs [][]T, count int, f gsync.Flags) (gsync.Handle, error) {
	dl, _, sl, _, n, err := listsOf(dsts, nil, srcs, nil, count)
	if err != nil {
		return gsync.Handle{}, err
	}
	return im.ExchangeMNB(t, dl, sl, n, f)
}
