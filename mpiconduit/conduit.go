package mpiconduit

import (
	"math/bits"
	"os"
	"runtime"

	"github.com/gocoll/gocoll/mpiconduit/mpi"
)

// Conduit carries gocoll's collectives over nonblocking MPI point-to-point
// on its own duplicate of a communicator, so that its tags never meet the
// application's messages. It has the method sets of coll.Conduit and
// coll.OneSided (segments: segment.go; this package imports nothing of
// gocoll but the binding). Completions are found by one MPI_Testsome over
// every outstanding request per Poll.
//
// Between processes that share memory, transfers of up to ShmMax bytes
// go through rings in shared memory (see shm.go) with no MPI call. Other
// transfers of at most BounceMax bytes go through C memory and are tested
// as they start, in one cgo call: most complete there (an eager send, a
// receive whose message has arrived) and never enter the table. Larger
// ones use the caller's memory, pinned until complete. All of this goes
// through the binding's batched nonblocking layer (mpi.Handle, mpi.Bounce):
// one cgo call per transfer started and one per Poll.
//
// A Conduit is not safe for concurrent use, Idle excepted: gocoll calls it
// with its engine's lock held (a lock here would cost every transfer and
// poll twice for nothing).
type Conduit struct {
	comm   *mpi.Comm
	shm    *shm     // nil without the shared-memory path
	seg    *segment // nil before AllocSegment
	closed bool

	reqs    []mpi.Handle // the pending transfers
	pending []pending    // the same index as reqs
	idx     []int32
	quiet   int // polls in a row that found nothing and called no MPI (see Poll)
	spare   []*runtime.Pinner
	bounce  [numBounce][]mpi.Bounce // free C buffers by size class
}

// pending is a transfer MPI still holds: its buffer (large transfers) or
// C buffer (small ones), or nothing (the notifications of PutNotify).
type pending struct {
	token  uint64
	pin    *runtime.Pinner // large transfers: the caller's pinned memory
	bounce mpi.Bounce      // small transfers: the C buffer
	class  int             // its size class
	dst    []byte          // small receives: where the data goes on completion
}

// BounceMax is the largest transfer that goes through C memory. Copying
// that much costs less than pinning; it stays under the eager limits of
// Open MPI's shared-memory and TCP transports, so such sends complete as
// they start.
const BounceMax = 4 << 10

const (
	minBounceShift = 6 // smallest class: 64 bytes
	numBounce      = 13 - minBounceShift
)

func bounceClass(n int) int {
	if n <= 1<<minBounceShift {
		return 0
	}
	return bits.Len(uint(n-1)) - minBounceShift
}

// ConduitOptions adjust NewConduitWith.
type ConduitOptions struct {
	// NoSharedMemory sends every transfer through MPI point-to-point, also
	// between processes that share memory.
	NoSharedMemory bool
	// MaxNodeSize, when positive, splits the processes that share memory
	// into groups of at most MaxNodeSize (by rank) that the conduit treats
	// as nodes of their own, as GASNet's GASNET_SUPERNODE_MAXSIZE does:
	// between groups, transfers and segments take the path between nodes.
	// Tests and measurements use it to run that path on one host.
	MaxNodeSize int
}

// NewConduit makes a conduit over a duplicate of c (collective over c),
// with the shared-memory path unless the environment has GOCOLL_SHM=0.
func NewConduit(c *mpi.Comm) (*Conduit, error) {
	return NewConduitWith(c, ConduitOptions{NoSharedMemory: os.Getenv("GOCOLL_SHM") == "0"})
}

// NewConduitWith is NewConduit with options; every process of c must pass
// the same ones.
func NewConduitWith(c *mpi.Comm, o ConduitOptions) (*Conduit, error) {
	d, err := c.Dup()
	if err != nil {
		return nil, err
	}
	cd := &Conduit{comm: d}
	if !o.NoSharedMemory {
		if cd.shm, err = newShm(d, o.MaxNodeSize); err != nil {
			d.Free()
			return nil, err
		}
	}
	return cd, nil
}

// SharedMemory reports whether the conduit passes small transfers between
// processes of one node through shared memory.
func (cd *Conduit) SharedMemory() bool { return cd.shm != nil }

// Node is this process's rank.
func (cd *Conduit) Node() int { return cd.comm.Rank() }

// Nodes is the number of processes.
func (cd *Conduit) Nodes() int { return cd.comm.Size() }

// MaxTag is MPI_TAG_UB.
func (cd *Conduit) MaxTag() int { return mpi.TagUB() }

