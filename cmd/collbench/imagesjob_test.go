package main

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/gocoll/gocoll/cmd/internal/benchcsv"
	"github.com/gocoll/gocoll/mpiconduit/mpi"
)

func TestImagesNames(t *testing.T) {
	for _, e := range imagesEntries(&bench{}) {
		if !strings.HasPrefix(e.name, imagesPrefix) || e.oneImage == "" || !e.sized || e.minRanks != 2 || e.drain == nil {
			t.Errorf("entry %+v", e)
		}
		if got, want := e.label(2), strings.Replace(e.name, "Tnp", "T2", 1); got != want {
			t.Errorf("label(2) = %q, want %q", got, want)
		}
		name, tt, ok := imagesAlias(strings.ToLower(e.label(12)))
		if !ok || tt != 12 || !strings.EqualFold(name, e.name) {
			t.Errorf("imagesAlias(%q) = %q, %d, %v", e.label(12), name, tt, ok)
		}
	}
	if got := (entry{name: "gocoll.Broadcast"}).label(2); got != "gocoll.Broadcast" {
		t.Errorf("one-image label = %q", got)
	}
	for _, s := range []string{"gocoll.Tnp.Broadcast", "gocoll.T.Broadcast", "gocoll.T0.X", "gocoll.T2", "gocol.T2.Broadcast", "gocoll.T 2.X", "gocoll.T٢.X"} {
		if name, tt, ok := imagesAlias(s); ok {
			t.Errorf("imagesAlias(%q) = %q, %d, true", s, name, tt)
		}
	}
}

// f64s is the float64 view of a buffer of the job.
func f64s(b []byte) []float64 { return unsafe.Slice((*float64)(unsafe.Pointer(&b[0])), len(b)/8) }

// TestImagesJob runs every operation of the images job and checks what the
// images received: the job is rank 0's alone (MPI_COMM_SELF), so it runs
// on every rank, at any np, also under plain go test.
func TestImagesJob(t *testing.T) {
	const maxSize = 5000
	for _, T := range []int{2, 3} {
		t.Run(fmt.Sprintf("T%d", T), func(t *testing.T) {
			j, err := newImagesJob(T, maxSize, true)
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				if err := j.close(); err != nil {
					t.Error(err)
				}
			}()
			for _, c := range []struct {
				op  imageOp
				all bool
			}{{(*imagesJob).broadcast, true}, {(*imagesJob).broadcastM, false}} {
				for _, size := range []int{1, 1000, maxSize} {
					for k := 1; k < T; k++ {
						clear(j.bcast[k])
					}
					if err := j.run(c.op, c.all, size, 3); err != nil {
						t.Fatal(err)
					}
					for k := 1; k < T; k++ {
						past := j.bcast[k][size:]
						if !bytes.Equal(j.bcast[k][:size], j.bcast[root][:size]) || len(past) > 0 && past[0] != 0 {
							t.Fatalf("broadcast (all %v) of %d bytes: image %d got %v...", c.all, size, k, j.bcast[k][:8])
						}
					}
				}
			}
			for _, c := range []struct {
				op  imageOp
				all bool
			}{{(*imagesJob).reduceAll, true}, {(*imagesJob).reduceAllM, false}} {
				for _, size := range []int{8, 1000, maxSize} {
					for k := range T {
						clear(j.rdst[k])
					}
					if err := j.run(c.op, c.all, size, 2); err != nil {
						t.Fatal(err)
					}
					n := elems(size)
					for k := range T {
						got := f64s(j.rdst[k])
						for i := range n {
							want := float64(T*(i%1000) + T*(T-1)/2) // sum over images k of i%1000 + k
							if got[i] != want {
								t.Fatalf("reduceAll (all %v) of %d bytes: image %d element %d = %v, want %v", c.all, size, k, i, got[i], want)
							}
						}
						if len(got) > n && got[n] != 0 {
							t.Fatalf("reduceAll of %d bytes wrote past %d elements on image %d", size, n, k)
						}
					}
				}
			}
			for _, c := range []struct {
				op  imageOp
				all bool
			}{{(*imagesJob).barrier, true}, {(*imagesJob).nodeBarrier, false}} {
				if err := j.run(c.op, c.all, 0, 0); err != nil {
					t.Fatal(err)
				}
			}
			// A panic in an image comes back as an error, and the image
			// keeps serving.
			boom := func(*imagesJob, int, int, int) error { panic("boom") }
			if err := j.run(boom, true, 0, 0); err == nil || !strings.Contains(err.Error(), "panic: boom") {
				t.Errorf("panicking op: err = %v", err)
			}
			if err := j.run((*imagesJob).barrier, true, 0, 0); err != nil {
				t.Errorf("after a panic: %v", err)
			}
		})
	}
}

