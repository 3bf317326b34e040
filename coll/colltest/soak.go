package colltest

import (
	"context"
	"encoding/binary"
	"fmt"
	"runtime"
	"time"

	"github.com/gocoll/gocoll/coll"
	gsync "github.com/gocoll/gocoll/sync"
)

// The soak: many small collectives, as an iterative code makes them, with
// the process's heap in use and goroutine count measured at checkpoints
// after a warm-up. Both must stay flat: a leak of a few bytes or one
// goroutine per collective shows as growth over the run, which a long run
// (scripts/soak.sh: a million) turns into megabytes.

// SoakConfig sizes a soak.
type SoakConfig struct {
	// Ops is the number of collectives (default 1,000,000).
	Ops int
	// Checkpoints is how many measurements are taken after the warm-up
	// (the first tenth of the run); default 10.
	Checkpoints int
	// Measure: this image measures its process (one image per process
	// should; in process every node shares one).
	Measure bool
	// HeapSlack and HeapPerOp bound the growth of the heap in use from the
	// warm-up's end to any later checkpoint: HeapSlack + HeapPerOp bytes per
	// collective run since (defaults 1 MiB and 8).
	HeapSlack uint64
	HeapPerOp float64
	// GoroutineSlack bounds the growth of the goroutine count (default 2).
	GoroutineSlack int
}

// SoakReport is what a soak measured (on the measuring image).
type SoakReport struct {
	Ops                        int
	Elapsed                    time.Duration
	HeapBase, HeapMax, HeapEnd uint64 // heap in use (runtime.MemStats.HeapInuse) after a GC
	GoBase, GoMax, GoEnd       int    // runtime.NumGoroutine
}

func (r SoakReport) String() string {
	return fmt.Sprintf("%d collectives in %v (%.1f us each): heap in use %d -> max %d, end %d bytes (%+d); goroutines %d -> max %d, end %d",
		r.Ops, r.Elapsed.Round(time.Millisecond), float64(r.Elapsed.Microseconds())/float64(max(r.Ops, 1)),
		r.HeapBase, r.HeapMax, r.HeapEnd, int64(r.HeapEnd)-int64(r.HeapBase), r.GoBase, r.GoMax, r.GoEnd)
}

