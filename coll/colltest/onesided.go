package colltest

import (
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/gocoll/gocoll/coll"
)

// OneSidedConduit is a conduit with segments.
type OneSidedConduit interface {
	coll.Conduit
	coll.OneSided
}

// OneSidedErrors are the sentinels that a conduit's one-sided misuse errors
// match (errors.Is): each conduit has its own.
type OneSidedErrors struct {
	NoSegment error // PutNotify or Get before AllocSegment
	Allocated error // AllocSegment a second time
	Range     error // bytes outside the peer's segment
}

// OneSidedSizes are the transfer sizes that CheckOneSided places: the
// edges of the conduits' size classes and a large one.
var OneSidedSizes = []int{0, 1, 7, 8<<10 - 1, 8 << 10, 8<<10 + 1, 1 << 20}

// segmentSize is node's segment size in CheckOneSided: room for the
// largest transfer and for the in-flight case, different on every node so
// that range checks use the peer's size, not the caller's.
func segmentSize(node int) int { return 2<<20 + 8*node + node%3 }

// oneSidedWait bounds every wait of CheckOneSided: a lost notification
// is an error, not a hang.
const oneSidedWait = time.Minute

// CheckOneSided is the conformance check of a conduit's segments
// (coll.OneSided). Every node of the job calls it at once, on a conduit
// that has no segment yet and carries no other traffic, and it returns
// this node's verdict. It checks, in order: misuse before AllocSegment;
// the segment (its size, zeroed); misuse after (a second AllocSegment,
// transfers outside the peer's segment, whose size differs from this
// node's); PutNotify of every size of OneSidedSizes from every node to
// every node (the largest to the next node only, ending at the segment's
// last byte), each source's bytes checked when its notification arrives
// and the rest of the segment checked untouched; many puts in flight to
// several peers at once, each checked byte by byte as soon as its own
// notification arrives; and Get of every size from every node.
func CheckOneSided(cd OneSidedConduit, errs OneSidedErrors) error {
	// Fresh tags start at 2: the misuse checks use tag 1, never sent.
	k := &checker{cd: cd, P: cd.Nodes(), me: cd.Node(), tag: 1}
	// Every node goes on to AllocSegment, the collective, whatever the
	// misuse checks found, so that none waits for it in vain. (After it, a
	// node that fails stops, and the others' waits end in an error.)
	before := k.misuseBefore(errs)
	if before != nil {
		before = fmt.Errorf("misuse before AllocSegment: %w", before)
	}
	seg, err := cd.AllocSegment(segmentSize(k.me))
	if err != nil || before != nil {
		return errors.Join(before, wrap("AllocSegment", err))
	}
	k.seg = seg
	if len(seg) != segmentSize(k.me) {
		return fmt.Errorf("AllocSegment(%d) gave %d bytes", segmentSize(k.me), len(seg))
	}
	for i, b := range seg {
		if b != 0 {
			return fmt.Errorf("segment byte %d is %d, not zero", i, b)
		}
	}
	if err := k.misuseAfter(errs); err != nil {
		return fmt.Errorf("misuse after AllocSegment: %w", err)
	}
	for _, n := range OneSidedSizes {
		if err := k.placement(n); err != nil {
			return fmt.Errorf("PutNotify of %d bytes: %w", n, err)
		}
	}
	if err := k.inFlight(); err != nil {
		return fmt.Errorf("puts in flight: %w", err)
	}
	for _, n := range OneSidedSizes {
		if err := k.get(n); err != nil {
			return fmt.Errorf("Get of %d bytes: %w", n, err)
		}
	}
	return k.barrier()
}

// checker is one node's state in CheckOneSided.
type checker struct {
	cd     OneSidedConduit
	P, me  int
	seg    []byte
	tag    int      // the next fresh tag: no two phases share one
	tokens uint64   // the next fresh token
	done   []uint64 // Poll's buffer
}

func (k *checker) freshTag() int {
	k.tag++
	return k.tag
}

func (k *checker) freshToken() uint64 {
	k.tokens++
	return k.tokens
}

// pattern is the byte at index i of the transfer that node src makes in a
// phase (seeded by tag and n); never the fill byte, so a byte left
// unwritten shows.
func pattern(tag, src, n, i int) byte {
	x := uint32(tag)*2654435761 ^ uint32(src)*40503 ^ uint32(n)*0x9e37 ^ uint32(i)*31
	b := byte(x ^ x>>8 ^ x>>16 ^ x>>24)
	if b == fill {
		b++
	}
	return b
}

const fill = 0xA5 // what a segment holds where no transfer wrote

// wrap adds what failed to err (nil stays nil).
func wrap(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", what, err)
}

