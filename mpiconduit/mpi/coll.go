package mpi

/*
#include "gc.h"
#include "gc_coll.h"
*/
import "C"

import (
	"math"
	"unsafe"
)

// Native collectives. Byte-level forms are methods of *Comm (the data-moving
// ones); typed forms are generic functions over Element. Every process of the
// communicator must call the same collective with the same root and matching
// lengths. Buffers that MPI ignores (recv of Reduce and Gather off the root,
// send of Scatter off the root) may be nil there.
//
// In-place forms pass MPI_IN_PLACE, and are asked for by aliasing:
//
//   - Allreduce, Scan, Exscan, Alltoall, and Reduce at the root: the same
//     slice (same address and length) as send and recv.
//   - Gather at the root and Allgather: send is exactly this rank's block of
//     recv, recv[rank*n : (rank+1)*n].
//   - Scatter at the root: recv is exactly the root's block of send.
//   - ReduceScatterBlock: the same full-length slice as send and recv; the
//     result is its first block.
//
// Any other overlap of send and recv is refused with ErrArg. As MPI requires,
// Allreduce, Allgather, Alltoall and ReduceScatterBlock use the in-place form
// on every process or on none.
//
// An overflowing MPI_SUM or MPI_PROD of 8- or 16-bit integers is not
// portable: Open MPI's AVX operators saturate where its plain loops wrap
// (open-mpi/ompi#8045, wontfix), so the result depends on the count.

// span is a whole collective buffer. Unlike buf its length may exceed
// MaxInt32: MPI is only given the count of one block.
type span struct {
	p  unsafe.Pointer
	n  int
	dt Datatype
}

func spanOf[T Element](s []T) span {
	return span{p: unsafe.Pointer(unsafe.SliceData(s)), n: len(s), dt: DatatypeOf[T]()}
}

func byteSpan(s []byte) span {
	return span{p: unsafe.Pointer(unsafe.SliceData(s)), n: len(s), dt: Byte}
}

// c is the buffer as a cgo argument.
func (s span) c() *C.char { return cbuf(s.p) }

// need reports ErrNilBuffer for a nil slice (SliceData is nil only then) and
// ErrShortBuffer for fewer than n elements.
func (s span) need(op, what string, n int) error {
	if s.p != nil && s.n >= n {
		return nil
	}
	return s.needErr(op, what, n)
}

func (s span) needErr(op, what string, n int) error {
	if s.p == nil {
		return misuse(ErrNilBuffer, op, "%s buffer is required", what)
	}
	return misuse(ErrShortBuffer, op, "%s buffer has %d elements, needs %d", what, s.n, n)
}

// at is the address of element i. It is a uintptr, only compared: an
// address one past the end must never be held as a pointer.
func (s span) at(i int) uintptr { return uintptr(s.p) + uintptr(i*s.dt.size) }

// same reports whether a and b are the same slice: the in-place form.
func same(a, b span) bool { return a.p == b.p && a.n == b.n }

// overlap reports whether the first an elements of a share memory with the
// first bn elements of b.
func overlap(op string, a span, an int, b span, bn int) error {
	if disjoint(a, an, b, bn) {
		return nil
	}
	return overlapErr(op)
}

func disjoint(a span, an int, b span, bn int) bool {
	return an == 0 || bn == 0 || a.at(an) <= b.at(0) || b.at(bn) <= a.at(0)
}

func overlapErr(op string) error {
	return misuse(ErrArg, op, "send and recv overlap outside the in-place forms")
}

// checkCount refuses a per-block count that MPI's int cannot carry.
func checkCount(op string, n int) error {
	if n <= math.MaxInt32 {
		return nil
	}
	return countErr(op, n)
}

func countErr(op string, n int) error {
	return misuse(ErrCount, op, "%d elements per block > %d", n, math.MaxInt32)
}

func cbool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

func opName(nb bool, blocking, nonblocking string) string {
	if nb {
		return nonblocking
	}
	return blocking
}

// Each collective validates its operands, then either calls the blocking C
// wrapper directly, or starts the nonblocking form (gc_i...) on a new Request
// made by startColl, which pins the buffers and holds the user operator
// until completion. Blocking calls hold a user operator only for the call.

// startColl makes the Request of a nonblocking collective: it pins the Go
// buffers at p0 and p1 (nil for none) and keeps the user-operator slot held
// (-1 for none) until completion.
func startColl(dt Datatype, slot int, p0, p1 unsafe.Pointer) *Request {
	r := newRequest(dt, p0, p1)
	keepOp(r, slot)
	return r
}

