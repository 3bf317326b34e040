package coll_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/gocoll/gocoll/coll"
	"github.com/gocoll/gocoll/coll/colltest"
	"github.com/gocoll/gocoll/loggp"
	"github.com/gocoll/gocoll/reducefn"
	gsync "github.com/gocoll/gocoll/sync"
)

// Aggregates of large members: members above the fusion limit travel as
// their own messages, and a repeated aggregate runs its cached operation,
// with the same data as without the flag (aggregate.go).

// TestAggregatesLarge is TestAggregatesInProcess with blocks around and
// above the sizes where aggregation changes how members travel: small
// blocks packed into one message, blocks whose packed messages would pass
// the fusion limit.
func TestAggregatesLarge(t *testing.T) {
	sizes := []int{1, 200, 2100, 4096, 4097, 9000, 20000}
	for i, per := range [][]int{{1, 1}, {1, 1, 1}, {2, 1, 3}, {1, 1, 1, 1, 1}} {
		t.Run(fmt.Sprint(per), func(t *testing.T) {
			t.Parallel()
			delay := colltest.Options{MaxDelay: 20 * time.Microsecond, Seed: uint64(i + 11)}
			cfg := colltest.AggregateConfig{Seed: uint64(i + 40), Sizes: sizes, Members: []int{1, 3, 16}, Rounds: 4}
			err := colltest.RunImages(per, delay, coll.Options{Tree: coll.Tree(i % 4)}, nil, 3*time.Minute,
				func(im *coll.Image, nd *colltest.Node) error {
					return colltest.Aggregates(im, nd, im.TeamAll(), cfg)
				})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestAggregatesSizeChoice: where the cost model picks another tree for
// larger blocks of the same collective (here gather and scatter on eight
// nodes: a flat tree for 50-byte blocks, a binomial one for 3000), members
// of both sizes in one aggregate run their own trees: a skeleton is fused
// only with members that share it.
func TestAggregatesSizeChoice(t *testing.T) {
	const P = 8
	o := coll.Options{Model: loggp.Params{L: 1, O: 1, Gap: 1, G: 0.0001}}
	if o.TreeFor(coll.TreeBlocks, P, 32) == o.TreeFor(coll.TreeBlocks, P, 2048) {
		t.Fatal("the model picks one tree for both sizes: the test needs another")
	}
	per := make([]int, P)
	for i := range per {
		per[i] = 1
	}
	err := colltest.RunImages(per, colltest.Options{MaxDelay: 10 * time.Microsecond, Seed: 9}, o, nil, 20*time.Second,
		func(im *coll.Image, nd *colltest.Node) error {
			all := im.TeamAll()
			me := im.ImageNum()
			sizes := []int{50, 3000, 50, 3000}
			dsts, srcs := make([][]byte, len(sizes)), make([][]byte, len(sizes))
			var h gsync.Handle
			for m, n := range sizes {
				dsts[m], srcs[m] = make([]byte, P*n), make([]byte, n)
				for i := range srcs[m] {
					srcs[m][i] = byte(m + me + i)
				}
				f := gsync.InMySync | gsync.OutMySync | gsync.Local
				if m < len(sizes)-1 {
					f |= gsync.Aggregate
				}
				var err error
				if h, err = im.GatherNB(all, 0, dsts[m], srcs[m], n, f); err != nil {
					return err
				}
			}
			if err := h.Wait(context.Background()); err != nil {
				return err
			}
			for m, n := range sizes {
				for i := 0; me == 0 && i < P*n; i++ {
					if got, want := dsts[m][i], byte(m+i/n+i%n); got != want {
						return fmt.Errorf("gather %d of %d bytes: byte %d = %d, want %d", m, n, i, got, want)
					}
				}
			}
			cfg := colltest.AggregateConfig{Seed: 3, Sizes: []int{50, 3000}, Members: []int{2, 5, 16}, Rounds: 3}
			return colltest.Aggregates(im, nd, all, cfg)
		})
	if err != nil {
		t.Fatal(err)
	}
}

// largeMember is a member of the repeated aggregates below: a broadcast of
// n bytes from root, or (n < 0) a ReduceAll of one int64 vector of -n
// bytes per image, on buffers of its own.
type largeMember struct {
	n, root  int
	dst, src []byte
}

// largeMembers are members of every way an aggregate moves them: small
// broadcasts packed into one message, broadcasts whose packed message
// would pass the fusion limit (each on its own tag), broadcasts and
// reductions with large blocks, and small reductions fused.
func largeMembers(P int) []*largeMember {
	var ms []*largeMember
	add := func(k, n int) {
		for range k {
			m := &largeMember{n: n, root: len(ms) % P}
			b := max(n, -n)
			m.dst, m.src = make([]byte, b), make([]byte, b)
			ms = append(ms, m)
		}
	}
	add(3, 8)
	add(8, 3000)
	add(2, 64<<10)
	add(2, -(24 << 10))
	add(3, -16)
	add(1, 5000)
	return ms
}

// start initiates member m of the aggregate with flags f.
func (m *largeMember) start(im *coll.Image, f gsync.Flags) (gsync.Handle, error) {
	all := im.TeamAll()
	if m.n > 0 {
		return im.BroadcastNB(all, m.dst, m.root, m.src, m.n, f)
	}
	return im.ReduceAllNB(all, m.dst, m.src, coll.Cyclic, -m.n, all.Size(), 0, 0, f)
}

// fill sets the sources of iteration it on image me.
func (m *largeMember) fill(it, me, k int) {
	if m.n > 0 {
		for i := range m.src {
			m.src[i] = byte(it*7 + k*3 + i + me)
		}
		return
	}
	for i := 0; i < len(m.src); i += 8 {
		binary.LittleEndian.PutUint64(m.src[i:], uint64(it*1000+k*100+i+me))
	}
}

// check verifies the destination of iteration it on P images.
func (m *largeMember) check(it, P, k int) error {
	if m.n > 0 {
		for i := range m.dst {
			if want := byte(it*7 + k*3 + i + m.root); m.dst[i] != want {
				return fmt.Errorf("broadcast of %d bytes from %d: byte %d = %d, want %d", m.n, m.root, i, m.dst[i], want)
			}
		}
		return nil
	}
	for i := 0; i < len(m.dst); i += 8 {
		want := uint64(0)
		for me := range P {
			want += uint64(it*1000 + k*100 + i + me)
		}
		if got := binary.LittleEndian.Uint64(m.dst[i:]); got != want {
			return fmt.Errorf("ReduceAll of %d bytes: word %d = %d, want %d", -m.n, i/8, got, want)
		}
	}
	return nil
}

// TestAggregateLargeRepeated: an aggregate of small and large members made
// again and again on the same buffers (an iterative code) gives each
// iteration's data, under every sync mode of the members (a different one
// each iteration, and mixed within one), with a blocking or non-blocking
// Last, on two, three and four nodes.
func TestAggregateLargeRepeated(t *testing.T) {
	ins := []gsync.Flags{gsync.InNoSync, gsync.InMySync, gsync.InAllSync}
	outs := []gsync.Flags{gsync.OutNoSync, gsync.OutMySync, gsync.OutAllSync}
	fns := []reducefn.Entry{reducefn.Sum[int64]()}
	for _, P := range []int{2, 3, 4} {
		t.Run(fmt.Sprint(P), func(t *testing.T) {
			t.Parallel()
			delay := colltest.Options{MaxDelay: 10 * time.Microsecond, Seed: uint64(P)}
			per := make([]int, P)
			for i := range per {
				per[i] = 1
			}
			err := colltest.RunImages(per, delay, coll.Options{}, fns, 2*time.Minute, func(im *coll.Image, _ *colltest.Node) error {
				me := im.ImageNum()
				ms := largeMembers(P)
				for it := range 12 {
					mixed := it%3 == 2 // members of several modes in one aggregate
					relaxed := false
					for k, m := range ms {
						m.fill(it, me, k)
					}
					var last gsync.Handle
					for k, m := range ms {
						mode := it
						if mixed {
							mode = it + k
						}
						f := ins[mode%3] | outs[mode/3%3] | gsync.Local
						relaxed = relaxed || f.Out() == gsync.OutNoSync
						if k < len(ms)-1 {
							f |= gsync.Aggregate
						}
						h, err := m.start(im, f)
						if err != nil {
							return fmt.Errorf("iteration %d member %d: %w", it, k, err)
						}
						if k < len(ms)-1 && h.Valid() {
							return fmt.Errorf("iteration %d member %d: a member's handle is valid", it, k)
						}
						last = h
					}
					if it%2 == 0 {
						if err := last.Wait(context.Background()); err != nil {
							return fmt.Errorf("iteration %d: %w", it, err)
						}
					} else if err := gsync.WaitAll(context.Background(), []gsync.Handle{last}); err != nil {
						return fmt.Errorf("iteration %d: %w", it, err)
					}
					if relaxed { // OUT_NOSYNC: others' data may move until every node synced
						if err := im.Barrier(im.TeamAll()); err != nil {
							return err
						}
					}
					for k, m := range ms {
						if m.n > 0 && me == m.root {
							continue
						}
						if err := m.check(it, P, k); err != nil {
							return fmt.Errorf("iteration %d member %d: %w", it, k, err)
						}
					}
					// the next iteration writes the sources others may still read
					if err := im.Barrier(im.TeamAll()); err != nil {
						return err
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

// TestAggregateManySchedules: an aggregate whose members need more
// schedules than fit in a few bits of a transfer's index (every member of
// a shape of its own) completes with every member's data.
func TestAggregateManySchedules(t *testing.T) {
	const k = 300
	err := colltest.RunImages([]int{1, 1, 1}, colltest.Options{}, coll.Options{}, table, time.Minute, func(im *coll.Image, _ *colltest.Node) error {
		all := im.TeamAll()
		me := im.ImageNum()
		dsts, srcs := make([][]byte, k), make([][]byte, k)
		var h gsync.Handle
		for m := range k {
			f := gsync.InMySync | gsync.OutMySync | gsync.Local
			if m < k-1 {
				f |= gsync.Aggregate
			}
			es := 8 * (m + 1) // every member its own element size: its own schedule
			dsts[m], srcs[m] = make([]byte, es), make([]byte, es)
			for i := 0; i < es; i += 8 {
				binary.LittleEndian.PutUint64(srcs[m][i:], uint64(m*10+i+me))
			}
			var err error
			if h, err = im.ReduceAllNB(all, dsts[m], srcs[m], coll.Cyclic, es, all.Size(), fnSumI64, 0, f); err != nil {
				return err
			}
		}
		if err := h.Wait(context.Background()); err != nil {
			return err
		}
		for m := range k {
			for i := 0; i < len(dsts[m]); i += 8 {
				if got, want := binary.LittleEndian.Uint64(dsts[m][i:]), uint64(3*(m*10+i)+3); got != want {
					return fmt.Errorf("member %d word %d: %d, want %d", m, i/8, got, want)
				}
			}
		}
		return im.Barrier(all)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestAggregateLargeMismatch: a large member's message, which travels on
// its own, still has its header: where the nodes' members disagree on its
// length, the receiving node fails with ErrMismatch and writes nothing.
func TestAggregateLargeMismatch(t *testing.T) {
	errs := make([]error, 2)
	dsts := make([][]byte, 2)
	err := colltest.RunImages([]int{1, 1}, colltest.Options{}, coll.Options{}, nil, 10*time.Second, func(im *coll.Image, _ *colltest.Node) error {
		me := im.ImageNum()
		n := 9000 + me // node 1 expects a byte more than node 0 sends
		src, dst := make([]byte, n), make([]byte, n)
		for i := range src {
			src[i] = 7
		}
		f := gsync.InMySync | gsync.OutMySync | gsync.Local
		small := make([]byte, 16)
		if _, err := im.BroadcastNB(im.TeamAll(), small[:8], 0, small[8:], 8, f|gsync.Aggregate); err != nil {
			return err
		}
		h, err := im.BroadcastNB(im.TeamAll(), dst, 0, src, n, f)
		if err == nil {
			err = h.Wait(context.Background())
		}
		errs[me], dsts[me] = err, dst
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(errs[1], coll.ErrMismatch) {
		t.Fatalf("node 1: %v, want ErrMismatch", errs[1])
	}
	for i, b := range dsts[1] {
		if b != 0 {
			t.Fatalf("node 1's destination written at byte %d", i)
		}
	}
}

// quietConduit is an in-process conduit that allocates nothing once its
// lists have grown (colltest's copies messages that arrive before their
// receive): a send that finds no receive waits for one, and completes when
// matched, as MPI's rendezvous does. Allocation counts on it are gocoll's.
type quietConduit struct {
	w    *quietWorld
	node int
	// under w.mu
	posted []quietXfer // receives waiting for a send
	waits  []quietXfer // sends waiting for a receive
	done   []uint64
}

type quietXfer struct {
	peer, tag int
	buf       []byte
	token     uint64
}

type quietWorld struct {
	mu    sync.Mutex
	nodes []*quietConduit
}

func newQuietWorld(P int) *quietWorld {
	w := &quietWorld{}
	for i := range P {
		w.nodes = append(w.nodes, &quietConduit{w: w, node: i})
	}
	return w
}

func (c *quietConduit) Node() int   { return c.node }
func (c *quietConduit) Nodes() int  { return len(c.w.nodes) }
func (c *quietConduit) MaxTag() int { return math.MaxInt32 }

// take removes and returns the first entry of xs from peer with tag.
func take(xs *[]quietXfer, peer, tag int) (quietXfer, bool) {
	for i, x := range *xs {
		if x.peer == peer && x.tag == tag {
			copy((*xs)[i:], (*xs)[i+1:])
			*xs = (*xs)[:len(*xs)-1]
			return x, true
		}
	}
	return quietXfer{}, false
}

// move delivers a send to a receive, or fails the receiving node.
func move(to *quietConduit, r quietXfer, b []byte) error {
	if len(b) != len(r.buf) {
		return fmt.Errorf("node %d: a message of %d bytes for a receive of %d", to.node, len(b), len(r.buf))
	}
	copy(r.buf, b)
	return nil
}

func (c *quietConduit) Isend(dst, tag int, b []byte, token uint64) (bool, error) {
	c.w.mu.Lock()
	defer c.w.mu.Unlock()
	to := c.w.nodes[dst]
	if r, ok := take(&to.posted, c.node, tag); ok {
		if err := move(to, r, b); err != nil {
			return false, err
		}
		to.done = append(to.done, r.token)
		return true, nil
	}
	to.waits = append(to.waits, quietXfer{peer: c.node, tag: tag, buf: b, token: token})
	return false, nil
}

func (c *quietConduit) Irecv(src, tag int, b []byte, token uint64) (bool, error) {
	c.w.mu.Lock()
	defer c.w.mu.Unlock()
	if s, ok := take(&c.waits, src, tag); ok {
		if err := move(c, quietXfer{buf: b}, s.buf); err != nil {
			return false, err
		}
		from := c.w.nodes[src]
		from.done = append(from.done, s.token)
		return true, nil
	}
	c.posted = append(c.posted, quietXfer{peer: src, tag: tag, buf: b, token: token})
	return false, nil
}

func (c *quietConduit) Poll(done []uint64) ([]uint64, error) {
	c.w.mu.Lock()
	defer c.w.mu.Unlock()
	done = append(done, c.done...)
	c.done = c.done[:0]
	return done, nil
}

// TestAggregateLargeAllocs: a repeated aggregate of large members (and a
// few small ones) allocates nothing per run once it has run, as a small
// one does: its operation and buffers are reused. Counted on a conduit
// that allocates nothing itself, over every node's goroutine. Where a
// handle syncs before its aggregate's last sends complete (OUT_NOSYNC),
// the next run may find it still busy and take the other cached copy; a
// node that runs further ahead builds one now and then (a build costs
// some 300 allocations: one in 20 runs seen, where every run built when
// only the first copy was looked at).
func TestAggregateLargeAllocs(t *testing.T) {
	if raceOn {
		t.Skip("the race detector allocates")
	}
	for _, c := range []struct {
		P    int
		mode gsync.Flags
		most float64
	}{
		{2, gsync.InAllSync | gsync.OutMySync, 1},
		{3, gsync.InAllSync | gsync.OutAllSync, 1},
		{2, gsync.InNoSync | gsync.OutNoSync, 100},
	} {
		t.Run(fmt.Sprintf("%d/%v", c.P, c.mode), func(t *testing.T) { aggregateAllocs(t, c.P, c.mode, c.most) })
	}
}

// aggregateAllocs is TestAggregateLargeAllocs on P nodes in mode, with at
// most most allocations per run (the other nodes run alongside node 0's
// counted runs).
func aggregateAllocs(t *testing.T, P int, mode gsync.Flags, most float64) {
	w := newQuietWorld(P)
	fns := []reducefn.Entry{reducefn.Sum[int64]()}
	ims := make([]*coll.Image, P)
	errs := make([]error, P)
	var wg sync.WaitGroup
	all := func(f func(i int) error) error {
		for i := range P {
			wg.Go(func() { errs[i] = f(i) })
		}
		wg.Wait()
		return errors.Join(errs...)
	}
	if err := all(func(i int) (err error) {
		ims[i], err = coll.Init(w.nodes[i], nil, 0, fns, 0, coll.Options{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	ms := make([][]*largeMember, P)
	for i := range P {
		ms[i] = largeMembers(P)
	}
	run := func(i int) error {
		var last gsync.Handle
		for k, m := range ms[i] {
			f := mode | gsync.Local
			if k < len(ms[i])-1 {
				f |= gsync.Aggregate
			}
			h, err := m.start(ims[i], f)
			if err != nil {
				return err
			}
			last = h
		}
		return last.Wait(context.Background())
	}
	// Runs of every node that build the aggregate (a second copy where
	// the first is still busy), then the others run alongside node 0's
	// counted runs (AllocsPerRun's warm-up run included).
	const warm, runs = 3, 20
	for range warm {
		if err := all(run); err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i < P; i++ {
		wg.Go(func() {
			for range runs + 1 {
				if errs[i] = run(i); errs[i] != nil {
					return
				}
			}
		})
	}
	errs[0] = nil
	allocs := testing.AllocsPerRun(runs, func() {
		if errs[0] == nil {
			errs[0] = run(0)
		}
	})
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	t.Logf("%.2f allocations per run", allocs)
	if allocs > most {
		t.Errorf("%.1f allocations per repeated aggregate of %d members, want at most %v", allocs, len(ms[0]), most)
	}
	if err := all(func(i int) error { return ims[i].Barrier(ims[i].TeamAll()) }); err != nil {
		t.Fatal(err)
	}
}