// expect reports an error unless err matches want.
func expect(what string, err, want error) error {
	if !errors.Is(err, want) {
		return fmt.Errorf("%s: got %v, want %v", what, err, want)
	}
	return nil
}

func (k *checker) misuseBefore(errs OneSidedErrors) error {
	b := make([]byte, 8)
	_, perr := k.cd.PutNotify(0, 0, 1, b, 1)
	_, gerr := k.cd.Get(0, 0, b, 1)
	return errors.Join(
		expect("PutNotify", perr, errs.NoSegment),
		expect("Get", gerr, errs.NoSegment),
	)
}

func (k *checker) misuseAfter(errs OneSidedErrors) error {
	_, aerr := k.cd.AllocSegment(8)
	all := []error{expect("AllocSegment twice", aerr, errs.Allocated)}
	peer := (k.me + 1) % k.P
	n := segmentSize(peer)
	cases := []struct {
		what         string
		peer, off, n int
	}{
		{"negative offset", peer, -1, 1},
		{"one byte past the end", peer, n - 7, 8},
		{"offset past the end", peer, n + 1, 0},
		{"longer than the segment", peer, 0, n + 1},
	}
	if k.me > 0 {
		// Node me-1's segment is smaller than this node's: a transfer
		// that would fit here must still be refused there.
		small := k.me - 1
		cases = append(cases, struct {
			what         string
			peer, off, n int
		}{"inside this node's segment, past the peer's", small, segmentSize(small) - 1, 2})
	}
	for _, c := range cases {
		b := make([]byte, c.n)
		// (Tag 1 is never sent: fresh tags must stay in step on every node.)
		_, perr := k.cd.PutNotify(c.peer, c.off, 1, b, 1)
		_, gerr := k.cd.Get(c.peer, c.off, b, 1)
		all = append(all, expect("PutNotify, "+c.what, perr, errs.Range), expect("Get, "+c.what, gerr, errs.Range))
	}
	return errors.Join(all...)
}

// waiter polls the conduit until every awaited token has come back,
// calling the token's check as it does.
type waiter struct {
	k      *checker
	checks map[uint64]func() error
}

func (k *checker) waiter() *waiter { return &waiter{k: k, checks: map[uint64]func() error{}} }

// started records a transfer that completed at once (done) or whose token
// will come back, with what to check when it completes (nil: nothing).
func (w *waiter) started(done bool, err error, token uint64, check func() error) error {
	if err != nil {
		return err
	}
	if check == nil {
		check = func() error { return nil }
	}
	if done {
		return check()
	}
	w.checks[token] = check
	return nil
}

// wait polls until no token is awaited; each check runs as soon as Poll
// reports its token, before anything else is polled.
func (w *waiter) wait(what string) error {
	cd := w.k.cd
	deadline := time.Now().Add(oneSidedWait)
	for len(w.checks) > 0 {
		var err error
		w.k.done, err = cd.Poll(w.k.done[:0])
		if err != nil {
			return err
		}
		for _, tok := range w.k.done {
			check, ok := w.checks[tok]
			if !ok {
				return fmt.Errorf("%s: token %d came back unawaited or twice", what, tok)
			}
			delete(w.checks, tok)
			if err := check(); err != nil {
				return err
			}
		}
		if len(w.k.done) > 0 {
			continue
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: %d transfers still incomplete after %v", what, len(w.checks), oneSidedWait)
		}
		if idler, ok := cd.(coll.Idler); ok {
			idler.Idle()
		} else {
			runtime.Gosched()
		}
	}
	return nil
}

// barrier returns once every node has called it: a zero-byte message to
// every node and one from every node, on a fresh tag.
func (k *checker) barrier() error {
	tag := k.freshTag()
	w := k.waiter()
	for p := range k.P {
		tok := k.freshToken()
		done, err := k.cd.Irecv(p, tag, []byte{}, tok)
		if err := w.started(done, err, tok, nil); err != nil {
			return err
		}
		tok = k.freshToken()
		done, err = k.cd.Isend(p, tag, []byte{}, tok)
		if err := w.started(done, err, tok, nil); err != nil {
			return err
		}
	}
	return w.wait("barrier")
}

// region is where node src's transfer of n bytes lands in node dst's
// segment in the placement phase: the largest ends at the segment's last
// byte, the others sit side by side at odd offsets.
func region(src, dst, n int) int {
	if n > 64<<10 {
		return segmentSize(dst) - n
	}
	return 3 + src*(n+16)
}

// targets of node src's transfer of n bytes: every node, or, for the
// largest, the next one only.
func (k *checker) targets(src, n int) []int {
	if n > 64<<10 {
		return []int{(src + 1) % k.P}
	}
	all := make([]int, k.P)
	for i := range all {
		all[i] = (src + i) % k.P
	}
	return all
}