// Data kinds for the operator checks, after MPI-3.1 section 5.9.2.
const (
	kindOther = iota
	kindInt
	kindFloat
	kindComplex
	kindPair
	kindByte
)

func kindOf(d Datatype) int {
	if d.dtype == nil {
		return kindOther
	}
	switch d.h {
	case Int8.h, Int16.h, Int32.h, Int64.h, Uint8.h, Uint16.h, Uint32.h, Uint64.h:
		return kindInt
	case Float32.h, Float64.h:
		return kindFloat
	case Complex64.h, Complex128.h:
		return kindComplex
	case FloatInt.h, DoubleInt.h, TwoInt.h, LongInt.h:
		return kindPair
	case Byte.h:
		return kindByte
	}
	return kindOther
}

// checkPredefined refuses the operator/datatype pairs MPI leaves undefined,
// which would otherwise fail inside MPI or, worse, on only some ranks.
func checkPredefined(op string, o Op, dt Datatype) error {
	k := kindOf(dt)
	var ok bool
	switch o.handle() {
	case OpSum.h, OpProd.h:
		ok = k == kindInt || k == kindFloat || k == kindComplex
	case OpMin.h, OpMax.h:
		ok = k == kindInt || k == kindFloat
	case OpLand.h, OpLor.h, OpLxor.h:
		ok = k == kindInt
	case OpBand.h, OpBor.h, OpBxor.h:
		ok = k == kindInt || k == kindByte
	case OpMinloc.h, OpMaxloc.h:
		ok = k == kindPair
	case OpReplace.h, OpNoOp.h:
		return misuse(ErrArg, op, "%s applies only to one-sided accumulate", o)
	default:
		return misuse(ErrArg, op, "invalid operator (zero Op)")
	}
	if !ok {
		return misuse(ErrDatatype, op, "%s does not apply to %s", o, dt)
	}
	return nil
}

// reduction validates the operands shared by Reduce, Allreduce, Scan and
// Exscan: n = len(send) elements, recv holds n where it is used, the same
// slice means in place. It returns the user-operator slot it holds.
func (c *Comm) reduction(op string, s, r span, o Op, recvUsed bool) (inPlace bool, slot int, err error) {
	if err := s.need(op, "send", 0); err != nil {
		return false, -1, err
	}
	if err := checkCount(op, s.n); err != nil {
		return false, -1, err
	}
	if recvUsed {
		if err := r.need(op, "recv", s.n); err != nil {
			return false, -1, err
		}
		inPlace = same(s, r)
		if !inPlace && !disjoint(s, s.n, r, s.n) {
			return false, -1, overlapErr(op)
		}
	}
	if predefinedOK(o, s.dt) {
		return inPlace, -1, nil
	}
	slot, err = holdOpSlow(op, o, s.dt)
	return inPlace, slot, err
}

// Bcast sends b from root to every process of c (MPI_Bcast).
func (c *Comm) Bcast(b []byte, root int) error {
	_, err := c.bcast(false, byteSpan(b), root)
	return err
}

// Bcast sends the elements of b from root to every process of c (MPI_Bcast).
func Bcast[T Element](c *Comm, b []T, root int) error {
	_, err := c.bcast(false, spanOf(b), root)
	return err
}

// begin is the start every data-movement collective shares: a live
// communicator, the root in range when the collective has one, and the
// block buffer b present with a count MPI's int can carry.
func (c *Comm) begin(op string, rooted bool, root int, b span, name string) error {
	if err := c.check(op); err != nil {
		return err
	}
	if rooted {
		if err := c.checkRank(op, root); err != nil {
			return err
		}
	}
	if err := b.need(op, name, 0); err != nil {
		return err
	}
	return checkCount(op, b.n)
}

func (c *Comm) bcast(nb bool, b span, root int) (*Request, error) {
	op := opName(nb, "MPI_Bcast", "MPI_Ibcast")
	if err := c.begin(op, true, root, b, "the"); err != nil {
		return nil, err
	}
	if !nb {
		return nil, mpiErr(op, C.gc_bcast(b.c(), C.int(b.n), hType(b.dt.h), C.int(root), hComm(c.h)))
	}
	req := startColl(b.dt, -1, b.p, nil)
	return req.started(op,
		C.gc_ibcast(b.c(), C.int(b.n), hType(b.dt.h), C.int(root), hComm(c.h)))
}

// Reduce combines send of every process with op into recv at root
// (MPI_Reduce); recv needs len(send) elements at the root and is ignored (may
// be nil) elsewhere. At the root, send and recv the same slice is in place.
func Reduce[T Element](c *Comm, send, recv []T, op Op, root int) error {
	_, err := c.reduce(false, spanOf(send), spanOf(recv), op, root)
	return err
}