// Comm is the conduit's private communicator.
func (cd *Conduit) Comm() *mpi.Comm { return cd.comm }

// Isend starts sending b to rank dst. It reports done when the send
// completed during the call; otherwise token returns from Poll on completion.
func (cd *Conduit) Isend(dst, tag int, b []byte, token uint64) (bool, error) {
	return cd.start("MPI_Isend", dst, tag, b, token, true)
}

// Irecv starts receiving len(b) bytes from rank src into b. It reports
// done when the data arrived during the call; otherwise token returns from
// Poll on completion.
func (cd *Conduit) Irecv(src, tag int, b []byte, token uint64) (bool, error) {
	return cd.start("MPI_Irecv", src, tag, b, token, false)
}

func (cd *Conduit) start(op string, peer, tag int, b []byte, token uint64, send bool) (bool, error) {
	if s := cd.shm; s != nil && len(b) <= s.max {
		// The rings refuse what MPI would. (A transfer to another node,
		// which MPI's path checks again, pays a few comparisons twice.)
		if err := cd.comm.CheckTransfer(op, b, peer, tag); err != nil {
			return false, err
		}
		if p := s.peers[peer]; p != nil {
			if send {
				return s.isend(p, tag, b, token), nil
			}
			return s.irecv(p, tag, b, token), nil
		}
	}
	if len(b) > BounceMax {
		return cd.startPinned(peer, tag, b, token, send)
	}
	// A small transfer, started and tested through a C buffer (here rather
	// than in a function of its own: a call less on the hottest path).
	c := bounceClass(len(b))
	cb := cd.getBounce(c)
	var h mpi.Handle
	var done bool
	var err error
	if send {
		h, done, err = cd.comm.IsendBounce(b, cb, peer, tag)
	} else {
		h, done, err = cd.comm.IrecvBounce(b, cb, peer, tag)
	}
	if err != nil || done {
		cd.bounce[c] = append(cd.bounce[c], cb)
		return done, err
	}
	p := pending{token: token, bounce: cb, class: c}
	if !send {
		p.dst = b
	}
	cd.reqs = append(cd.reqs, h)
	cd.pending = append(cd.pending, p)
	return false, nil
}

// startPinned starts a large transfer on the caller's memory, pinned
// until it completes.
func (cd *Conduit) startPinned(peer, tag int, b []byte, token uint64, send bool) (bool, error) {
	pin := cd.pinner()
	pin.Pin(&b[0]) // len(b) > BounceMax
	var h mpi.Handle
	var err error
	if send {
		h, err = cd.comm.IsendPinned(b, peer, tag)
	} else {
		h, err = cd.comm.IrecvPinned(b, peer, tag)
	}
	if err != nil {
		cd.unpin(pin)
		return false, err
	}
	cd.reqs = append(cd.reqs, h)
	cd.pending = append(cd.pending, pending{token: token, pin: pin})
	return false, nil
}

func (cd *Conduit) getBounce(c int) mpi.Bounce {
	if cb, ok := pop(&cd.bounce[c]); ok {
		return cb
	}
	return mpi.NewBounce(1 << (c + minBounceShift))
}

func (cd *Conduit) pinner() *runtime.Pinner {
	if pin, ok := pop(&cd.spare); ok {
		return pin
	}
	return new(runtime.Pinner)
}

// pop takes the last item of a free list.
func pop[T any](s *[]T) (T, bool) {
	var zero T
	n := len(*s)
	if n == 0 {
		return zero, false
	}
	x := (*s)[n-1]
	*s = (*s)[:n-1]
	return x, true
}

func (cd *Conduit) unpin(pin *runtime.Pinner) {
	pin.Unpin()
	cd.spare = append(cd.spare, pin)
}

// finish releases what a completed transfer held, delivering a small
// receive's data.
func (cd *Conduit) finish(p *pending) {
	switch {
	case p.pin != nil:
		cd.unpin(p.pin)
	case p.bounce != (mpi.Bounce{}):
		if p.dst != nil {
			copy(p.dst, p.bounce.Bytes(len(p.dst)))
		}
		cd.bounce[p.class] = append(cd.bounce[p.class], p.bounce)
	}
	// A notification of PutNotify holds nothing.
}

// progressEvery is how many polls in a row may find nothing with no MPI
// call before Poll makes one (see Poll): at a poll every 0.1 to 0.2 us a
// peer waits a few us at most, and a wait that ends sooner pays nothing.
const progressEvery = 16

