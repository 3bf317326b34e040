package coll_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
	"unsafe"

	"gonum.org/v1/gonum/mat"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	"github.com/gocoll/gocoll/images"
	"github.com/gocoll/gocoll/loggp"
	"github.com/gocoll/gocoll/reducefn"
	gsync "github.com/gocoll/gocoll/sync"
)

// The function table of these tests; indices are the fn arguments.
const (
	fnSumI64 = iota
	fnMat2   // 2x2 matrix product: non-commutative
	fnConcat // bounded string concatenation: non-commutative
	fnSumF64
)

var table = []reducefn.Entry{
	fnSumI64: {Fn: sumI64, Scalar: 8},
	fnMat2:   {Fn: mat2, Flags: reducefn.NonComm},
	fnConcat: {Fn: concat, Flags: reducefn.NonComm},
	fnSumF64: {Fn: sumF64, Scalar: 8},
}

// prefixApply runs a binary operator in the callback's shape: left fold,
// then the inclusive prefix over right. It panics when results shares
// memory with an operand, which reducefn.Func forbids the engine to do:
// every reduction test of the package checks that contract.
func prefixApply(results, left, right []byte, es int, op func(out, a, b []byte)) {
	if sharesMemory(results, left) || sharesMemory(results, right) {
		panic(fmt.Sprintf("reduction callback called with results aliasing an operand (results %p+%d, left %p+%d, right %p+%d)",
			unsafe.SliceData(results), len(results), unsafe.SliceData(left), len(left), unsafe.SliceData(right), len(right)))
	}
	var acc []byte // nil until the first operand
	fold := func(x []byte) {
		if acc == nil {
			acc = append([]byte(nil), x...)
			return
		}
		t := make([]byte, es)
		op(t, acc, x)
		acc = t
	}
	for i := 0; i+es <= len(left); i += es {
		fold(left[i : i+es])
	}
	for i := 0; i+es <= len(right); i += es {
		fold(right[i : i+es])
		copy(results[i:i+es], acc)
	}
}

func sumI64(results, left, right []byte, es int, _ reducefn.Flags, _ int) {
	prefixApply(results, left, right, es, func(out, a, b []byte) {
		for k := 0; k < es; k += 8 {
			binary.LittleEndian.PutUint64(out[k:], binary.LittleEndian.Uint64(a[k:])+binary.LittleEndian.Uint64(b[k:]))
		}
	})
}

func sumF64(results, left, right []byte, es int, _ reducefn.Flags, _ int) {
	prefixApply(results, left, right, es, func(out, a, b []byte) {
		for k := 0; k < es; k += 8 {
			x := math.Float64frombits(binary.LittleEndian.Uint64(a[k:])) + math.Float64frombits(binary.LittleEndian.Uint64(b[k:]))
			binary.LittleEndian.PutUint64(out[k:], math.Float64bits(x))
		}
	})
}