func (c *Comm) reduce(nb bool, s, r span, o Op, root int) (*Request, error) {
	op := opName(nb, "MPI_Reduce", "MPI_Ireduce")
	if err := c.check(op); err != nil {
		return nil, err
	}
	if err := c.checkRank(op, root); err != nil {
		return nil, err
	}
	atRoot := c.rank == root
	inPlace, slot, err := c.reduction(op, s, r, o, atRoot)
	if err != nil {
		return nil, err
	}
	if !atRoot {
		r = span{} // MPI ignores it; a nil recv is allowed here
	}
	n, dt, oh, ch, ip := C.int(s.n), hType(s.dt.h), hOp(o.h), hComm(c.h), cbool(inPlace)
	if !nb {
		rc := C.gc_reduce(s.c(), r.c(), n, dt, oh, C.int(root), ch, ip)
		releaseOp(slot)
		return nil, mpiErr(op, rc)
	}
	req := startColl(s.dt, slot, s.p, r.p)
	return req.started(op,
		C.gc_ireduce(s.c(), r.c(), n, dt, oh, C.int(root), ch, ip))
}

// Allreduce combines send of every process with op into recv of every process
// (MPI_Allreduce); recv needs len(send) elements. The same slice as send and
// recv is in place.
func Allreduce[T Element](c *Comm, send, recv []T, op Op) error {
	_, err := c.elementwise(false, kindAllreduce, spanOf(send), spanOf(recv), op)
	return err
}

// elementwise kinds: the reductions of whole vectors that share one shape
// (send, recv, count, type, op, comm, in place); the C side switches on it.
const (
	kindAllreduce = iota
	kindScan
	kindExscan
)

var elementwiseNames = [...][2]string{
	kindAllreduce: {"MPI_Allreduce", "MPI_Iallreduce"},
	kindScan:      {"MPI_Scan", "MPI_Iscan"},
	kindExscan:    {"MPI_Exscan", "MPI_Iexscan"},
}

// elementwise is Allreduce, Scan or Exscan, blocking or not.
func (c *Comm) elementwise(nb bool, kind int, s, r span, o Op) (*Request, error) {
	op := opName(nb, elementwiseNames[kind][0], elementwiseNames[kind][1])
	if err := c.check(op); err != nil {
		return nil, err
	}
	inPlace, slot, err := c.reduction(op, s, r, o, true)
	if err != nil {
		return nil, err
	}
	k, n, dt, oh, ch, ip := C.int(kind), C.int(s.n), hType(s.dt.h), hOp(o.h), hComm(c.h), cbool(inPlace)
	if !nb {
		rc := C.gc_elementwise(k, s.c(), r.c(), n, dt, oh, ch, ip)
		releaseOp(slot)
		return nil, mpiErr(op, rc)
	}
	req := startColl(s.dt, slot, s.p, r.p)
	return req.started(op, C.gc_ielementwise(k, s.c(), r.c(), n, dt, oh, ch, ip))
}

// Scan puts into recv of rank i the reduction with op of send of ranks 0..i
// (MPI_Scan); recv needs len(send) elements. The same slice is in place.
func Scan[T Element](c *Comm, send, recv []T, op Op) error {
	_, err := c.elementwise(false, kindScan, spanOf(send), spanOf(recv), op)
	return err
}

// Exscan puts into recv of rank i > 0 the reduction with op of send of ranks
// 0..i-1 (MPI_Exscan); recv of rank 0 is undefined, as in MPI. recv needs
// len(send) elements; the same slice is in place.
func Exscan[T Element](c *Comm, send, recv []T, op Op) error {
	_, err := c.elementwise(false, kindExscan, spanOf(send), spanOf(recv), op)
	return err
}

// ReduceScatterBlock reduces send of every process with op and leaves block i
// of the result, len(recv) elements, in recv of rank i
// (MPI_Reduce_scatter_block); send needs Size()*len(recv) elements. The same
// slice as send and recv, of Size()*n elements, is in place: the result goes
// to its first n elements.
func ReduceScatterBlock[T Element](c *Comm, send, recv []T, op Op) error {
	_, err := c.reduceScatterBlock(false, spanOf(send), spanOf(recv), op)
	return err
}

