package mpiconduit

import (
	"errors"
	"fmt"

	"github.com/gocoll/gocoll/mpiconduit/mpi"
)

// The conduit's one-sided path (coll.OneSided): every node's segment, and
// PutNotify and Get on the segments of others.
//
// A peer on this node (with the shared-memory path) has its segment in an
// MPI shared window (MPI_Win_allocate_shared): PutNotify copies into it and
// sends the notification through the ring, Get copies out of it, and no
// MPI or cgo call is made. Other peers are reached through an MPI window in
// a passive-target epoch opened once (MPI_Win_lock_all): PutNotify is
// MPI_Put, MPI_Win_flush (the bytes are in place at the target) and the
// zero-byte MPI_Isend of the notification, Get is MPI_Get and
// MPI_Win_flush_local, each in one cgo call that keeps no pointer to the
// caller's memory. That window is MPI_Win_allocate's without the
// shared-memory path, and MPI_Win_create's over the shared segments with
// it. Passive target with a flush and a notification message was chosen
// over post/start/complete/wait by measurement (BenchmarkOneSided under
// mpirun -np 2, both at every size): it is faster wherever MPI's one-sided
// path runs between processes, and PSCW would make the target post every
// epoch, the matching step the one-sided path exists to avoid.

// Errors of the one-sided path; test for them with errors.Is.
var (
	// ErrNoRMA: MPI cannot make the window that the segments need, for
	// example because Open MPI selected its osc/pt2pt component, which
	// refuses windows under MPI_THREAD_MULTIPLE, or because no component
	// has RDMA to every process (btl/tcp between nodes). The error also
	// wraps the *mpi.Error, whose message names the cause.
	ErrNoRMA = errors.New("mpiconduit: MPI one-sided communication (RMA windows) unavailable")
	// ErrNoSegment: PutNotify or Get before AllocSegment.
	ErrNoSegment = errors.New("mpiconduit: no segment allocated")
	// ErrSegmentAllocated: AllocSegment called a second time.
	ErrSegmentAllocated = errors.New("mpiconduit: segment already allocated")
	// ErrSegmentRange: bytes outside a node's segment, or a negative size.
	ErrSegmentRange = errors.New("mpiconduit: outside the segment")
	// ErrClosed: the conduit was closed.
	ErrClosed = errors.New("mpiconduit: conduit closed")
)

// segment is the conduit's one-sided state.
type segment struct {
	sizes  []int    // every node's segment size, by rank
	local  [][]byte // segments reached by a copy (this node's, and this process's), by rank; nil for others
	win    *mpi.Win // the MPI window for the others, nil when there are none
	shared *mpi.Win // the shared window of this node's segments, nil without the shared-memory path
}

// noBytes is the payload of a notification.
var noBytes = []byte{}

// AllocSegment allocates this node's segment of size bytes, zeroed, and
// returns it (coll.OneSided). It is collective over the conduit: every
// node calls it once, with its own size. Every node learns every size, so
// that transfers outside a peer's segment are refused here. When MPI
// cannot serve the window, every node returns an error that matches
// ErrNoRMA.
func (cd *Conduit) AllocSegment(size int) ([]byte, error) {
	const op = "AllocSegment"
	if cd.closed {
		return nil, closedErr(op)
	}
	if cd.seg != nil {
		return nil, fmt.Errorf("%w: %s called twice", ErrSegmentAllocated, op)
	}
	all := make([]int64, cd.comm.Size())
	if err := mpi.Allgather(cd.comm, []int64{int64(size)}, all); err != nil {
		return nil, err
	}
	sizes := make([]int, len(all))
	for r, n := range all {
		if n < 0 {
			// Every node sees it, so none waits for the others below.
			return nil, fmt.Errorf("%w: %s: node %d asked for %d bytes", ErrSegmentRange, op, r, n)
		}
		sizes[r] = int(n)
	}
	seg := &segment{sizes: sizes, local: make([][]byte, len(sizes))}
	if err := seg.makeWindows(cd, size); err != nil {
		return nil, err
	}
	mine := seg.local[cd.comm.Rank()]
	var err error
	if seg.win != nil {
		err = seg.win.LockAll(mpi.ModeNoCheck)
	}
	clear(mine) // MPI does not zero it; before the agreement, so before any peer writes
	if err := agree(cd.comm, err); err != nil {
		return nil, errors.Join(err, seg.free()) // every node has every window: it can
	}
	cd.seg = seg
	return mine, nil
}

