//go:build amd64 && !race

package mpiconduit

import (
	"sync/atomic"
	"unsafe"
)

// publish stores v in a ring's flag or tail with release order only: on
// amd64 a plain store, since x86 makes stores visible in program order
// (and Go's compiler keeps stores in order). The atomic store is an XCHG
// there, a full fence that holds the producer until the ring's lines came
// over from the peer that last read them (profiled: over a third of the Go
// side of a ReduceAll of 8 B at np 2, when it published a counter); with a
// plain store those transfers overlap what the process does next. Nothing
// in the rings needs the stronger order: each side only waits for what the
// other published. Under the race detector (which cannot see a plain
// store's order: TestRingOrder runs both ends in one process) publish is
// the atomic store.
func publish(p *atomic.Uint64, v uint64) {
	*(*uint64)(unsafe.Pointer(p)) = v
}