func (c *Comm) reduceScatterBlock(nb bool, s, r span, o Op) (*Request, error) {
	op := opName(nb, "MPI_Reduce_scatter_block", "MPI_Ireduce_scatter_block")
	n, inPlace, slot, err := c.reduceScatterBlockArgs(op, s, r, o)
	if err != nil {
		return nil, err
	}
	cn, dt, oh, ch, ip := C.int(n), hType(s.dt.h), hOp(o.h), hComm(c.h), cbool(inPlace)
	if !nb {
		rc := C.gc_reduce_scatter_block(s.c(), r.c(), cn, dt, oh, ch, ip)
		releaseOp(slot)
		return nil, mpiErr(op, rc)
	}
	req := startColl(s.dt, slot, s.p, r.p)
	return req.started(op,
		C.gc_ireduce_scatter_block(s.c(), r.c(), cn, dt, oh, ch, ip))
}

// reduceScatterBlockArgs validates the operands of ReduceScatterBlock, in
// all its forms: n elements per block, whether it is in place, and the
// user-operator slot it holds.
func (c *Comm) reduceScatterBlockArgs(op string, s, r span, o Op) (n int, inPlace bool, slot int, err error) {
	if err := c.check(op); err != nil {
		return 0, false, -1, err
	}
	if err := r.need(op, "recv", 0); err != nil {
		return 0, false, -1, err
	}
	n, inPlace = r.n, same(s, r)
	if inPlace {
		if r.n%c.size != 0 {
			return 0, false, -1, misuse(ErrArg, op, "in-place buffer of %d elements is not %d equal blocks", r.n, c.size)
		}
		n = r.n / c.size
	}
	if err := checkCount(op, n); err != nil {
		return 0, false, -1, err
	}
	if err := s.need(op, "send", c.size*n); err != nil {
		return 0, false, -1, err
	}
	if !inPlace {
		if err := overlap(op, s, c.size*n, r, n); err != nil {
			return 0, false, -1, err
		}
	}
	slot, err = holdOp(op, o, s.dt)
	return n, inPlace, slot, err
}

// Gather collects send of every process into recv at root, rank i's block at
// recv[i*len(send):] (MPI_Gather). recv needs Size()*len(send) bytes at the
// root and is ignored (may be nil) elsewhere. At the root, send being exactly
// the root's block of recv is in place.
func (c *Comm) Gather(send, recv []byte, root int) error {
	_, err := c.gather(false, byteSpan(send), byteSpan(recv), root)
	return err
}

// Gather collects send of every process into recv at root (MPI_Gather); see
// Comm.Gather.
func Gather[T Element](c *Comm, send, recv []T, root int) error {
	_, err := c.gather(false, spanOf(send), spanOf(recv), root)
	return err
}

func (c *Comm) gather(nb bool, s, r span, root int) (*Request, error) {
	op := opName(nb, "MPI_Gather", "MPI_Igather")
	if err := c.begin(op, true, root, s, "send"); err != nil {
		return nil, err
	}
	n := s.n
	inPlace := false
	if c.rank == root {
		var err error
		if inPlace, err = c.gatherRecv(op, s, r, n); err != nil {
			return nil, err
		}
	} else {
		r = span{} // MPI ignores it; a nil recv is allowed here
	}
	cn, dt, ch, ip := C.int(n), hType(s.dt.h), hComm(c.h), cbool(inPlace)
	if !nb {
		return nil, mpiErr(op, C.gc_gather(s.c(), r.c(), cn, dt, C.int(root), ch, ip))
	}
	req := startColl(s.dt, -1, s.p, r.p)
	return req.started(op,
		C.gc_igather(s.c(), r.c(), cn, dt, C.int(root), ch, ip))
}

// gatherRecv checks the receive buffer of Gather (at the root) and Allgather:
// Size() blocks of n, with send in place when it is this rank's block.
func (c *Comm) gatherRecv(op string, s, r span, n int) (inPlace bool, err error) {
	if err := r.need(op, "recv", c.size*n); err != nil {
		return false, err
	}
	if n > 0 && uintptr(s.p) == r.at(c.rank*n) {
		return true, nil
	}
	return false, overlap(op, s, n, r, c.size*n)
}

// Scatter sends block i of send at root, send[i*len(recv):], to recv of rank
// i (MPI_Scatter). send needs Size()*len(recv) bytes at the root and is
// ignored (may be nil) elsewhere. At the root, recv being exactly the root's
// block of send is in place.
func (c *Comm) Scatter(send, recv []byte, root int) error {
	_, err := c.scatter(false, byteSpan(send), byteSpan(recv), root)
	return err
}

// Scatter sends block i of send at root to recv of rank i (MPI_Scatter); see
// Comm.Scatter.
func Scatter[T Element](c *Comm, send, recv []T, root int) error {
	_, err := c.scatter(false, spanOf(send), spanOf(recv), root)
	return err
}

