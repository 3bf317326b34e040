package coll

import (
	"reflect"
	"testing"
	"unsafe"

	"github.com/gocoll/gocoll/internal/engine"
	gsync "github.com/gocoll/gocoll/sync"
)

// TestHandleLayout: public converts an engine.Handle to a sync.Handle in
// place, which holds while sync.Handle is a struct of one engine.Handle.
func TestHandleLayout(t *testing.T) {
	pub := reflect.TypeFor[gsync.Handle]()
	if pub.NumField() != 1 || pub.Field(0).Type != reflect.TypeFor[engine.Handle]() ||
		unsafe.Sizeof(gsync.Handle{}) != unsafe.Sizeof(engine.Handle{}) {
		t.Fatalf("sync.Handle is no longer a struct of one engine.Handle: %v", pub)
	}
}