// Poll appends the tokens of completed transfers to done: those of the
// rings, and those MPI completed (one MPI_Testsome over every pending
// request).
//
// Poll also lets MPI progress for other processes. MPI may complete
// another process's one-sided operations on this process's windows only
// inside this process's MPI calls, and MPICH over UCX does: between these
// processes UCX carries MPI_Put and MPI_Get as active messages, and the
// origin's MPI_Win_flush returns only once the target has called MPI
// (mpi.Comm.Progress says which calls count). A node whose transfers all
// go through the rings calls no MPI while it waits, so a peer that puts
// into one of its windows (the segment's, or the application's) and then
// waits for it in a collective stayed in MPI_Win_flush for ever: the
// deadlock MPICH showed. MPI_Testsome of pending requests progresses; with
// none, a wait makes one cheap MPI call every progressEvery polls that
// found nothing, and on every such poll when the machine has more processes
// than processors: there each wait yields the processor between polls
// (Idle), which costs far more than the call, and the origin spins in
// MPI_Win_flush (MPICH does not yield) until the target has made it.
// Asking MPICH for its own progress thread (MPIR_CVAR_ASYNC_PROGRESS=1)
// would spin a thread in MPI in every process, on machines where gocoll's
// goroutines need the cores.
func (cd *Conduit) Poll(done []uint64) ([]uint64, error) {
	if cd.closed {
		return done, closedErr("Poll")
	}
	n := len(cd.reqs)
	if n == 0 && (cd.quiet >= progressEvery || cd.quiet > 0 && cd.shm.crowded()) {
		cd.quiet = 0
		if err := cd.comm.Progress(); err != nil {
			return done, err
		}
	}
	if cap(cd.idx) < n {
		cd.idx = make([]int32, n)
	}
	out, err := mpi.TestsomeHandles(cd.reqs, cd.idx[:n])
	if err != nil {
		return done, err
	}
	found := len(done)
	done = cd.shm.poll(done)
	if out > 0 {
		done = cd.completed(done, out)
	}
	if n > 0 || len(done) > found {
		cd.quiet = 0 // MPI was called, or the wait may be over
	} else {
		cd.quiet++
	}
	if cd.shm != nil && cd.shm.err != nil {
		return done, cd.shm.err
	}
	return done, nil
}

// completed finishes the out transfers whose indices Testsome left in idx
// and drops them from the table.
func (cd *Conduit) completed(done []uint64, out int) []uint64 {
	for _, i := range cd.idx[:out] {
		p := &cd.pending[i]
		done = append(done, p.token)
		cd.finish(p)
		*p = pending{}
	}
	// Compact: MPI set the handles of completed transfers to null.
	n, k, null := len(cd.reqs), 0, mpi.NullHandle()
	for i := 0; i < n; i++ {
		if h := cd.reqs[i]; h != null {
			cd.reqs[k], cd.pending[k] = h, cd.pending[i]
			k++
		}
	}
	clear(cd.pending[k:n])
	cd.reqs, cd.pending = cd.reqs[:k], cd.pending[:k]
	return done
}

// Idle is called by gocoll's waits between polls that found nothing (it
// implements coll.Idler): when the machine has more processes than processors
// it yields the processor (sched_yield), as Open MPI does inside its own
// calls then, so that spinning waiters do not starve the process they wait
// for. Waits through MPI already yield inside MPI.
func (cd *Conduit) Idle() { cd.shm.idle() }

// Close frees the conduit's segment, communicator, shared memory and C
// buffers; transfers must be complete. It is collective. Any later use is
// an error (ErrClosed for the one-sided calls, mpi.ErrFreed for the
// others).
func (cd *Conduit) Close() error {
	if cd.closed {
		return closedErr("Close")
	}
	if cd.seg != nil {
		if err := cd.seg.free(); err != nil {
			return err
		}
		cd.seg = nil
	}
	if cd.shm != nil {
		if err := cd.shm.close(); err != nil {
			return err
		}
		cd.shm = nil
	}
	for c := range cd.bounce {
		for _, cb := range cd.bounce[c] {
			cb.Free()
		}
		cd.bounce[c] = nil
	}
	cd.closed = true
	return cd.comm.Free()
}

// ThreadMultiple reports whether MPI was initialized with
// MPI_THREAD_MULTIPLE, so that the conduit may be called from any thread
// (gocoll's progress agent needs it).
func (cd *Conduit) ThreadMultiple() bool { return mpi.Provided() == mpi.ThreadMultiple }
