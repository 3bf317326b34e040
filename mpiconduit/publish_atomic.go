//go:build !amd64 || race

package mpiconduit

import "sync/atomic"

// publish stores v in a ring's flag or tail (see publish_plain.go): elsewhere
// than amd64, and under the race detector, an atomic store (on arm64
// already of release order only).
func publish(p *atomic.Uint64, v uint64) { p.Store(v) }
