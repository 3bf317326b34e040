package mpiconduit

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math/bits"
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
// producer (the sender) and a single consumer (the owner).
//
// A ring is a ring of 64-byte lines, one per message, and a ring of data
// for payloads too long for a line. A line holds the message's header
// (tag, length), then its payload when it fits in 48 bytes or else where
// the payload starts in the data ring, and last a flag word, as NCCL's
// LL128 protocol puts a flag in each line. The producer writes the payload
// and the line, then publishes the line's flag (publish: release order, no
// fence) with a value no earlier lap wrote there: the line's place in the
// stream, plus one. The consumer polls the flag of the line its next
// message comes in: a small message is then one line and one transfer
// between the processors, where a counter published beside the ring took
// two in turn (the counter's line, then the message's). Flags only ever
// hold flags, so no stale payload passes for a message. The consumer
// publishes how far it has read in each ring (the tails), which the
// producer reads only when the room it last saw runs out. A long payload
// moves in one copy each way, and never runs across the data ring's end
// (its producer starts it over at the front); from 49 bytes to about 512
// a message costs a little more than with the counter, for a reason not
// found (BenchmarkConduitStream). The rings start on a cache line
// (lineAligned), so that a line is one.
//
// Tag matching is MPI's: per sender and tag, in order. The consumer matches
// the ring's next message against its posted receives; one it cannot match
// yet is moved to an unexpected list (a copy), so a ring never blocks
// messages behind it. A full ring makes sends wait in a per-peer queue that
// Poll retries: initiation never waits for the peer.

const (
	// ShmMax is the largest transfer through shared memory, an eighth of a
	// data ring (less on nodes large enough to shrink the rings); larger
	// ones use MPI, which moves large messages within a node with a single
	// copy by the receiver. Two copies through a ring beat that at 32 KiB
	// whether the two processes' processors share a core or not; at 128 KiB
	// they win well when they do and lose when they do not (collbench in
	// alternated rounds, scripts/perf-compare.sh), and a machine can be
	// either from run to run.
	ShmMax = maxRing / 8

	ringHeader = 64 // the tails, a line of their own
	// Bytes of each data ring: maxRing, less on crowded nodes so that a
	// process's data rings stay near shmPerProcess, never under minRing.
	// The ring of lines adds a quarter: a line per message in flight.
	maxRing       = 256 << 10
	minRing       = 16 << 10
	shmPerProcess = 1 << 20

	lineBytes = 64
	inline    = 48 // payload bytes a line holds, after its 8-byte header
	lineFlag  = 56 // where a line's flag is
)

// ringBytes is the size of each data ring on a node of n processes.
func ringBytes(n int) uint64 {
	b := uint64(maxRing)
	for b > minRing && uint64(n)*b > shmPerProcess {
		b /= 2
	}
	return b
}

// ringStride is the shared memory of one ring whose data ring has b bytes.
func ringStride(b uint64) uint64 { return ringHeader + b/4 + b }

// dataBytes is the data ring space of a payload of n bytes: whole lines,
// none for one that fits in its message's line.
func dataBytes(n int) uint64 {
	if n <= inline {
		return 0
	}
	return uint64(n+lineBytes-1) &^ (lineBytes - 1)
}

// ring is what both ends of a ring share: the tails, the lines and the data.
type ring struct {
	lineTail, dataTail *atomic.Uint64
	lines, data        []byte
}

// ringAt lays a ring out at mem, ringStride(b) bytes; b is a power of two
// (as ringBytes gives), so that both rings' places are offsets masked.
func ringAt(mem []byte, b uint64) ring {
	lines := mem[ringHeader : ringHeader+b/4]
	return ring{
		lineTail: (*atomic.Uint64)(unsafe.Pointer(&mem[0])),
		dataTail: (*atomic.Uint64)(unsafe.Pointer(&mem[8])),
		lines:    lines,
		data:     mem[ringHeader+b/4 : ringStride(b)],
	}
}

// flag is the flag word of the line at pos.
func (r *ring) flag(pos uint64) *atomic.Uint64 {
	return (*atomic.Uint64)(unsafe.Pointer(&r.lines[pos+lineFlag]))
}

// flagAt is the flag of the line at stream offset off: nonzero, and
// different at one place of the ring from one lap to the next.
func flagAt(off uint64) uint64 { return off/lineBytes + 1 }

// outRing is the producer's end of a ring.
type outRing struct {
	ring
	sent, dataSent uint64 // stream offsets of the next line and payload
	// Last tails seen + the rings' sizes: writing up to here is safe.
	lineFree, dataFree uint64
}

