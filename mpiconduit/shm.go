package mpiconduit

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"os"
	"runtime"
	"slices"
	"sync/atomic"
	"syscall"
	"unsafe"

	"github.com/gocoll/gocoll/mpiconduit/mpi"
)

// The conduit's shared-memory path, as GASNet's PSHM: processes on one node
// pass small transfers through rings in an MPI shared window with plain
// loads and stores, no MPI call and no cgo call at all. Each process's part
// of the window holds one ring per sender on its node; a ring has a single
// producer (the sender) and a single consumer (the owner), so two counters
// published in order (publish: release order, no fence) are all the
// synchronization it needs: the producer writes a message, then advances
// head; the consumer reads it, then advances tail. Messages are an 8-byte
// header (tag, length) and the payload padded to 8 bytes, never split
// across the end of the ring (a skip marker fills the rest).
//
// Tag matching is MPI's: per sender and tag, in order. The consumer matches
// the ring's next message against its posted receives; one it cannot match
// yet is moved to an unexpected list (a copy), so a ring never blocks
// messages behind it. A full ring makes sends wait in a per-peer queue that
// Poll retries: initiation never waits for the peer.

const (
	// ShmMax is the largest transfer through shared memory, an eighth of a
	// ring (less on nodes crowded enough to shrink the rings); larger ones
	// use MPI, which moves large messages within a node with a single copy.
	// Two copies through a ring beat that up to about 8 KiB here.
	ShmMax = maxRing / 8

	ringHeader = 128 // head and tail, a cache line apart
	// Bytes of messages per ring: maxRing, less on crowded nodes so that a
	// process's part stays near shmPerProcess, never under minRing.
	maxRing       = 64 << 10
	minRing       = 16 << 10
	shmPerProcess = 1 << 20
	skipMark      = ^uint32(0) // header length of a skip to the ring's start
)

func msgBytes(n int) uint64 { return uint64(8 + (n+7)&^7) }

// ringBytes is the data size of each ring on a node of n processes.
func ringBytes(n int) uint64 {
	b := uint64(maxRing)
	for b > minRing && uint64(n)*b > shmPerProcess {
		b /= 2
	}
	return b
}

// ringCounters are the shared head and tail of the ring at mem.
func ringCounters(mem []byte) (head, tail *atomic.Uint64) {
	return (*atomic.Uint64)(unsafe.Pointer(&mem[0])), (*atomic.Uint64)(unsafe.Pointer(&mem[64]))
}

// outRing is the producer's end of a ring.
type outRing struct {
	head, tail *atomic.Uint64
	data       []byte // len(data) bytes of messages
	written    uint64 // == *head, kept locally
	freeTo     uint64 // last tail seen + len(data): writing up to here is safe
}

// put writes one message, or reports false when the ring has no room.
func (r *outRing) put(tag int, b []byte) bool {
	need, size := msgBytes(len(b)), uint64(len(r.data))
	pos := r.written % size
	skip := uint64(0)
	if pos+need > size {
		skip = size - pos
	}
	if r.written+skip+need > r.freeTo {
		r.freeTo = r.tail.Load() + size
		if r.written+skip+need > r.freeTo {
			return false
		}
	}
	if skip > 0 {
		binary.LittleEndian.PutUint32(r.data[pos+4:], skipMark)
		pos = 0
	}
	copy(r.data[pos+8:], b)
	binary.LittleEndian.PutUint32(r.data[pos:], uint32(tag))
	binary.LittleEndian.PutUint32(r.data[pos+4:], uint32(len(b)))
	r.written += skip + need
	publish(r.head, r.written)
	return true
}

// inRing is the consumer's end of a ring.
type inRing struct {
	head, tail *atomic.Uint64
	data       []byte
	read       uint64 // == *tail, kept locally
	seen       uint64 // last head seen
}

// next returns the next message without consuming it.
func (r *inRing) next() (tag int, payload []byte, ok bool) {
	for {
		if r.read == r.seen {
			if r.seen = r.head.Load(); r.read == r.seen {
				return 0, nil, false
			}
		}
		size := uint64(len(r.data))
		pos := r.read % size
		n := binary.LittleEndian.Uint32(r.data[pos+4:])
		if n == skipMark {
			r.read += size - pos
			continue
		}
		tag = int(binary.LittleEndian.Uint32(r.data[pos:]))
		return tag, r.data[pos+8 : pos+8+uint64(n)], true
	}
}

// consume frees the message next returned.
func (r *inRing) consume(n int) {
	r.read += msgBytes(n)
	publish(r.tail, r.read)
}

// shmXfer is a posted receive waiting for its message, or a send waiting
// for room in its ring.
type shmXfer struct {
	tag   int
	buf   []byte
	token uint64
	id    uint64 // tells receives apart (tokens need not be unique)
}

