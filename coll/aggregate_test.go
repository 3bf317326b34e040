package coll_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	"github.com/gocoll/gocoll/images"
	gsync "github.com/gocoll/gocoll/sync"
)

// TestAggregatesInProcess: aggregates of 1..64 members of every kind,
// root, size and sync mode give each member's data, on every table, with
// random delays, on TeamAll and on a team of every other image.
func TestAggregatesInProcess(t *testing.T) {
	for i, per := range matrixTables(testing.Short()) {
		t.Run(fmt.Sprint(per), func(t *testing.T) {
			t.Parallel()
			delay := colltest.Options{MaxDelay: 20 * time.Microsecond, Seed: uint64(i + 7)}
			cfg := colltest.AggregateConfig{Seed: uint64(i)}
			err := colltest.RunImages(per, delay, coll.Options{Tree: coll.Tree(i % 4)}, nil, 3*time.Minute,
				func(im *coll.Image, nd *colltest.Node) error {
					if err := colltest.Aggregates(im, nd, im.TeamAll(), cfg); err != nil {
						return fmt.Errorf("TeamAll: %w", err)
					}
					half, err := im.Split(im.TeamAll(), im.ImageNum()%2, 0)
					if err != nil {
						return err
					}
					hcfg := cfg
					hcfg.Members = []int{5, 17}
					if err := colltest.Aggregates(im, nd, half, hcfg); err != nil {
						return fmt.Errorf("odd/even team: %w", err)
					}
					return im.Destroy(half)
				})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestAggregateCoalesces counts messages: k members of one kind cost what
// one costs on the wire (their messages to a peer travel as one), with
// every sync mode paid once; members of two kinds cost what one of each
// does, their barriers once. The counts are exact: a job's messages do not
// depend on timing.
func TestAggregateCoalesces(t *testing.T) {
	const P = 4
	type member func(im *coll.Image, b []byte, f gsync.Flags) (gsync.Handle, error)
	bcast := func(im *coll.Image, b []byte, f gsync.Flags) (gsync.Handle, error) {
		return im.BroadcastNB(im.TeamAll(), b[:8], 1, b[8:16], 8, f)
	}
	all := func(im *coll.Image, b []byte, f gsync.Flags) (gsync.Handle, error) {
		return im.ReduceAllNB(im.TeamAll(), b[:16], b[16:32], coll.Cyclic, 16, P, fnSumI64, 0, f)
	}
	exch := func(im *coll.Image, b []byte, f gsync.Flags) (gsync.Handle, error) {
		return im.ExchangeNB(im.TeamAll(), b[:8*P], b[8*P:16*P], 8, f)
	}
	// messages runs a job that makes the members (k of each kind,
	// aggregated or one by one) and reports the messages the world carried
	// beyond those of the same job without them (Init and a Barrier).
	var messages func(t *testing.T, kinds []member, k int, aggregate bool, mode gsync.Flags) int64
	messages = func(t *testing.T, kinds []member, k int, aggregate bool, mode gsync.Flags) int64 {
		w := colltest.NewWorld(P, colltest.Options{})
		err := w.RunImages([]int{1, 1, 1, 1}, coll.Options{}, table, time.Minute, func(im *coll.Image, _ *colltest.Node) error {
			var hs []gsync.Handle
			for i := range k * len(kinds) {
				f := mode | gsync.Local
				if aggregate && i < k*len(kinds)-1 {
					f |= gsync.Aggregate
				}
				h, err := kinds[i%len(kinds)](im, make([]byte, 16*P), f)
				if err != nil {
					return err
				}
				hs = append(hs, h)
			}
			if err := gsync.WaitAll(context.Background(), hs); err != nil {
				return err
			}
			return im.Barrier(im.TeamAll())
		})
		if err != nil {
			t.Fatal(err)
		}
		w.Quiesce()
		if k == 0 {
			return w.Sent()
		}
		return w.Sent() - messages(t, kinds, 0, false, mode)
	}
	for _, mode := range []gsync.Flags{gsync.InMySync | gsync.OutMySync, gsync.InAllSync | gsync.OutAllSync, gsync.InNoSync | gsync.OutNoSync} {
		for _, c := range []struct {
			name  string
			kinds []member
		}{{"broadcast", []member{bcast}}, {"reduce_all", []member{all}}, {"exchange", []member{exch}}, {"broadcast+reduce_all", []member{bcast, all}}} {
			t.Run(fmt.Sprintf("%s/%v", c.name, mode), func(t *testing.T) {
				one := messages(t, c.kinds, 1, false, mode)
				alone := messages(t, c.kinds, 16, false, mode)
				agg := messages(t, c.kinds, 16, true, mode)
				barriers := int64(0)
				if mode.In() == gsync.InAllSync {
					barriers += barrierMessages(P)
				}
				if mode.Out() == gsync.OutAllSync {
					barriers += barrierMessages(P)
				}
				data := one - int64(len(c.kinds))*barriers // one call of each kind, without barriers
				if alone != 16*one {
					t.Fatalf("16 calls alone: %d messages, want 16 x %d", alone, one)
				}
				// One fused schedule per kind, the barriers once.
				if want := data + barriers; agg != want {
					t.Fatalf("aggregate of 16 per kind: %d messages, want %d (one call: %d)", agg, want, one)
				}
			})
		}
	}
}

// barrierMessages is what a dissemination barrier over P nodes sends.
func barrierMessages(P int) int64 {
	rounds := 0
	for 1<<rounds < P {
		rounds++
	}
	return int64(P * rounds)
}

// TestAggregateReductions: reductions of every kind in aggregates, mixed
// with each other, give the sequential fold, also with several images per
// node (every image calling, and a representative).
func TestAggregateReductions(t *testing.T) {
	for i, per := range [][]int{{1, 1}, {2, 2}, {1, 3, 2}, {1, 1, 1, 1, 1}} {
		t.Run(fmt.Sprint(per), func(t *testing.T) {
			t.Parallel()
			delay := colltest.Options{MaxDelay: 20 * time.Microsecond, Seed: uint64(i + 3)}
			err := colltest.RunImages(per, delay, coll.Options{}, table, 2*time.Minute, func(im *coll.Image, nd *colltest.Node) error {
				all := im.TeamAll()
				me := all.Rank(im.ImageNum())
				local := all.Members(all.NodeRank(im.Node()))
				list := reductionList(all.Size())
				for _, rep := range []bool{false, true} {
					fm, ranks, f := colltest.EveryImage, []int{me}, gsync.InMySync|gsync.OutMySync|gsync.Single|gsync.AllThreads
					if rep {
						fm, ranks, f = colltest.Representative, local, gsync.InMySync|gsync.OutMySync|gsync.Single
						nd.Rendezvous("rep", len(local))
					}
					if !rep || local[0] == me {
						for start := 0; start < len(list); start += 9 {
							end := min(start+9, len(list))
							var checks []func() error
							var last gsync.Handle
							for j, red := range list[start:end] {
								g := f
								if start+j < end-1 {
									g |= gsync.Aggregate
								}
								h, check, err := mreduction{red, all, fm}.startOn(im, ranks, g)
								if err != nil {
									return fmt.Errorf("%v: %w", red, err)
								}
								checks, last = append(checks, check), h
							}
							if err := last.Wait(context.Background()); err != nil {
								return err
							}
							for j, c := range checks {
								if err := c(); err != nil {
									return fmt.Errorf("%v in an aggregate: %w", list[start+j], err)
								}
							}
						}
					}
					if rep {
						nd.Rendezvous("rep", len(local))
					}
				}
				return im.Barrier(all)
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestAggregateMisuse: what may not happen while an image has an aggregate
// open on a team fails with ErrAggregateOpen and leaves the aggregate as it
// was; Aggregate on blocking calls is refused; other teams are not held.
func TestAggregateMisuse(t *testing.T) {
	err := colltest.RunImages([]int{1, 1, 1}, colltest.Options{}, coll.Options{}, table, time.Minute, func(im *coll.Image, _ *colltest.Node) error {
		all := im.TeamAll()
		me := im.ImageNum()
		pair, err := im.Split(all, images.NoColor*b2n(me == 2), me) // images 0 and 1
		if err != nil {
			return err
		}
		a, b := make([]byte, 8), make([]byte, 8)
		agg := gsync.InMySync | gsync.OutMySync | gsync.Local | gsync.Aggregate
		if err := im.Broadcast(all, a, 0, b, 8, agg); !errors.Is(err, gsync.ErrAggregateBlocking) {
			return fmt.Errorf("blocking with Aggregate: %v", err)
		}
		if _, err := im.BroadcastNB(all, a, 0, b, 8, agg); err != nil {
			return err
		}
		for name, err := range map[string]error{
			"Barrier":        im.Barrier(all),
			"NodeBarrier":    im.NodeBarrier(all),
			"Split":          second(im.Split(all, 0, 0)),
			"TeamFromImages": second(im.TeamFromImages(all, []int{0, 1, 2})),
			"Close":          im.Close(),
		} {
			if !errors.Is(err, coll.ErrAggregateOpen) {
				return fmt.Errorf("%s with an aggregate open: %v", name, err)
			}
		}
		// Another team's collectives go on meanwhile.
		if pair != nil {
			if err := im.Broadcast(pair, a, 0, b, 8, gsync.InMySync|gsync.OutMySync|gsync.Local); err != nil {
				return fmt.Errorf("a collective on another team: %w", err)
			}
			if _, err := im.BroadcastNB(pair, a, 0, b, 8, agg); err != nil {
				return err
			}
			if err := im.Destroy(pair); !errors.Is(err, coll.ErrAggregateOpen) {
				return fmt.Errorf("Destroy with an aggregate open: %v", err)
			}
			if err := im.Broadcast(pair, a, 0, b, 8, gsync.InMySync|gsync.OutMySync|gsync.Local); err != nil {
				return err
			}
			if err := im.Destroy(pair); err != nil {
				return err
			}
		}
		// The Last ends the aggregate; then all of it is allowed again.
		if err := im.Broadcast(all, a, 0, b, 8, gsync.InMySync|gsync.OutMySync|gsync.Local); err != nil {
			return err
		}
		return im.Barrier(all)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func second[T any](_ T, err error) error { return err }

func b2n(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestAggregateReuse: an aggregate made again on the same buffers runs a
// cached operation; one that differs from a cached one at some member (in
// kind, buffers or count), or is longer or shorter, is built anew. Every
// run gives its data, with new values each time.
func TestAggregateReuse(t *testing.T) {
	const P = 3
	err := colltest.RunImages([]int{1, 1, 1}, colltest.Options{MaxDelay: 10 * time.Microsecond, Seed: 5}, coll.Options{}, table, time.Minute, func(im *coll.Image, _ *colltest.Node) error {
		all := im.TeamAll()
		me := im.ImageNum()
		const k = 6
		bsrc, bdst := make([][]byte, k+1), make([][]byte, k+1)
		gsrc, gdst := make([][]byte, k+1), make([][]byte, k+1)
		for m := range k + 1 {
			bsrc[m], bdst[m] = make([]byte, 8), make([]byte, 8)
			gsrc[m], gdst[m] = make([]byte, 8), make([]byte, 8*P)
		}
		// shapes: the members' kinds by iteration (b: broadcast, g: gather_all)
		shapes := []string{"bbbbbb", "bbbbbb", "bbgbbb", "bbbbbb", "bbbbb", "bbbbbbb", "bbbbbb", "gggggg", "bbbbbb"}
		for it, shape := range shapes {
			var last gsync.Handle
			for m, c := range shape {
				f := gsync.InMySync | gsync.OutMySync | gsync.Local
				if m < len(shape)-1 {
					f |= gsync.Aggregate
				}
				val := byte(it*16 + m)
				var err error
				if c == 'b' {
					for i := range bsrc[m] {
						bsrc[m][i] = val
					}
					last, err = im.BroadcastNB(all, bdst[m], m%P, bsrc[m], 8, f)
				} else {
					for i := range gsrc[m] {
						gsrc[m][i] = val + byte(me)
					}
					last, err = im.GatherAllNB(all, gdst[m], gsrc[m], 8, f)
				}
				if err != nil {
					return err
				}
			}
			if err := last.Wait(context.Background()); err != nil {
				return err
			}
			if err := im.Barrier(all); err != nil {
				return err
			}
			for m, c := range shape {
				val := byte(it*16 + m)
				if c == 'b' && bdst[m][3] != val {
					return fmt.Errorf("iteration %d (%s) member %d: broadcast got %d, want %d", it, shape, m, bdst[m][3], val)
				}
				for r := 0; c == 'g' && r < P; r++ {
					if got := gdst[m][8*r+5]; got != val+byte(r) {
						return fmt.Errorf("iteration %d (%s) member %d: gather_all block %d got %d, want %d", it, shape, m, r, got, val+byte(r))
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