func matOf(b []byte) *mat.Dense {
	v := make([]float64, 4)
	for i := range v {
		v[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return mat.NewDense(2, 2, v)
}

func mat2(results, left, right []byte, es int, _ reducefn.Flags, _ int) {
	prefixApply(results, left, right, es, func(out, a, b []byte) {
		var m mat.Dense
		m.Mul(matOf(a), matOf(b))
		for i, x := range m.RawMatrix().Data {
			binary.LittleEndian.PutUint64(out[8*i:], math.Float64bits(x))
		}
	})
}

// concat: an element is a length byte and up to es-1 characters.
func concat(results, left, right []byte, es int, _ reducefn.Flags, _ int) {
	prefixApply(results, left, right, es, func(out, a, b []byte) {
		s := append(append([]byte{}, a[1:1+a[0]]...), b[1:1+b[0]]...)
		s = s[:min(len(s), es-1)]
		clear(out)
		out[0] = byte(len(s))
		copy(out[1:], s)
	})
}

// gen is element j of the array for function fn.
func gen(fn, j, es, seed int) []byte {
	e := make([]byte, es)
	switch fn {
	case fnSumI64:
		for k := 0; k < es; k += 8 {
			binary.LittleEndian.PutUint64(e[k:], uint64(int64(j*7919+k+seed)%1000-500))
		}
	case fnSumF64:
		r := rand.New(rand.NewPCG(uint64(j), uint64(seed)))
		for k := 0; k < es; k += 8 {
			binary.LittleEndian.PutUint64(e[k:], math.Float64bits(r.NormFloat64()*math.Pow(10, float64(r.IntN(12)-6))))
		}
	case fnMat2:
		m := [2][4]float64{{1, 1, 0, 1}, {1, 0, 1, 1}}[(j+seed)%2]
		for i, x := range m {
			binary.LittleEndian.PutUint64(e[8*i:], math.Float64bits(x))
		}
	case fnConcat:
		e[0], e[1] = 1, byte('A'+(j+seed)%26)
	}
	return e
}

// sharesMemory reports whether x and y overlap.
func sharesMemory(x, y []byte) bool {
	if len(x) == 0 || len(y) == 0 {
		return false
	}
	px, py := uintptr(unsafe.Pointer(&x[0])), uintptr(unsafe.Pointer(&y[0]))
	return px < py+uintptr(len(y)) && py < px+uintptr(len(x))
}

// reference is the sequential left fold of elements 0..j for every j.
func reference(fn, count, es, seed int) [][]byte {
	out := make([][]byte, count)
	acc := gen(fn, 0, es, seed)
	out[0] = acc
	for j := 1; j < count; j++ {
		next := make([]byte, es)
		table[fn].Fn(next, acc, gen(fn, j, es, seed), es, table[fn].Flags, 0)
		out[j], acc = next, next
	}
	return out
}

// localArray builds image p's local part of the array under layout l.
func localArray(l coll.Layout, P, p, count, es, fn, seed int) []byte {
	n := 0
	for j := 0; j < count; j++ {
		if img, loc := colltest.Place(l, P, j); img == p {
			n = max(n, loc+1)
		}
	}
	b := make([]byte, n*es)
	for j := 0; j < count; j++ {
		if img, loc := colltest.Place(l, P, j); img == p {
			copy(b[loc*es:], gen(fn, j, es, seed))
		}
	}
	return b
}

// reduction is one checked computational collective.
type reduction struct {
	kind     string // reduce, all, prefix, exprefix
	fn, es   int
	count    int
	src, dst coll.Layout
	root     int
	seed     int
}

func (r reduction) String() string {
	return fmt.Sprintf("%s fn=%d es=%d count=%d src=%+v dst=%+v root=%d", r.kind, r.fn, r.es, r.count, r.src, r.dst, r.root)
}

// start initiates r on im (one image per node, on TeamAll) with buffers it
// allocates; check verifies them.
func (r reduction) start(im *coll.Image, f gsync.Flags) (gsync.Handle, func() error, error) {
	return mreduction{r, im.TeamAll(), colltest.RepresentativeSingle}.startOn(im, []int{im.ImageNum()}, f)
}

// checkDst verifies the destination of team rank rank (of P) against the
// sequential fold ref.
func (r reduction) checkDst(P, rank int, dst []byte, ref [][]byte) error {
	switch r.kind {
	case "reduce", "all":
		if (r.kind == "all" || rank == r.root) && !bytes.Equal(dst, ref[r.count-1]) {
			return fmt.Errorf("%v on rank %d: got %x, want %x", r, rank, dst, ref[r.count-1])
		}
		return nil
	}
	exclusive := r.kind == "exprefix"
	for j := 0; j < r.count; j++ {
		img, loc := colltest.Place(r.dst, P, j)
		if img != rank || (exclusive && j == 0) {
			continue
		}
		want := ref[j]
		if exclusive {
			want = ref[j-1]
		}
		if got := dst[loc*r.es : (loc+1)*r.es]; !bytes.Equal(got, want) {
			return fmt.Errorf("%v on rank %d: element %d = %x, want %x", r, rank, j, got, want)
		}
	}
	return nil
}

func (r reduction) run(im *coll.Image, f gsync.Flags) error {
	h, check, err := r.start(im, f)
	if err != nil {
		return fmt.Errorf("%v: %w", r, err)
	}
	if err := h.Wait(context.Background()); err != nil {
		return fmt.Errorf("%v: %w", r, err)
	}
	return check()
}

// runReductions runs the list on P in-process nodes with random delays.
func runReductions(t *testing.T, P int, list []reduction, f gsync.Flags) {
	t.Helper()
	err := runWithTable(P, func(im *coll.Image) error {
		for _, r := range list {
			if err := r.run(im, f); err != nil {
				return err
			}
		}
		return im.Barrier(im.TeamAll())
	})
	if err != nil {
		t.Fatal(err)
	}
}

// runWithTable is colltest.Run with this file's function table.
func runWithTable(P int, fn func(im *coll.Image) error) error {
	w := colltest.NewWorld(P, colltest.Options{MaxDelay: 30 * time.Microsecond, Seed: uint64(P)})
	errs := make(chan error, P)
	for i := range P {
		go func() {
			im, err := coll.Init(w.Conduit(i), images.OnePerNode(P), i, table, 0, coll.Options{})
			if err == nil {
				err = fn(im)
			}
			if err != nil {
				err = fmt.Errorf("node %d: %w", i, err)
			}
			errs <- err
		}()
	}
	var first error
	timeout := time.After(3 * time.Minute)
	for range P {
		select {
		case err := <-errs:
			if err != nil && first == nil {
				first = err
			}
		case <-timeout:
			return fmt.Errorf("reductions on %d nodes hang", P)
		}
	}
	w.Quiesce()
	return first
}

// layoutsFor are the named layouts of the tests for count elements on P images.
func layoutsFor(count, P int) map[string]coll.Layout {
	return map[string]coll.Layout{
		"cyclic":           coll.Cyclic,
		"blocked":          coll.Blocked(count, P),
		"block-cyclic":     {BlockSize: 3},
		"unaligned":        {BlockSize: 2, Offset: 5},
		"cyclic-offset":    {BlockSize: 1, Offset: P + 1},
		"indefinite-last":  coll.OnImage(P - 1),
		"indefinite-first": coll.OnImage(0),
	}
}

func TestNonCommutativeLayouts(t *testing.T) {
	for _, P := range []int{1, 2, 3, 5, 8} {
		var list []reduction
		for _, fn := range []int{fnMat2, fnConcat} {
			es := 32
			if fn == fnConcat {
				es = 64
			}
			for _, count := range []int{1, 7, 40} {
				ls := layoutsFor(count, P)
				for _, name := range []string{"cyclic", "blocked", "block-cyclic", "unaligned", "cyclic-offset", "indefinite-last", "indefinite-first"} {
					l := ls[name]
					list = append(list,
						reduction{kind: "reduce", fn: fn, es: es, count: count, src: l, root: (count + 1) % P},
						reduction{kind: "all", fn: fn, es: es, count: count, src: l},
						reduction{kind: "prefix", fn: fn, es: es, count: count, src: l, dst: l},
						reduction{kind: "exprefix", fn: fn, es: es, count: count, src: l, dst: l},
						// reblocking: the destination laid out otherwise
						reduction{kind: "prefix", fn: fn, es: es, count: count, src: l, dst: ls["unaligned"]},
						reduction{kind: "exprefix", fn: fn, es: es, count: count, src: l, dst: ls["indefinite-first"]},
					)
				}
			}
		}
		t.Run(fmt.Sprintf("P=%d", P), func(t *testing.T) {
			t.Parallel()
			runReductions(t, P, list, gsync.InMySync|gsync.OutMySync|gsync.Local)
		})
	}
}

// TestRandomLayouts draws layouts, counts and operators at random (fixed
// seeds) at P = 1..16 against the sequential reference.
func TestRandomLayouts(t *testing.T) {
	for P := 1; P <= 16; P++ {
		r := rand.New(rand.NewPCG(uint64(P), 99))
		layout := func() coll.Layout {
			if r.IntN(5) == 0 {
				return coll.OnImage(r.IntN(P))
			}
			return coll.Layout{BlockSize: 1 + r.IntN(6), Offset: r.IntN(3 * P)}
		}
		var list []reduction
		for i := 0; i < 24; i++ {
			fn := []int{fnSumI64, fnMat2, fnConcat}[r.IntN(3)]
			es := map[int]int{fnSumI64: 8 * (1 + r.IntN(3)), fnMat2: 32, fnConcat: 48}[fn]
			kind := []string{"reduce", "all", "prefix", "exprefix"}[r.IntN(4)]
			list = append(list, reduction{kind: kind, fn: fn, es: es, count: 1 + r.IntN(60), src: layout(), dst: layout(), root: r.IntN(P), seed: i})
		}
		t.Run(fmt.Sprintf("P=%d", P), func(t *testing.T) {
			t.Parallel()
			runReductions(t, P, list, []gsync.Flags{gsync.Local, gsync.Single}[P%2]|gsync.InMySync|gsync.OutMySync)
		})
	}
}

// TestReductionSyncModes runs reductions in all nine modes, blocking and
// non-blocking, many in flight at once mixed with data-movement collectives.
func TestReductionSyncModes(t *testing.T) {
	const P = 6
	err := runWithTable(P, func(im *coll.Image) error {
		tm := im.TeamAll()
		for _, in := range []gsync.Flags{gsync.InNoSync, gsync.InMySync, gsync.InAllSync} {
			for _, out := range []gsync.Flags{gsync.OutNoSync, gsync.OutMySync, gsync.OutAllSync} {
				f := in | out | gsync.Local
				var hs []gsync.Handle
				var checks []func() error
				for i, kind := range []string{"reduce", "all", "prefix", "exprefix", "reduce", "all"} {
					r := reduction{kind: kind, fn: []int{fnSumI64, fnMat2}[i%2], es: 32, count: 5 + 3*i, src: coll.Layout{BlockSize: 2, Offset: i}, dst: coll.Cyclic, root: i % P, seed: i}
					h, check, err := r.start(im, f)
					if err != nil {
						return err
					}
					// a broadcast in flight between the reductions
					bsrc, bdst := []byte{byte(i), 1, 2}, make([]byte, 3)
					hb, err := im.BroadcastNB(tm, bdst, i%P, bsrc, 3, f)
					if err != nil {
						return err
					}
					hs = append(hs, h, hb)
					checks = append(checks, check, func() error {
						if bdst[0] != byte(i) {
							return fmt.Errorf("broadcast %d among reductions: %v", i, bdst)
						}
						return nil
					})
				}
				if err := gsync.WaitAll(context.Background(), hs); err != nil {
					return err
				}
				if err := im.Barrier(tm); err != nil { // OUT_NOSYNC results are defined after it
					return err
				}
				for _, c := range checks {
					if err := c(); err != nil {
						return fmt.Errorf("%v: %w", f, err)
					}
				}
				// and one blocking call of each in this mode
				for _, kind := range []string{"reduce", "all", "prefix", "exprefix"} {
					r := reduction{kind: kind, fn: fnConcat, es: 40, count: 13, src: coll.Cyclic, dst: coll.Blocked(13, P), root: P - 1}
					if err := r.run(im, f); err != nil {
						return err
					}
					if err := im.Barrier(tm); err != nil {
						return err
					}
				}
			}
		}
		return im.Barrier(tm)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestFloatDeterminism: floating-point sums give bitwise identical results
// in repeated runs (with different message timing), also on the large path.
func TestFloatDeterminism(t *testing.T) {
	const P = 7
	for _, es := range []int{8, 64 << 10} {
		var first [][]byte
		for run := 0; run < 5; run++ {
			results := make([][]byte, P)
			w := colltest.NewWorld(P, colltest.Options{MaxDelay: time.Duration(run*20) * time.Microsecond, Seed: uint64(run + 1)})
			errs := make(chan error, P)
			for i := range P {
				go func() {
					im, err := coll.Init(w.Conduit(i), nil, 0, table, 0, coll.Options{})
					if err != nil {
						errs <- err
						return
					}
					l := coll.Layout{BlockSize: 2, Offset: 1}
					count := 2*P + 3
					if es > 8 {
						l, count = coll.Cyclic, P // one large element per image
					}
					src := localArray(l, P, i, count, es, fnSumF64, 0)
					dst := make([]byte, es)
					err = im.ReduceAll(im.TeamAll(), dst, src, l, es, count, fnSumF64, 0, gsync.InMySync|gsync.OutMySync|gsync.Local)
					results[i] = dst
					if err == nil {
						err = im.Barrier(im.TeamAll())
					}
					errs <- err
				}()
			}
			for range P {
				if err := <-errs; err != nil {
					t.Fatal(err)
				}
			}
			for i := 1; i < P; i++ {
				if !bytes.Equal(results[i], results[0]) {
					t.Fatalf("es=%d run %d: image %d differs from image 0", es, run, i)
				}
			}
			if first == nil {
				first = results
			} else if !bytes.Equal(first[0], results[0]) {
				t.Fatalf("es=%d run %d differs from run 0", es, run)
			}
		}
	}
}

// TestReduceIntoReceived: a Reduce or ReduceAll with a ready-made function
// folds a received partial in place in the destination; the results are
// bitwise those of the same kernels run as user code (which never fold in
// place), for every root, with one and several images per node, in every
// output mode, vectors of floats (sums round) and of pairs, whole and
// split.
func TestReduceIntoReceived(t *testing.T) {
	own := []reducefn.Entry{reducefn.Sum[float64](), reducefn.Min[float64](), reducefn.MinLoc[float64](), reducefn.Sum[int32]()}
	fns := slices.Clone(own)
	for _, e := range own {
		fn := e.Fn // the same kernel, but not Own: no fold in place
		fns = append(fns, reducefn.Entry{Fn: func(r, l, rt []byte, es int, f reducefn.Flags, a int) { fn(r, l, rt, es, f, a) }, Flags: e.Flags, Scalar: e.Scalar})
	}
	const lanes = 1000
	split := coll.Options{Model: loggp.Params{O: 0.1, Gap: 0.1, G: 0.0001, Fold: 1}} // every ReduceAll splits
	for i, per := range [][]int{{1, 1}, {1, 1, 1}, {2, 1, 3}, {1, 1, 1, 1, 1}, {1, 1}, {2, 1, 3}} {
		opts := coll.Options{}
		if i >= 4 {
			opts = split
		}
		t.Run(fmt.Sprint(per, i >= 4), func(t *testing.T) {
			err := colltest.RunImages(per, colltest.Options{MaxDelay: 10 * time.Microsecond, Seed: 7}, opts, fns, time.Minute,
				func(im *coll.Image, _ *colltest.Node) error {
					all := im.TeamAll()
					me, P := all.Rank(im.ImageNum()), all.Size()
					for k := range own {
						es := lanes * own[k].Scalar
						src := make([]byte, es)
						r := rand.New(rand.NewPCG(uint64(me), uint64(k)))
						for i := range src {
							src[i] = byte(r.IntN(256))
						}
						if k == 2 { // MinLoc pairs: a Val and a Loc
							v := unsafe.Slice((*reducefn.ValLoc[float64])(unsafe.Pointer(&src[0])), lanes)
							for i := range v {
								v[i] = reducefn.ValLoc[float64]{Val: float64(r.IntN(5)), Loc: int64(me)}
							}
						} else if k != 3 {
							v := unsafe.Slice((*float64)(unsafe.Pointer(&src[0])), lanes)
							for i := range v {
								v[i] = r.NormFloat64() * math.Pow(10, float64(r.IntN(12)-6))
							}
						}
						for root := -1; root < P; root++ { // -1: ReduceAll
							for _, out := range []gsync.Flags{gsync.OutNoSync, gsync.OutMySync, gsync.OutAllSync} {
								f := gsync.InMySync | out | gsync.AllThreads | gsync.Single
								var got [2][]byte
								for j, fn := range []int{k, len(own) + k} {
									got[j] = make([]byte, es)
									var err error
									if root < 0 {
										err = im.ReduceAll(all, got[j], src, coll.Cyclic, es, P, fn, 0, f)
									} else {
										err = im.Reduce(all, root, got[j], src, coll.Cyclic, es, P, fn, 0, f)
									}
									if err != nil {
										return err
									}
									if err := im.Barrier(all); err != nil {
										return err
									}
								}
								if (me == root || root < 0) && !bytes.Equal(got[0], got[1]) {
									return fmt.Errorf("function %d, root %d, %v: the ready-made entry's result differs from the same kernel's as user code", k, root, out)
								}
							}
						}
					}
					return nil
				})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}
