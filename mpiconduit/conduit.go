package mpiconduit

/*
#include "gc.h"
*/
import "C"

import (
	"runtime"
	"sync"
	"unsafe"
)

// Conduit carries gocoll's collectives over nonblocking MPI point-to-point
// on its own duplicate of a communicator, so that its tags never meet the
// application's messages. It has the method set of coll.Conduit (this
// package imports nothing of gocoll). Completions are found by one
// MPI_Testsome over every outstanding request per Poll.
type Conduit struct {
	comm *Comm

	mu     sync.Mutex
	reqs   []C.uintptr_t // MPI_Request handles
	tokens []uint64
	pins   []*runtime.Pinner
	idx    []C.int
	spare  []*runtime.Pinner
}

// NewConduit makes a conduit over a duplicate of c (collective over c).
func NewConduit(c *Comm) (*Conduit, error) {
	d, err := c.Dup()
	if err != nil {
		return nil, err
	}
	return &Conduit{comm: d}, nil
}

// Node is this process's rank.
func (cd *Conduit) Node() int { return cd.comm.rank }

// Nodes is the number of processes.
func (cd *Conduit) Nodes() int { return cd.comm.size }

// MaxTag is MPI_TAG_UB.
func (cd *Conduit) MaxTag() int { return tagUB }

// Comm is the conduit's private communicator.
func (cd *Conduit) Comm() *Comm { return cd.comm }

// Isend starts sending b to rank dst; token returns from Poll on completion.
func (cd *Conduit) Isend(dst, tag int, b []byte, token uint64) error {
	return cd.start("MPI_Isend", dst, tag, b, token, true)
}

// Irecv starts receiving len(b) bytes from rank src into b.
func (cd *Conduit) Irecv(src, tag int, b []byte, token uint64) error {
	return cd.start("MPI_Irecv", src, tag, b, token, false)
}

func (cd *Conduit) start(op string, peer, tag int, b []byte, token uint64, send bool) error {
	x, err := byteBuf(op, b)
	if err != nil {
		return err
	}
	if err := cd.comm.checkPeer(op, peer, tag, false); err != nil {
		return err
	}
	cd.mu.Lock()
	defer cd.mu.Unlock()
	var pin *runtime.Pinner
	if n := len(cd.spare); n > 0 {
		pin, cd.spare = cd.spare[n-1], cd.spare[:n-1]
	} else {
		pin = new(runtime.Pinner)
	}
	if len(b) > 0 {
		pin.Pin(unsafe.SliceData(b))
	}
	var res C.gc_start
	if send {
		res = C.gc_isend(cbuf(x.p), x.n, hType(Byte.h), C.int(peer), C.int(tag), hComm(cd.comm.h))
	} else {
		res = C.gc_irecv(cbuf(x.p), x.n, hType(Byte.h), C.int(peer), C.int(tag), hComm(cd.comm.h))
	}
	if err := mpiErr(op, res.rc); err != nil {
		pin.Unpin()
		cd.spare = append(cd.spare, pin)
		return err
	}
	cd.reqs = append(cd.reqs, res.req)
	cd.tokens = append(cd.tokens, token)
	cd.pins = append(cd.pins, pin)
	return nil
}

// Poll appends the tokens of completed transfers to done (MPI_Testsome).
func (cd *Conduit) Poll(done []uint64) ([]uint64, error) {
	if err := checkState("MPI_Testsome"); err != nil {
		return done, err
	}
	cd.mu.Lock()
	defer cd.mu.Unlock()
	n := len(cd.reqs)
	if n == 0 {
		return done, nil
	}
	if cap(cd.idx) < n {
		cd.idx = make([]C.int, n)
	}
	res := C.gc_testsome(C.int(n), &cd.reqs[0], &cd.idx[:n][0])
	if err := mpiErr("MPI_Testsome", res.rc); err != nil {
		return done, err
	}
	out := res.flag
	if out == C.MPI_UNDEFINED || out == 0 {
		return done, nil
	}
	for _, i := range cd.idx[:out] {
		done = append(done, cd.tokens[i])
		cd.pins[i].Unpin()
		cd.spare = append(cd.spare, cd.pins[i])
		cd.pins[i] = nil
	}
	// Compact: completed requests are MPI_REQUEST_NULL and have nil pins.
	k := 0
	for i := 0; i < n; i++ {
		if cd.pins[i] != nil {
			cd.reqs[k], cd.tokens[k], cd.pins[k] = cd.reqs[i], cd.tokens[i], cd.pins[i]
			k++
		}
	}
	clear(cd.pins[k:n])
	cd.reqs, cd.tokens, cd.pins = cd.reqs[:k], cd.tokens[:k], cd.pins[:k]
	return done, nil
}

// Close frees the conduit's communicator; transfers must be complete.
func (cd *Conduit) Close() error { return cd.comm.Free() }
