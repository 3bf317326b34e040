package mpi

/*
#include "gc.h"
*/
import "C"

// Send sends buf as bytes to dest with tag (MPI_Send).
func (c *Comm) Send(b []byte, dest, tag int) error {
	x, err := byteBuf("MPI_Send", b)
	if err != nil {
		return err
	}
	return c.send(x, dest, tag)
}

// Send sends the elements of b to dest with tag (MPI_Send).
func Send[T Element](c *Comm, b []T, dest, tag int) error {
	x, err := typedBuf("MPI_Send", b)
	if err != nil {
		return err
	}
	return c.send(x, dest, tag)
}

func (c *Comm) send(x buf, dest, tag int) error {
	const op = "MPI_Send"
	if err := c.checkPeer(op, dest, tag, false); err != nil {
		return err
	}
	return mpiErr(op, C.gc_send(cbuf(x.p), x.n, hType(x.dt.h), C.int(dest), C.int(tag), hComm(c.h)))
}

// checkPeer validates a peer rank and tag; receives accept the wildcards.
func (c *Comm) checkPeer(op string, peer, tag int, recv bool) error {
	if state.Load() == stateInit && c != nil && !c.freed.Load() &&
		uint(peer) < uint(c.size) && uint(tag) <= uint(tagUB) {
		return nil
	}
	return c.checkPeerSlow(op, peer, tag, recv)
}

// checkPeerSlow is checkPeer for what its fast path does not accept: the
// special ranks and tags, and errors.
func (c *Comm) checkPeerSlow(op string, peer, tag int, recv bool) error {
	if err := c.check(op); err != nil {
		return err
	}
	var err error
	if recv {
		err = c.checkRank(op, peer, ProcNull, AnySource)
	} else {
		err = c.checkRank(op, peer, ProcNull)
	}
	if err != nil {
		return err
	}
	return checkTag(op, tag, recv)
}

// Recv receives into b from source (or AnySource) with tag (or AnyTag)
// (MPI_Recv). A longer message is an *Error of class ClassTruncate.
func (c *Comm) Recv(b []byte, source, tag int) (Status, error) {
	x, err := byteBuf("MPI_Recv", b)
	if err != nil {
		return Status{}, err
	}
	return c.recv(x, source, tag)
}

// Recv receives elements into b (MPI_Recv).
func Recv[T Element](c *Comm, b []T, source, tag int) (Status, error) {
	x, err := typedBuf("MPI_Recv", b)
	if err != nil {
		return Status{}, err
	}
	return c.recv(x, source, tag)
}

func (c *Comm) recv(x buf, source, tag int) (Status, error) {
	const op = "MPI_Recv"
	if err := c.checkPeer(op, source, tag, true); err != nil {
		return Status{}, err
	}
	res := C.gc_recv(cbuf(x.p), x.n, hType(x.dt.h), C.int(source), C.int(tag), hComm(c.h))
	if err := mpiErr(op, res.rc); err != nil {
		return Status{}, err
	}
	return statusOf(&res.st), nil
}

// Probe blocks until a matching message can be received and describes it
// (MPI_Probe); Status.Count is in bytes.
func (c *Comm) Probe(source, tag int) (Status, error) {
	const op = "MPI_Probe"
	if err := c.checkPeer(op, source, tag, true); err != nil {
		return Status{}, err
	}
	res := C.gc_probe(C.int(source), C.int(tag), hComm(c.h))
	if err := mpiErr(op, res.rc); err != nil {
		return Status{}, err
	}
	return statusOf(&res.st), nil
}

// Iprobe reports whether a matching message can be received now (MPI_Iprobe).
func (c *Comm) Iprobe(source, tag int) (Status, bool, error) {
	const op = "MPI_Iprobe"
	if err := c.checkPeer(op, source, tag, true); err != nil {
		return Status{}, false, err
	}
	res := C.gc_iprobe(C.int(source), C.int(tag), hComm(c.h))
	if err := mpiErr(op, res.rc); err != nil {
		return Status{}, false, err
	}
	return statusOf(&res.st), res.flag != 0, nil
}

// Isend starts sending b (MPI_Isend); b is pinned and must not change until
// the request completes.
func (c *Comm) Isend(b []byte, dest, tag int) (*Request, error) {
	x, err := byteBuf("MPI_Isend", b)
	if err != nil {
		return nil, err
	}
	return c.isend(x, dest, tag)
}

// Isend starts sending the elements of b (MPI_Isend).
func Isend[T Element](c *Comm, b []T, dest, tag int) (*Request, error) {
	x, err := typedBuf("MPI_Isend", b)
	if err != nil {
		return nil, err
	}
	return c.isend(x, dest, tag)
}

func (c *Comm) isend(x buf, dest, tag int) (*Request, error) {
	const op = "MPI_Isend"
	if err := c.checkPeer(op, dest, tag, false); err != nil {
		return nil, err
	}
	r := newRequest(x.dt, x.p, nil)
	return r.started(op, C.gc_isend(cbuf(x.p), x.n, hType(x.dt.h), C.int(dest), C.int(tag), hComm(c.h)))
}

// Irecv starts receiving into b (MPI_Irecv); b is pinned until completion.
func (c *Comm) Irecv(b []byte, source, tag int) (*Request, error) {
	x, err := byteBuf("MPI_Irecv", b)
	if err != nil {
		return nil, err
	}
	return c.irecv(x, source, tag)
}

// Irecv starts receiving elements into b (MPI_Irecv).
func Irecv[T Element](c *Comm, b []T, source, tag int) (*Request, error) {
	x, err := typedBuf("MPI_Irecv", b)
	if err != nil {
		return nil, err
	}
	return c.irecv(x, source, tag)
}

func (c *Comm) irecv(x buf, source, tag int) (*Request, error) {
	const op = "MPI_Irecv"
	if err := c.checkPeer(op, source, tag, true); err != nil {
		return nil, err
	}
	r := newRequest(x.dt, x.p, nil)
	return r.started(op, C.gc_irecv(cbuf(x.p), x.n, hType(x.dt.h), C.int(source), C.int(tag), hComm(c.h)))
}