// shmMsg is a message taken off a ring before its receive was posted.
type shmMsg struct {
	tag  int
	data []byte
}

// shmPeer is this process's shared-memory state for one process of its node.
type shmPeer struct {
	out        outRing
	in         inRing
	posted     fifo[shmXfer] // receives, in posting order
	unexpected fifo[shmMsg]  // in arrival order
	queued     fifo[shmXfer] // sends, in initiation order
}

// fifo is a queue whose items are usually taken from the front, since
// collectives run in the same order on every process: matching then costs
// O(1) even with tens of thousands of operations outstanding.
type fifo[T any] struct {
	items []T
	head  int
}

func (q *fifo[T]) len() int    { return len(q.items) - q.head }
func (q *fifo[T]) at(i int) *T { return &q.items[q.head+i] }
func (q *fifo[T]) push(x T) {
	if q.head > 0 && q.head*2 >= len(q.items) { // reuse the consumed front
		n := copy(q.items, q.items[q.head:])
		clear(q.items[n:])
		q.items, q.head = q.items[:n], 0
	}
	q.items = append(q.items, x)
}

// remove drops item i, clearing it so that it holds no buffer.
func (q *fifo[T]) remove(i int) {
	if i == 0 {
		var zero T
		q.items[q.head] = zero
		q.head++
		if q.head == len(q.items) {
			q.items, q.head = q.items[:0], 0
		}
		return
	}
	q.items = slices.Delete(q.items, q.head+i, q.head+i+1)
}

// shm is the conduit's shared-memory path.
type shm struct {
	win   *mpi.Win
	node  *mpi.Comm
	ranks []int      // conduit rank of each process of node
	peers []*shmPeer // by conduit rank; nil for processes on other nodes
	done  []uint64   // tokens completed outside Poll, reported by the next one
	max   int        // largest transfer through the rings
	ids   uint64     // last receive id
	err   error      // a message that did not fit its receive, reported by Poll
	// oversubscribed: more processes on the machine than processors (see
	// machineProcs), which a node of few processes may be too. Waits
	// then yield the processor between polls (see Conduit.Idle); spinning
	// would keep the process that holds the awaited data off it.
	oversubscribed bool
}