// Soak runs cfg's collectives on im's TeamAll; every image calls it, after
// Init with ModelFuncs. A round of eight is: a broadcast (root turning), a
// reduce_all (sum), a gather_all, a batch of four non-blocking broadcasts
// and exchanges synced with WaitAll, and a NO/NO broadcast checked after a
// barrier; the buffers turn among four sets, so schedules are cached and
// reused. Every result is checked. The error reports growth beyond the
// bounds, naming the figures.
func Soak(im *coll.Image, cfg SoakConfig) (SoakReport, error) {
	if cfg.Ops == 0 {
		cfg.Ops = 1000000
	}
	if cfg.Checkpoints == 0 {
		cfg.Checkpoints = 10
	}
	if cfg.HeapSlack == 0 {
		cfg.HeapSlack = 1 << 20
	}
	if cfg.HeapPerOp == 0 {
		cfg.HeapPerOp = 8
	}
	if cfg.GoroutineSlack == 0 {
		cfg.GoroutineSlack = 2
	}
	t := im.TeamAll()
	P, me := t.Size(), t.Rank(im.ImageNum())
	f := gsync.InMySync | gsync.OutMySync | gsync.Single
	if im.Images() > im.Table().Nodes() { // a single-address form needs AllThreads then
		f |= gsync.AllThreads
	}
	const sets = 4
	type bufs struct{ src, dst, big, exsrc, exdst, rsrc, rdst []byte }
	var b [sets]bufs
	for i := range b {
		b[i] = bufs{make([]byte, 8), make([]byte, 8), make([]byte, 8*P), make([]byte, 8*P), make([]byte, 8*P), make([]byte, 8), make([]byte, 8)}
	}
	var hs [4]gsync.Handle
	var rep SoakReport
	warm := cfg.Ops / 10
	every := max(1, (cfg.Ops-warm)/cfg.Checkpoints)
	var start time.Time
	base := 0 // collectives run by the warm-up's end
	measure := func(i int) error {
		if err := im.Barrier(t); err != nil {
			return err
		}
		if cfg.Measure {
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			g := runtime.NumGoroutine()
			if rep.HeapBase == 0 { // the first checkpoint: the warm-up's end
				rep.HeapBase, rep.HeapMax, rep.GoBase, rep.GoMax = ms.HeapInuse, ms.HeapInuse, g, g
				start, base = time.Now(), i
			}
			rep.HeapMax, rep.GoMax = max(rep.HeapMax, ms.HeapInuse), max(rep.GoMax, g)
			rep.HeapEnd, rep.GoEnd, rep.Ops, rep.Elapsed = ms.HeapInuse, g, i-base, time.Since(start)
			allowed := cfg.HeapSlack + uint64(cfg.HeapPerOp*float64(i-base))
			if ms.HeapInuse > rep.HeapBase+allowed || g > rep.GoBase+cfg.GoroutineSlack {
				return fmt.Errorf("after %d collectives: heap in use %d bytes (%d after warm-up, %d allowed growth), %d goroutines (%d after warm-up): %v",
					i, ms.HeapInuse, rep.HeapBase, allowed, g, rep.GoBase, rep)
			}
		}
		return im.Barrier(t)
	}
	word := func(dst []byte, v int) { binary.LittleEndian.PutUint64(dst, uint64(v)) }
	get := func(src []byte) int { return int(binary.LittleEndian.Uint64(src)) }
	for i, next := 0, warm; i < cfg.Ops; {
		if i >= next {
			if err := measure(i); err != nil {
				return rep, err
			}
			next += every
		}
		bs := &b[(i/8)%sets]
		root := (i / 8) % P
		var err error
		switch i % 8 {
		case 0: // broadcast
			word(bs.src, i*P+root)
			err = im.Broadcast(t, bs.dst, root, bs.src, 8, f)
			if err == nil && get(bs.dst) != i*P+root {
				err = fmt.Errorf("broadcast got %d, want %d", get(bs.dst), i*P+root)
			}
		case 1: // reduce_all, sum of i+rank
			word(bs.src, i+me)
			err = im.ReduceAll(t, bs.dst, bs.src, coll.Cyclic, 8, P, modelSum, 0, f)
			if want := P*i + P*(P-1)/2; err == nil && get(bs.dst) != want {
				err = fmt.Errorf("reduce_all got %d, want %d", get(bs.dst), want)
			}
		case 2: // gather_all
			word(bs.src, i+me)
			err = im.GatherAll(t, bs.big, bs.src, 8, f)
			for r := 0; err == nil && r < P; r++ {
				if get(bs.big[8*r:]) != i+r {
					err = fmt.Errorf("gather_all block %d got %d, want %d", r, get(bs.big[8*r:]), i+r)
				}
			}
		case 3: // four non-blocking collectives in flight
			for r := range P {
				word(bs.exsrc[8*r:], i*P*P+me*P+r)
			}
			word(bs.src, i)
			if hs[0], err = im.BroadcastNB(t, bs.dst, root, bs.src, 8, f); err == nil {
				hs[1], err = im.ExchangeNB(t, bs.exdst, bs.exsrc, 8, f)
			}
			other := &b[(i/8+1)%sets]
			if err == nil {
				word(other.src, i+me)
				hs[2], err = im.GatherAllNB(t, other.big, other.src, 8, f)
			}
			if err == nil {
				word(bs.rsrc, i-me)
				hs[3], err = im.ReduceAllNB(t, bs.rdst, bs.rsrc, coll.Cyclic, 8, P, modelSum, 0, f)
			}
			if err == nil {
				err = gsync.WaitAll(context.Background(), hs[:])
			}
			for r := 0; err == nil && r < P; r++ {
				if get(bs.exdst[8*r:]) != i*P*P+r*P+me || get(other.big[8*r:]) != i+r {
					err = fmt.Errorf("exchange or gather_all block %d wrong", r)
				}
			}
			if err == nil && (get(bs.dst) != i || get(bs.rdst) != P*i-P*(P-1)/2) {
				err = fmt.Errorf("non-blocking broadcast got %d, want %d; reduce_all %d, want %d", get(bs.dst), i, get(bs.rdst), P*i-P*(P-1)/2)
			}
			i += 3 // four collectives
		case 7: // NO/NO, checked after a barrier
			word(bs.src, i)
			err = im.Broadcast(t, bs.dst, root, bs.src, 8, f&^(gsync.InMySync|gsync.OutMySync)|gsync.InNoSync|gsync.OutNoSync)
			if err == nil {
				err = im.Barrier(t)
			}
			if err == nil && get(bs.dst) != i {
				err = fmt.Errorf("NO/NO broadcast got %d, want %d", get(bs.dst), i)
			}
		}
		if err != nil {
			return rep, fmt.Errorf("collective %d: %w", i, err)
		}
		i++
	}
	return rep, measure(cfg.Ops)
}
