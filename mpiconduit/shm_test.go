package mpiconduit

import (
	"encoding/binary"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// TestRingOrder runs a ring's producer and consumer on two goroutines over
// plain memory, as two processes share it: messages of random sizes
// (empty, within a line, past it, up to the largest, so that both the
// lines and the data wrap and fill) must arrive in order, whole, and once
// each. Their payloads are made of words that look like headers, data
// offsets and the flags lines carry on the next lap; and every flag word
// must only ever hold a flag of its own line. A producer that wrote payload
// over a flag, or published a flag before its message, or wrote into room
// not yet freed, or a consumer that freed data too early, fails it (each
// checked by breaking them). Also run under -race.
func TestRingOrder(t *testing.T) {
	// 4 KiB of data and 16 lines: both wrap often.
	const size = 4 << 10
	mem := make([]uint64, ringStride(size)/8) // 8-aligned, zero
	buf := unsafe.Slice((*byte)(unsafe.Pointer(&mem[0])), len(mem)*8)
	out := outRing{ring: ringAt(buf, size), dataFree: size}
	out.lineFree = uint64(len(out.lines))
	in := inRing{ring: ringAt(buf, size)}
	lines := uint64(len(in.lines))
	const msgs = 20000
	rng := rand.New(rand.NewPCG(1, 2))
	sizes := make([]int, msgs)
	for i := range sizes {
		switch rng.IntN(4) {
		case 0:
			sizes[i] = rng.IntN(2) * inline // empty, or a full line
		case 1:
			sizes[i] = 8 * (1 + rng.IntN(12))
		case 2:
			sizes[i] = 1 + rng.IntN(size/8)
		default:
			sizes[i] = rng.IntN(200)
		}
	}
	payload := func(i int) []byte {
		b := make([]byte, sizes[i])
		for k := 0; k+8 <= len(b); k += 8 {
			at := uint64(i) * lineBytes // message i's line, in the stream
			h := flagAt(at + lines)     // its flag, a lap on
			switch k % 32 {
			case 8:
				h = flagAt(at + lineBytes + lines) // the next line's
			case 16:
				h = uint64(i+1+k) | uint64(sizes[(i+1)%msgs])<<32 // a tag and a length
			case 24:
				h = uint64(k * size / 8) // a data offset
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
			tag, n int
			ok     bool
		)
		for wait := time.Now(); !ok; {
			if tag, n, ok = in.next(); !ok && time.Since(wait) > 10*time.Second {
				t.Fatalf("message %d did not come", i)
			}
		}
		for pos := uint64(0); pos < lines; pos += lineBytes {
			if f := in.flag(pos).Load(); f != 0 && (f-1)*lineBytes%lines != pos {
				t.Fatalf("at message %d, the flag word of the line at %d holds %#x", i, pos, f)
			}
		}
		require.Equal(t, i, tag, "message %d", i)
		require.Equal(t, sizes[i], n, "message %d", i)
		got := make([]byte, n)
		in.payload(got)
		require.Equal(t, payload(i), got, "message %d (%d bytes)", i, sizes[i])
		in.consume(n)
	}
	_, _, ok := in.next()
	require.False(t, ok, "no message after the last")
}
