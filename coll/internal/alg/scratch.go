package alg

import (
	"math/bits"
	stdsync "sync"
)

// Internal buffers of large collectives come from pools and go back when
// the operation finishes: allocating (and zeroing) a fresh megabyte per
// call costs as much as moving it. Small ones are plain allocations.
// Pooled buffers are not zeroed; every schedule overwrites its internal
// buffers before reading them.

const pooledFrom = 4 << 10 // smallest pooled buffer

var pools [48]stdsync.Pool // by size class: power of two

// Scratch hands out the internal buffers of one operation.
type Scratch struct{ held []*[]byte }

func (s *Scratch) get(n int) []byte {
	if s == nil || n < pooledFrom {
		return make([]byte, n)
	}
	c := bits.Len(uint(n - 1))
	if b, ok := pools[c].Get().(*[]byte); ok {
		s.held = append(s.held, b)
		return (*b)[:n]
	}
	b := make([]byte, n, 1<<c)
	s.held = append(s.held, &b)
	return b
}

// Bytes is the size of the pooled buffers held.
func (s *Scratch) Bytes() int {
	if s == nil {
		return 0
	}
	n := 0
	for _, b := range s.held {
		n += cap(*b)
	}
	return n
}

// Release returns the buffers; nothing may use them afterwards.
func (s *Scratch) Release() {
	if s == nil {
		return
	}
	for _, b := range s.held {
		pools[bits.Len(uint(cap(*b)-1))].Put(b)
	}
	s.held = nil
}
