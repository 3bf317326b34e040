package plan

import (
	"reflect"
	"slices"
	"testing"
	"unsafe"

	"github.com/gocoll/gocoll/coll/internal/alg"
	gsync "github.com/gocoll/gocoll/sync"
)

// Key.Equal must be ==: a key equals its copy, and changing any one
// field (each in turn, found by reflection, so that a field added later is
// covered) makes two keys differ.
func TestPlanKeyEqual(t *testing.T) {
	buf := make([]byte, 16)
	base := Key{Kind: ReduceAll, Flags: gsync.InMySync | gsync.OutMySync | gsync.Local, Root: 1, N: 2,
		Dst: IDOf(buf[:8]), Src: IDOf(buf[8:]), BH: 3, ElemSize: 8, Count: 4, Fn: 5, Arg: 6,
		SrcLayout: alg.Layout{BlockSize: 1, Offset: 2}, DstLayout: alg.Layout{BlockSize: 3, Offset: 4}}
	if k := base; !k.Equal(&base) {
		t.Fatal("a key differs from its copy")
	}
	var paths [][]int // index paths of the leaf fields
	var walk func(typ reflect.Type, at []int)
	walk = func(typ reflect.Type, at []int) {
		if typ.Kind() != reflect.Struct {
			paths = append(paths, at)
			return
		}
		for i := range typ.NumField() {
			walk(typ.Field(i).Type, append(slices.Clone(at), i))
		}
	}
	walk(reflect.TypeOf(base), nil)
	for _, path := range paths {
		k := base
		f := reflect.ValueOf(&k).Elem().FieldByIndex(path)
		f = reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem() // settable, unexported or not
		switch {
		case f.CanInt():
			f.SetInt(f.Int() + 1)
		case f.CanUint():
			f.SetUint(f.Uint() + 1)
		case f.Kind() == reflect.Pointer:
			f.Set(reflect.New(f.Type().Elem()))
		default:
			t.Fatalf("field %v of kind %v: teach this test to change it", path, f.Kind())
		}
		if k.Equal(&base) || base.Equal(&k) {
			t.Errorf("keys that differ in field %v are equal", path)
		}
	}
	if len(paths) < 17 {
		t.Fatalf("only %d fields checked", len(paths))
	}
}