// put writes one message, or reports false when the ring has no room.
func (r *outRing) put(tag int, b []byte) bool {
	if r.sent+lineBytes > r.lineFree {
		r.lineFree = r.lineTail.Load() + uint64(len(r.lines))
		if r.sent+lineBytes > r.lineFree {
			return false
		}
	}
	pos := r.sent & uint64(len(r.lines)-1)
	line := r.lines[pos : pos+lineBytes]
	if need := dataBytes(len(b)); need == 0 {
		copy(line[8:lineFlag], b)
	} else {
		size := uint64(len(r.data))
		at := r.dataSent
		if at&(size-1)+need > size { // start over at the front
			at += size - at&(size-1)
		}
		if at+need > r.dataFree {
			r.dataFree = r.dataTail.Load() + size
			if at+need > r.dataFree {
				return false
			}
		}
		copy(r.data[at&(size-1):], b)
		binary.LittleEndian.PutUint64(line[8:], at)
		r.dataSent = at + need
	}
	binary.LittleEndian.PutUint32(line, uint32(tag))
	binary.LittleEndian.PutUint32(line[4:], uint32(len(b)))
	publish(r.flag(pos), flagAt(r.sent))
	r.sent += lineBytes
	return true
}

// inRing is the consumer's end of a ring.
type inRing struct {
	ring
	read uint64 // stream offset of the next line, == *lineTail
	line []byte // the line next found
}

// next returns the tag and length of the next message without consuming
// it; payload copies it out.
func (r *inRing) next() (tag, n int, ok bool) {
	pos := r.read & uint64(len(r.lines)-1)
	// An atomic load (a plain one on amd64, which keeps loads in order):
	// the compiler may not read the message before it.
	if r.flag(pos).Load() != flagAt(r.read) {
		return 0, 0, false
	}
	r.line = r.lines[pos : pos+lineBytes]
	return int(binary.LittleEndian.Uint32(r.line)), int(binary.LittleEndian.Uint32(r.line[4:])), true
}

// payload copies the payload of the message next returned into b, as
// much of it as b holds.
func (r *inRing) payload(b []byte) {
	n := int(binary.LittleEndian.Uint32(r.line[4:]))
	if n <= inline {
		copy(b, r.line[8:8+n])
		return
	}
	at := binary.LittleEndian.Uint64(r.line[8:]) & uint64(len(r.data)-1)
	copy(b[:min(n, len(b))], r.data[at:])
}

// consume frees the message next returned, of n bytes.
func (r *inRing) consume(n int) {
	if need := dataBytes(n); need > 0 {
		publish(r.dataTail, binary.LittleEndian.Uint64(r.line[8:])+need)
	}
	r.read += lineBytes
	publish(r.lineTail, r.read)
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
	// spare holds the buffers of unexpected messages already received, by
	// size class (powers of two), for the next ones: collectives of many
	// members (aggregates) meet them on every run.
	spare [bits.UintSize][][]byte
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
	stride := int(ringStride(data))
	win, werr := mpi.WinAllocateShared(node, n*stride+lineBytes) // a line more: see lineAligned
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
	mine := lineAligned(win.Mem())
	for l := 0; l < n; l++ {
		theirs, err := win.SharedMem(l)
		if err != nil {
			s.close()
			return nil, err
		}
		theirs = lineAligned(theirs)
		p := &shmPeer{}
		// Messages to l go to ring me of l's part; from l come in ring l of mine.
		out := theirs[me*stride : (me+1)*stride]
		in := mine[l*stride : (l+1)*stride]
		p.out.ring, p.in.ring = ringAt(out, data), ringAt(in, data)
		p.out.lineFree, p.out.dataFree = uint64(len(p.out.lines)), data
		s.peers[ranks[l]] = p
	}
	// Every ring must be initialized (MPI zeroes nothing) before anyone sends.
	for l := 0; l < n; l++ {
		p := s.peers[ranks[l]]
		p.in.lineTail.Store(0)
		p.in.dataTail.Store(0)
		clear(p.in.lines) // no flag may match before its message is written
	}
	if err := node.Barrier(); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// lineAligned is mem from its first cache line boundary on. Open MPI's
// shared window parts start 8 bytes past one (its own header), which put
// every ring line across two cache lines, its flag in the second. A part's
// place in its page is the same in every process's mapping, so each
// process finds the same boundary.
func lineAligned(mem []byte) []byte {
	return mem[-uintptr(unsafe.Pointer(unsafe.SliceData(mem)))&(lineBytes-1):]
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
			s.putSpare(m.data)
			p.unexpected.remove(i)
			return true
		}
	}
	s.ids++
	p.posted.push(shmXfer{tag: tag, buf: b, token: token, id: s.ids})
	return s.drain(p, s.ids)
}

// getSpare is a buffer of n bytes for an unexpected message.
func (s *shm) getSpare(n int) []byte {
	c := bits.Len(uint(n))
	if b, ok := pop(&s.spare[c]); ok {
		return b[:n]
	}
	return make([]byte, n, 1<<c)
}

// putSpare takes back an unexpected message's buffer once copied out.
func (s *shm) putSpare(b []byte) {
	c := bits.Len(uint(cap(b) - 1))
	s.spare[c] = append(s.spare[c], b)
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
		tag, n, ok := p.in.next()
		if !ok {
			break
		}
		matched := false
		for i := range p.posted.len() {
			if r := p.posted.at(i); r.tag == tag {
				s.fits(n, tag, len(r.buf))
				p.in.payload(r.buf)
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
			data := s.getSpare(n)
			p.in.payload(data)
			p.unexpected.push(shmMsg{tag, data})
		}
		p.in.consume(n)
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