// checkBytes compares got with the pattern of node src's transfer.
func checkBytes(got []byte, tag, src, n int, what string) error {
	for i, b := range got {
		if want := pattern(tag, src, n, i); b != want {
			return fmt.Errorf("%s: byte %d of %d from node %d is %#x, want %#x", what, i, n, src, b, want)
		}
	}
	return nil
}

func (k *checker) fillSegment() error {
	for i := range k.seg {
		k.seg[i] = fill
	}
	return k.barrier() // no node puts before every segment is filled
}

func (k *checker) placement(n int) error {
	if err := k.fillSegment(); err != nil {
		return err
	}
	tag := k.freshTag()
	w := k.waiter()
	written := make([]bool, len(k.seg))
	for src := range k.P {
		for _, dst := range k.targets(src, n) {
			if dst != k.me {
				continue
			}
			off := region(src, k.me, n)
			for i := off; i < off+n; i++ {
				written[i] = true
			}
			tok := k.freshToken()
			done, err := k.cd.Irecv(src, tag, []byte{}, tok)
			check := func() error {
				return checkBytes(k.seg[off:off+n], tag, src, n, "on notification")
			}
			if err := w.started(done, err, tok, check); err != nil {
				return err
			}
		}
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = pattern(tag, k.me, n, i)
	}
	for _, dst := range k.targets(k.me, n) {
		tok := k.freshToken()
		done, err := k.cd.PutNotify(dst, region(k.me, dst, n), tag, b, tok)
		if err := w.started(done, err, tok, nil); err != nil {
			return err
		}
	}
	if err := w.wait("placement"); err != nil {
		return err
	}
	for i, b := range k.seg {
		if !written[i] && b != fill {
			return fmt.Errorf("byte %d, where no put wrote, is %#x", i, b)
		}
	}
	return k.barrier()
}

// In the in-flight phase every node makes inFlightPuts puts to each of
// its next inFlightPeers nodes, interleaved across them, of sizes cycling
// through inFlightSizes, each with its own tag.
const inFlightPuts, inFlightPeers, inFlightStride = 32, 4, 9 << 10

var inFlightSizes = []int{1, 100, 3000, 9000}

func (k *checker) inFlight() error {
	if err := k.fillSegment(); err != nil {
		return err
	}
	base := k.tag
	k.tag += inFlightPuts * inFlightPeers
	peers := min(k.P, inFlightPeers)
	// slot is where the j-th put of the node d nodes before the target
	// lands, and its tag.
	slot := func(d, j int) (off, tag, n int) {
		i := (d-1)*inFlightPuts + j
		return 7 + i*inFlightStride, base + 1 + i, inFlightSizes[j%len(inFlightSizes)]
	}
	w := k.waiter()
	for d := 1; d <= peers; d++ {
		src := (k.me - d%k.P + k.P) % k.P
		for j := range inFlightPuts {
			off, tag, n := slot(d, j)
			tok := k.freshToken()
			done, err := k.cd.Irecv(src, tag, []byte{}, tok)
			check := func() error {
				return checkBytes(k.seg[off:off+n], tag, src, n, fmt.Sprintf("put %d, on its notification", j))
			}
			if err := w.started(done, err, tok, check); err != nil {
				return err
			}
		}
	}
	for j := range inFlightPuts {
		for d := 1; d <= peers; d++ {
			dst := (k.me + d) % k.P
			off, tag, n := slot(d, j)
			b := make([]byte, n)
			for i := range b {
				b[i] = pattern(tag, k.me, n, i)
			}
			tok := k.freshToken()
			done, err := k.cd.PutNotify(dst, off, tag, b, tok)
			if err := w.started(done, err, tok, nil); err != nil {
				return err
			}
		}
	}
	if err := w.wait("in flight"); err != nil {
		return err
	}
	return k.barrier()
}

func (k *checker) get(n int) error {
	tag := k.freshTag()
	for i := range k.seg {
		k.seg[i] = pattern(tag, k.me, len(k.seg), i)
	}
	if err := k.barrier(); err != nil { // every segment is written before any Get
		return err
	}
	w := k.waiter()
	for _, src := range k.targets(k.me, n) {
		off := region(k.me, src, n)
		b := make([]byte, n)
		tok := k.freshToken()
		done, err := k.cd.Get(src, off, b, tok)
		check := func() error {
			for i, x := range b {
				if want := pattern(tag, src, segmentSize(src), off+i); x != want {
					return fmt.Errorf("byte %d of %d at offset %d of node %d is %#x, want %#x", i, n, off, src, x, want)
				}
			}
			return nil
		}
		if err := w.started(done, err, tok, check); err != nil {
			return err
		}
	}
	if err := w.wait("get"); err != nil {
		return err
	}
	return k.barrier() // no node rewrites its segment while others read it
}