// makeWindows makes the windows of the segments, agreeing with every node
// after each step that may fail. When a step failed somewhere, the windows
// that every node made before it are freed; one made here by a step that
// failed elsewhere cannot be (MPI_Win_free is collective): it stays until
// MPI_Finalize.
func (seg *segment) makeWindows(cd *Conduit, size int) error {
	c, me, s := cd.comm, cd.comm.Rank(), cd.shm
	if s == nil {
		w, err := mpi.WinAllocate(c, size, 1)
		if err := agree(c, err); err != nil {
			return err
		}
		seg.win = w
		seg.local[me] = w.Mem()
		if seg.local[me] == nil {
			seg.local[me] = []byte{} // 0 bytes: still this process's, reached by a copy
		}
		return nil
	}
	w, err := mpi.WinAllocateShared(s.node, size)
	for l := 0; err == nil && l < len(s.ranks); l++ {
		seg.local[s.ranks[l]], err = w.SharedMem(l)
	}
	if err := agree(c, err); err != nil {
		return err
	}
	seg.shared = w
	if len(s.ranks) == c.Size() {
		return nil // every peer is on this node
	}
	// Peers on other nodes reach this node's segments through MPI.
	win, err := mpi.WinCreate(c, seg.local[me], 1)
	if err := agree(c, err); err != nil {
		return errors.Join(err, seg.free())
	}
	seg.win = win
	return nil
}

// agree tells every process of c whether all of them succeeded; a
// process that did not learns what failed elsewhere. An MPI error of class
// MPI_ERR_WIN, MPI's answer when no one-sided component serves the
// window, becomes ErrNoRMA.
func agree(c *mpi.Comm, err error) error {
	const (
		ok = iota
		noRMA
		failed
	)
	var e *mpi.Error
	code := []int32{ok}
	switch {
	case errors.As(err, &e) && e.Class == mpi.ClassWin:
		code[0] = noRMA
		err = fmt.Errorf("%w: %w", ErrNoRMA, err)
	case err != nil:
		code[0] = failed
	}
	if aerr := mpi.Allreduce(c, code, code, mpi.OpMax); aerr != nil {
		return errors.Join(err, aerr)
	}
	switch {
	case err != nil:
		return err
	case code[0] == noRMA:
		return fmt.Errorf("%w: AllocSegment failed on another node", ErrNoRMA)
	case code[0] == failed:
		return errors.New("mpiconduit: AllocSegment failed on another node")
	}
	return nil
}

// checkSegment refuses a one-sided transfer of b at off of node peer's
// segment that the segments cannot take, and what Isend would refuse.
func (cd *Conduit) checkSegment(op string, peer, off, tag int, b []byte) error {
	if cd.closed {
		return closedErr(op)
	}
	if cd.seg == nil {
		return fmt.Errorf("%w: %s before AllocSegment", ErrNoSegment, op)
	}
	if err := cd.comm.CheckTransfer(op, b, peer, tag); err != nil {
		return err
	}
	if peer == mpi.ProcNull { // which MPI accepts for point-to-point
		return fmt.Errorf("%w: %s: a one-sided transfer needs a node, not ProcNull (%d)", mpi.ErrRank, op, peer)
	}
	if n := cd.seg.sizes[peer]; off < 0 || off > n || len(b) > n-off {
		return fmt.Errorf("%w: %s: %d bytes at offset %d of node %d's segment of %d", ErrSegmentRange, op, len(b), off, peer, n)
	}
	return nil
}

// PutNotify writes b into node dst's segment at off, then sends dst a
// zero-byte message with tag that arrives once the bytes are in place
// there (coll.OneSided). To a peer on this node it copies and notifies
// through the ring; to others, it is one cgo call (MPI_Put, MPI_Win_flush,
// MPI_Isend). Either way b is free again on return; done and token concern
// the notification.
func (cd *Conduit) PutNotify(dst, off, tag int, b []byte, token uint64) (bool, error) {
	const op = "PutNotify"
	if err := cd.checkSegment(op, dst, off, tag, b); err != nil {
		return false, err
	}
	if mem := cd.seg.local[dst]; mem != nil {
		copy(mem[off:], b)
		return cd.start("MPI_Isend", dst, tag, noBytes, token, true)
	}
	h, done, err := cd.seg.win.PutNotify(b, dst, off, cd.comm, tag)
	if err != nil || done {
		return done, err
	}
	cd.reqs = append(cd.reqs, h)
	cd.pending = append(cd.pending, pending{token: token})
	return false, nil
}

// Get reads len(b) bytes of node src's segment at off into b
// (coll.OneSided): a copy from a peer on this node, MPI_Get and
// MPI_Win_flush_local in one cgo call from others. It completes during
// the call (done is true).
func (cd *Conduit) Get(src, off int, b []byte, token uint64) (bool, error) {
	const op = "Get"
	if err := cd.checkSegment(op, src, off, 0, b); err != nil {
		return false, err
	}
	if mem := cd.seg.local[src]; mem != nil {
		copy(b, mem[off:])
		return true, nil
	}
	if err := cd.seg.win.GetNow(b, src, off); err != nil {
		return false, err
	}
	return true, nil
}

// free releases the segments' windows (collective).
func (seg *segment) free() error {
	var err error
	if seg.win != nil {
		err = errors.Join(seg.win.UnlockAll(), seg.win.Free())
	}
	if seg.shared != nil {
		err = errors.Join(err, seg.shared.Free())
	}
	return err
}

func closedErr(op string) error {
	return fmt.Errorf("%w: %s after Close (%w)", ErrClosed, op, mpi.ErrFreed)
}