// TestIdleRanksSleep checks that while rank 0 measures its images job the
// other ranks wait for it asleep (a blocking receive would busy-poll a core
// away from rank 0's images): each of them sees its waiting goroutine
// parked in time.Sleep inside sleepUntilReleased before rank 0 releases
// it, and learns whether the job failed. How little CPU the wait costs is
// BenchmarkSleepUntilReleased's figure.
func TestIdleRanksSleep(t *testing.T) {
	w := mpi.World()
	if w.Size() < 2 {
		t.Skip("needs 2 ranks: run under mpirun -np 2 (scripts/mpirun-tests.sh)")
	}
	b := newBench(w, 8, true)
	const seenTag = 90 // apart from the benchmark's own tags (ops.go, imagesjob.go)
	for _, ok := range []bool{true, false} {
		if err := w.Barrier(); err != nil {
			t.Fatal(err)
		}
		if b.rank == root {
			// Release only once every other rank saw its wait asleep, so
			// that what they see is a wait for the release.
			for r := range b.np {
				if r != root {
					if _, err := w.Recv(make([]byte, 1), r, seenTag); err != nil {
						t.Fatal(err)
					}
				}
			}
			if err := b.release(ok); err != nil {
				t.Fatal(err)
			}
			continue
		}
		b.status[0] = 0xff // no verdict: only the release writes one
		done := make(chan error, 1)
		go func() { done <- b.sleepUntilReleased() }()
		asleep := waitAsleep(".(*bench).sleepUntilReleased(", done)
		if !asleep {
			t.Errorf("rank %d: the wait for rank 0 was never seen asleep in time.Sleep (it returned, or it spins)", b.rank)
		}
		if err := w.Send([]byte{0}, root, seenTag); err != nil { // rank 0 releases either way
			t.Fatal(err)
		}
		err := <-done
		switch {
		case ok && err != nil:
			t.Errorf("released: %v", err)
		case !ok && !errors.Is(err, errImagesJob):
			t.Errorf("released after a failure: err = %v, want %v", err, errImagesJob)
		}
	}
}

// waitAsleep reports whether a goroutine whose stack holds the frame fn
// is seen in the state time.Sleep gives it, before done is ready (the wait
// returned) or a minute passes (it never sleeps: it spins or blocks in MPI).
func waitAsleep(fn string, done <-chan error) bool {
	buf := make([]byte, 1<<20)
	for giveUp := time.Now().Add(time.Minute); time.Now().Before(giveUp); {
		if len(done) > 0 {
			return false
		}
		n := runtime.Stack(buf, true)
		for _, g := range strings.Split(string(buf[:n]), "\n\n") {
			// "goroutine 7 [sleep]:" then its frames
			if strings.Contains(g, fn) && strings.Contains(g, " [sleep") {
				return true
			}
		}
		time.Sleep(idlePoll)
	}
	return false
}

// BenchmarkSleepUntilReleased measures what a rank waiting for rank 0's
// images job costs: the CPU time the process uses while sleepUntilReleased
// waits for a release that comes after wait, over that wall time (cpu/wall;
// a busy-polling receive would be near 1). On MPI_COMM_SELF, so it runs
// under plain go test:
//
//	go test -run '^$' -bench SleepUntilReleased ./cmd/collbench
func BenchmarkSleepUntilReleased(bb *testing.B) {
	const wait = 20 * time.Millisecond
	self := mpi.Self()
	b := newBench(self, 8, true)
	cpu0, t0 := cpuSeconds(bb), time.Now()
	for bb.Loop() {
		go func() {
			time.Sleep(wait)
			if err := self.Send([]byte{0}, root, releaseTag); err != nil {
				panic(err)
			}
		}()
		if err := b.sleepUntilReleased(); err != nil {
			bb.Fatal(err)
		}
	}
	cpu, wall := cpuSeconds(bb)-cpu0, time.Since(t0).Seconds()
	bb.ReportMetric(cpu/wall, "cpu/wall")
}

// cpuSeconds is the CPU time this process has used.
func cpuSeconds(tb testing.TB) float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// TestImagesRowsNP1: at np 1 the images-per-node rows are skipped with a
// note, and no images table is printed.
func TestImagesRowsNP1(t *testing.T) {
	w := mpi.World()
	if w.Size() != 1 {
		t.Skip("the np 1 case: runs under plain go test and mpirun -np 1")
	}
	ops, _, err := parseOps("gocoll.Broadcast,gocoll.Tnp.Broadcast,gocoll.tnp.broadcastm,gocoll.Tnp.ReduceAll,gocoll.Tnp.ReduceAllM")
	if err != nil {
		t.Fatal(err)
	}
	cfg := config{minSize: 8, maxSize: 64, step: 8, iters: 3, warmup: 1, ops: ops, yield: true, reps: 1}
	var out, csvOut bytes.Buffer
	if err := run(cfg, w, &out, &csvOut); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, e := range imagesEntries(&bench{}) {
		if note := "# " + e.name + " skipped: needs 2 ranks, running with 1\n"; !strings.Contains(text, note) {
			t.Errorf("no note %q:\n%s", note, text)
		}
	}
	if strings.Contains(text, "gocoll.T1") || strings.Contains(text, "images per node") || strings.Contains(csvOut.String(), "/") {
		t.Errorf("images rows or ratios at np 1:\n%s\n%s", text, csvOut.String())
	}
	if !strings.Contains(text, "\ngocoll.Broadcast ") {
		t.Errorf("gocoll.Broadcast did not run:\n%s", text)
	}
}