func (c *Comm) scatter(nb bool, s, r span, root int) (*Request, error) {
	op := opName(nb, "MPI_Scatter", "MPI_Iscatter")
	if err := c.begin(op, true, root, r, "recv"); err != nil {
		return nil, err
	}
	n := r.n
	inPlace := false
	if c.rank == root {
		if err := s.need(op, "send", c.size*n); err != nil {
			return nil, err
		}
		inPlace = n > 0 && uintptr(r.p) == s.at(root*n)
		if !inPlace {
			if err := overlap(op, s, c.size*n, r, n); err != nil {
				return nil, err
			}
		}
	} else {
		s = span{} // MPI ignores it; a nil send is allowed here
	}
	cn, dt, ch, ip := C.int(n), hType(r.dt.h), hComm(c.h), cbool(inPlace)
	if !nb {
		return nil, mpiErr(op, C.gc_scatter(s.c(), r.c(), cn, dt, C.int(root), ch, ip))
	}
	req := startColl(r.dt, -1, s.p, r.p)
	return req.started(op,
		C.gc_iscatter(s.c(), r.c(), cn, dt, C.int(root), ch, ip))
}

// Allgather collects send of every process into recv of every process, rank
// i's block at recv[i*len(send):] (MPI_Allgather); recv needs
// Size()*len(send) bytes. send being exactly this rank's block of recv is in
// place.
func (c *Comm) Allgather(send, recv []byte) error {
	_, err := c.allgather(false, byteSpan(send), byteSpan(recv))
	return err
}

// Allgather collects send of every process into recv of every process
// (MPI_Allgather); see Comm.Allgather.
func Allgather[T Element](c *Comm, send, recv []T) error {
	_, err := c.allgather(false, spanOf(send), spanOf(recv))
	return err
}

func (c *Comm) allgather(nb bool, s, r span) (*Request, error) {
	op := opName(nb, "MPI_Allgather", "MPI_Iallgather")
	if err := c.begin(op, false, 0, s, "send"); err != nil {
		return nil, err
	}
	n := s.n
	inPlace, err := c.gatherRecv(op, s, r, n)
	if err != nil {
		return nil, err
	}
	cn, dt, ch, ip := C.int(n), hType(s.dt.h), hComm(c.h), cbool(inPlace)
	if !nb {
		return nil, mpiErr(op, C.gc_allgather(s.c(), r.c(), cn, dt, ch, ip))
	}
	req := startColl(s.dt, -1, s.p, r.p)
	return req.started(op,
		C.gc_iallgather(s.c(), r.c(), cn, dt, ch, ip))
}

// Alltoall sends block j of send, len(send)/Size() bytes, to rank j, and
// receives rank j's block for this rank into block j of recv (MPI_Alltoall).
// len(send) must be a multiple of Size() and recv must be as long. The same
// slice as send and recv is in place.
func (c *Comm) Alltoall(send, recv []byte) error {
	_, err := c.alltoall(false, byteSpan(send), byteSpan(recv))
	return err
}

// Alltoall exchanges blocks between every pair of processes (MPI_Alltoall);
// see Comm.Alltoall.
func Alltoall[T Element](c *Comm, send, recv []T) error {
	_, err := c.alltoall(false, spanOf(send), spanOf(recv))
	return err
}

func (c *Comm) alltoall(nb bool, s, r span) (*Request, error) {
	op := opName(nb, "MPI_Alltoall", "MPI_Ialltoall")
	if err := c.check(op); err != nil {
		return nil, err
	}
	if err := s.need(op, "send", 0); err != nil {
		return nil, err
	}
	if s.n%c.size != 0 {
		return nil, misuse(ErrArg, op, "send of %d elements is not %d equal blocks", s.n, c.size)
	}
	n := s.n / c.size
	if err := checkCount(op, n); err != nil {
		return nil, err
	}
	if err := r.need(op, "recv", s.n); err != nil {
		return nil, err
	}
	inPlace := same(s, r)
	if !inPlace {
		if err := overlap(op, s, s.n, r, s.n); err != nil {
			return nil, err
		}
	}
	cn, dt, ch, ip := C.int(n), hType(s.dt.h), hComm(c.h), cbool(inPlace)
	if !nb {
		return nil, mpiErr(op, C.gc_alltoall(s.c(), r.c(), cn, dt, ch, ip))
	}
	req := startColl(s.dt, -1, s.p, r.p)
	return req.started(op,
		C.gc_ialltoall(s.c(), r.c(), cn, dt, ch, ip))
}