// newShm sets up the rings among the processes of c that share memory
// with this one (collective over c), in groups of at most maxNode of them
// when maxNode > 0 (see ConduitOptions.MaxNodeSize). When the shared window
// cannot be had on some process, every process goes without (nil, no
// error).
func newShm(c *mpi.Comm, maxNode int) (*shm, error) {
	node, err := c.SplitShared()
	if err != nil {
		return nil, err
	}
	procs, err := machineProcs(c, node)
	if err != nil {
		node.Free()
		return nil, err
	}
	crowded := procs > runtime.NumCPU() // the whole machine's processes share its processors
	if maxNode > 0 && node.Size() > maxNode {
		group, err := node.Split(node.Rank()/maxNode, node.Rank())
		node.Free()
		if err != nil {
			return nil, err
		}
		node = group
	}
	ranks, err := nodeRanks(c, node)
	if err != nil {
		node.Free()
		return nil, err
	}
	n, me := node.Size(), node.Rank()
	data := ringBytes(n)
	stride := int(ringHeader + data)
	win, werr := mpi.WinAllocateShared(node, n*stride)
	ok := []int32{1}
	if werr != nil {
		ok[0] = 0
	}
	if err := mpi.Allreduce(c, ok, ok, mpi.OpMin); err != nil || ok[0] == 0 {
		if werr == nil {
			win.Free()
		}
		node.Free()
		return nil, err
	}
	s := &shm{win: win, node: node, ranks: ranks, peers: make([]*shmPeer, c.Size()), max: int(data / 8), oversubscribed: crowded}
	mine := win.Mem()
	for l := 0; l < n; l++ {
		theirs, err := win.SharedMem(l)
		if err != nil {
			s.close()
			return nil, err
		}
		p := &shmPeer{}
		// Messages to l go to ring me of l's part; from l come in ring l of mine.
		out := theirs[me*stride : (me+1)*stride]
		in := mine[l*stride : (l+1)*stride]
		p.out.head, p.out.tail = ringCounters(out)
		p.out.data, p.out.freeTo = out[ringHeader:], data
		p.in.head, p.in.tail = ringCounters(in)
		p.in.data = in[ringHeader:]
		s.peers[ranks[l]] = p
	}
	// Every ring must be initialized (MPI zeroes nothing) before anyone sends.
	for l := 0; l < n; l++ {
		p := s.peers[ranks[l]]
		p.in.head.Store(0)
		p.in.tail.Store(0)
	}
	if err := node.Barrier(); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// nodeRanks maps node-local ranks to ranks of c.
func nodeRanks(c, node *mpi.Comm) ([]int, error) {
	mine := []int32{int32(c.Rank())}
	all := make([]int32, node.Size())
	if err := mpi.Allgather(node, mine, all); err != nil {
		return nil, err
	}
	ranks := make([]int, len(all))
	for i, r := range all {
		ranks[i] = int(r)
	}
	return ranks, nil
}

func (s *shm) close() error {
	err := s.win.Free()
	if ferr := s.node.Free(); err == nil {
		err = ferr
	}
	return err
}

func (s *shm) isend(p *shmPeer, tag int, b []byte, token uint64) bool {
	if p.queued.len() == 0 && p.out.put(tag, b) {
		return true
	}
	p.queued.push(shmXfer{tag: tag, buf: b, token: token})
	return false
}

func (s *shm) irecv(p *shmPeer, tag int, b []byte, token uint64) bool {
	for i := range p.unexpected.len() {
		if m := p.unexpected.at(i); m.tag == tag {
			s.fits(len(m.data), tag, len(b))
			copy(b, m.data)
			p.unexpected.remove(i)
			return true
		}
	}
	s.ids++
	p.posted.push(shmXfer{tag: tag, buf: b, token: token, id: s.ids})
	return s.drain(p, s.ids)
}

// fits records in s.err a message of n bytes for a receive of want, which
// MPI would refuse with MPI_ERR_TRUNCATE; Poll reports it.
func (s *shm) fits(n, tag, want int) {
	if n != want && s.err == nil {
		s.err = fmt.Errorf("%w: MPI_Irecv: a message of %d bytes with tag %d for a receive of %d",
			mpi.ErrShortBuffer, n, tag, want)
	}
}

// drain takes every message off p's ring while receives are posted: each
// goes to the first posted receive with its tag, or to the unexpected
// list. It reports whether the receive with id want completed; the other
// completed receives' tokens go to s.done.
func (s *shm) drain(p *shmPeer, want uint64) (got bool) {
	for p.posted.len() > 0 {
		tag, data, ok := p.in.next()
		if !ok {
			break
		}
		matched := false
		for i := range p.posted.len() {
			if r := p.posted.at(i); r.tag == tag {
				s.fits(len(data), tag, len(r.buf))
				copy(r.buf, data)
				if r.id == want {
					got = true
				} else {
					s.done = append(s.done, r.token)
				}
				p.posted.remove(i)
				matched = true
				break
			}
		}
		if !matched {
			p.unexpected.push(shmMsg{tag, append([]byte(nil), data...)})
		}
		p.in.consume(len(data))
	}
	return got
}

// poll retries queued sends and drains the rings of peers with posted
// receives, appending completed tokens to done.
func (s *shm) poll(done []uint64) []uint64 {
	if s == nil {
		return done
	}
	for _, p := range s.peers {
		if p == nil {
			continue
		}
		for p.queued.len() > 0 {
			x := p.queued.at(0)
			if !p.out.put(x.tag, x.buf) {
				break
			}
			done = append(done, x.token)
			p.queued.remove(0)
		}
		s.drain(p, 0)
	}
	done = append(done, s.done...)
	s.done = s.done[:0]
	return done
}

// bootID is where Linux gives the id of this boot of the kernel: one per
// machine, the same in every namespace and container on it.
const bootID = "/proc/sys/kernel/random/boot_id"

// machineProcs is the number of processes of c on this machine, those that
// run on this kernel (see bootID), at least node's. They share its
// processors whatever nodes MPI groups them into: hosts simulated in
// namespaces or containers on one machine are nodes of their own, and
// their processes spin against each other. Collective over c. Without a
// boot id (not Linux) it is the node's size.
func machineProcs(c, node *mpi.Comm) (int, error) {
	me := []uint64{0} // 0: unknown
	if b, err := os.ReadFile(bootID); err == nil {
		h := fnv.New64a()
		h.Write(bytes.TrimSpace(b))
		me[0] = h.Sum64() | 1
	}
	all := make([]uint64, c.Size())
	if err := mpi.Allgather(c, me, all); err != nil {
		return 0, err
	}
	n := 0
	if me[0] != 0 {
		for _, id := range all {
			if id == me[0] {
				n++
			}
		}
	}
	return max(n, node.Size()), nil
}

// crowded reports whether the machine is oversubscribed (false without the
// shared-memory path, which tells).
func (s *shm) crowded() bool { return s != nil && s.oversubscribed }

// idle yields the processor when the machine is oversubscribed.
func (s *shm) idle() {
	if s.crowded() {
		syscall.Syscall(syscall.SYS_SCHED_YIELD, 0, 0, 0)
	}
}