// TestImagesRows runs the images-per-node rows with their one-image rows at
// np >= 2 (under mpirun): rows named with T = np, rank 0's figures alone,
// the images table and its CSV rows; and the skip when --ops asks for
// another T.
func TestImagesRows(t *testing.T) {
	w := mpi.World()
	np := w.Size()
	if np < 2 {
		t.Skip("needs 2 ranks: run under mpirun -np 2 (scripts/mpirun-tests.sh)")
	}
	T := strconv.Itoa(np)
	ops, tt, err := parseOps(fmt.Sprintf("gocoll.T%s.Broadcast,gocoll.T%[1]s.BroadcastM,gocoll.Tnp.ReduceAll,gocoll.t%[1]s.reduceallm,gocoll.reduceall,gocoll.broadcast", T))
	if err != nil {
		t.Fatal(err)
	}
	cfg := config{minSize: 8, maxSize: 20000, step: 32, iters: 20, warmup: 2, ops: ops, imagesT: tt, yield: true, reps: 2}
	sizes := cfg.sizes() // 8 256 8192 20000
	var out, csvOut, other bytes.Buffer
	if err := run(cfg, w, &out, &csvOut); err != nil {
		t.Fatal(err)
	}
	// --ops with another T: the rows are skipped, with a note.
	cfgT := cfg
	cfgT.imagesT, cfgT.maxSize = np+1, 8
	if err := run(cfgT, w, &other, nil); err != nil {
		t.Fatal(err)
	}
	if w.Rank() != root {
		if out.Len() != 0 || csvOut.Len() != 0 || other.Len() != 0 {
			t.Errorf("rank %d wrote output: %q", w.Rank(), out.String())
		}
		return
	}
	if note := "# gocoll.Tnp.ReduceAllM skipped: --ops asked for T = " + strconv.Itoa(np+1); !strings.Contains(other.String(), note) ||
		strings.Contains(other.String(), "images per node") || !strings.Contains(other.String(), "\ngocoll.Broadcast ") {
		t.Errorf("T = %d at np %d: want %q, gocoll.Broadcast and no images table:\n%s", np+1, np, note, other.String())
	}
	text := out.String()
	t.Logf("\n%s", text)
	if !strings.Contains(text, "# gocoll.T"+T+".* rows: T = np = "+T+" images on ONE process (rank 0") ||
		!strings.Contains(text, "Go avg/min/max are rank 0's alone") {
		t.Errorf("no note on the images rows:\n%s", text)
	}
	recs, err := csv.NewReader(&csvOut).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	byOp := map[string][][]string{}
	for _, r := range recs[1:] {
		byOp[r[0]] = append(byOp[r[0]], r)
	}
	num := func(r []string, col int) float64 {
		v, err := strconv.ParseFloat(r[col], 64)
		if err != nil || !(v > 0) {
			t.Errorf("row %v: column %s = %q, want > 0", r, benchcsv.Header[col], r[col])
		}
		return v
	}
	if n := len(byOp); n != 2+4+4 {
		t.Errorf("%d kinds of CSV rows, want 10: %v", n, recs)
	}
	for _, e := range imagesEntries(&bench{}) {
		name, ratio := e.label(np), e.label(np)+"/"+e.oneImage
		if !strings.Contains(text, "\n"+name+" ") || !strings.Contains(text, "\n"+ratio+" ") {
			t.Errorf("table lacks %s or %s", name, ratio)
		}
		rows, rs, ones := byOp[name], byOp[ratio], byOp[e.oneImage]
		if len(rows) != len(sizes) || len(rs) != len(sizes) || len(ones) != len(sizes) {
			t.Fatalf("%s: %d rows, %d ratios, %d %s rows; want %d each", name, len(rows), len(rs), len(ones), e.oneImage, len(sizes))
		}
		for i, r := range rows {
			// Rank 0's figures alone: min = avg = max (the sleeping
			// ranks' zeros would make min 0).
			if num(r, 5) != num(r, 6) || num(r, 5) != num(r, 7) {
				t.Errorf("%v: Go avg/min/max differ, want rank 0's alone", r)
			}
			num(r, 8)
			q := rs[i]
			if q[1] != r[1] || q[1] != strconv.Itoa(sizes[i]) || q[5] != r[5] || q[8] != ones[i][5] || q[9] != ones[i][6] || q[10] != ones[i][7] {
				t.Errorf("ratio row %v: from %v and %v", q, r, ones[i])
			}
			if got, want := num(q, 11), num(r, 5)/num(ones[i], 5); got < want*0.999 || got > want*1.001 {
				t.Errorf("ratio row %v: ratio %v, want %v", q, got, want)
			}
		}
	}
}
