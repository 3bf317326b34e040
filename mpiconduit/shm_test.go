package mpiconduit

import (
	"encoding/binary"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// TestRingOrder runs a ring's producer and consumer on two goroutines over
// plain memory, as two processes share it: messages of random sizes
// (empty, small, up to the largest, so that the ring wraps with skips and
// fills), whose payloads are made of words that look like headers and
// skips, must arrive in order, whole, and once each. A producer that wrote
// into room not yet freed, or a consumer that lost its place at a skip,
// fails it (both checked by breaking them). Also run under -race.
func TestRingOrder(t *testing.T) {
	const size = 4 << 10
	mem := make([]uint64, (ringHeader+size)/8) // 8-aligned, zero
	buf := unsafe.Slice((*byte)(unsafe.Pointer(&mem[0])), len(mem)*8)
	var out outRing
	var in inRing
	out.head, out.tail = ringCounters(buf)
	in.head, in.tail = ringCounters(buf)
	out.data, out.freeTo, in.data = buf[ringHeader:], size, buf[ringHeader:]
	const msgs = 20000
	rng := rand.New(rand.NewPCG(1, 2))
	sizes := make([]int, msgs)
	for i := range sizes {
		switch rng.IntN(4) {
		case 0:
			sizes[i] = 0
		case 1:
			sizes[i] = 8 * (1 + rng.IntN(4))
		case 2:
			sizes[i] = 1 + rng.IntN(size/8)
		default:
			sizes[i] = rng.IntN(64)
		}
	}
	payload := func(i int) []byte {
		b := make([]byte, sizes[i])
		for k := 0; k+8 <= len(b); k += 8 { // words a consumer must not take for headers
			h := uint64(i+1+k) | uint64(sizes[(i+1)%msgs])<<32 // a tag and a length
			if k%16 == 8 {
				h = uint64(skipMark) << 32
			}
			binary.LittleEndian.PutUint64(b[k:], h)
		}
		for k := len(b) &^ 7; k < len(b); k++ {
			b[k] = byte(i + k)
		}
		return b
	}
	var stop atomic.Bool // a failed check ends the producer too
	defer stop.Store(true)
	go func() {
		for i := range msgs {
			b := payload(i)
			for !out.put(i, b) {
				if stop.Load() {
					return
				}
			}
		}
	}()
	for i := range msgs {
		var (
			tag int
			got []byte
			ok  bool
		)
		for !ok {
			tag, got, ok = in.next()
		}
		require.Equal(t, i, tag, "message %d", i)
		require.Equal(t, payload(i), got, "message %d (%d bytes)", i, sizes[i])
		in.consume(len(got))
	}
	_, _, ok := in.next()
	require.False(t, ok, "no message after the last")
}
