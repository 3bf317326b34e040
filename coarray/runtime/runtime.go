// Command runtime is gocoll's Fortran coarray runtime, for gfortran and for
// LLVM flang: built with -buildmode=c-shared into libcaf_gocoll.so, it
// implements the _gfortran_caf_* functions of gfortran's -fcoarray=lib ABI
// (GCC 12; caf.c) and the procedures of the Parallel Runtime Interface for
// Fortran (PRIF) that flang 22 calls for -fcoarray (prif.c), over package
// coarray. The two C shims read their compiler's descriptors into one
// array form (shape.c packs non-contiguous sections) and call the Go
// functions below; kernels.c holds the arithmetic of the kinds Go lacks
// and the calls of Fortran CO_REDUCE operators. scripts/lib.sh's build_caf
// installs it with the wrappers gocaf, gocaf-flang and gocafrun
// (coarray/caf), and scripts/coarray.sh runs a program on it.
//
// # flang
//
// flang 22 lowers THIS_IMAGE, NUM_IMAGES, SYNC ALL, SYNC IMAGES, SYNC
// MEMORY, SYNC TEAM, CO_BROADCAST, CO_SUM, CO_MIN, CO_MAX (character too),
// FORM TEAM, CHANGE TEAM, END TEAM, TEAM_NUMBER and GET_TEAM to PRIF calls,
// all served here with what the list below says of them, STAT and ERRMSG
// included (flang's STAT_STOPPED_IMAGE and STAT_FAILED_IMAGE values). It
// does not lower CO_REDUCE, coarrays or coindexed access (the compiler
// stops with "not yet implemented"), nor THIS_IMAGE(TEAM) and
// NUM_IMAGES(TEAM) (it fails to compile them); NUM_IMAGES(TEAM_NUMBER=)
// answers for the initial and the current team, and stops the job with a
// message for a sibling team. It ends images through its own runtime's
// exit, never through prif_stop: code 0 is normal termination, any other
// code (ERROR STOP, and STOP with a nonzero code) ends every image (see
// prif.c). It passes ERRMSG= of an allocatable variable as a copy of its
// descriptor: the message cannot reach the variable (STAT is set). It
// passes a derived type with allocatable components to CO_BROADCAST
// whole, its components' descriptors included, which the runtime moves as
// given: the receiving images get the source image's addresses, so such a
// broadcast must not be made (gfortran passes each component apart).
//
// # What works
//
//   - init/finalize (MPI and gocoll under them), THIS_IMAGE, NUM_IMAGES, SYNC
//     ALL, SYNC IMAGES (an empty message each way on a communicator of its
//     own; an index outside the team or twice in the list is STAT 1), SYNC
//     MEMORY, STOP, ERROR STOP (MPI_Abort: every image ends).
//   - CO_BROADCAST, CO_SUM, CO_MIN, CO_MAX, CO_REDUCE with RESULT_IMAGE,
//     STAT and ERRMSG on scalars and arrays of any rank and section (a
//     non-contiguous one is packed into one buffer: still one collective);
//     integer(1..16), real(4, 8, 16), complex(4, 8, 16), logical; character of
//     any length, kinds 1 and 4 (compared as code points); derived types
//     (CO_BROADCAST of any, CO_REDUCE of those over 16 bytes).
//   - FORM TEAM, CHANGE TEAM, END TEAM, SYNC TEAM (of the current team, an
//     ancestor, or a team formed on it),
//     TEAM_NUMBER, and THIS_IMAGE/NUM_IMAGES inside a team.
//   - Coarrays and coindexed access (gfortran; coindexed.go): SAVE and
//     allocatable coarrays, x[i] reads and writes of scalars and sections
//     of any stride, x[i] = y[j], a scalar to a section, numeric kinds
//     converted and characters padded as assignment does, derived-type
//     components. Coarrays live in a heap that the processes of a node
//     share (GOCOLL_CAF_HEAP bytes per image, default 256 MiB, touched only
//     where used), so that an access to an image on the same node is a
//     copy; other nodes' go through MPI_Put/MPI_Get of each contiguous run
//     and a flush (coindexed.go). An image index outside the team is STAT
//     1, bytes outside the coarray STAT 13. Allocatable components
//     of a coarray and coarray components (gfortran's by-reference calls,
//     x[i]%a(2:4)): the runtime follows the reference through the other
//     image's memory by address, reading its descriptors there, since a
//     component's memory is attached to the window when allocated.
//     Not yet: vector subscripts (STAT 10).
//   - ATOMIC_DEFINE, ATOMIC_REF, ATOMIC_CAS, ATOMIC_ADD/AND/OR/XOR and their
//     FETCH forms, EVENT POST/WAIT and EVENT_QUERY, LOCK/UNLOCK (with
//     ACQUIRED_LOCK; STAT_LOCKED for a lock this image holds,
//     STAT_LOCKED_OTHER_IMAGE for one another image holds) and CRITICAL,
//     by MPI's atomic operations on the window (atomics.go).
//   - Stopped images (mpi.go). An image that executes STOP or END PROGRAM
//     finishes what its collectives owe the others (Close), then sends
//     every other image a notice with the collectives it had started
//     (coll.Started), and waits for theirs before MPI_Finalize (normal
//     termination ends the program once every image got there). A watcher
//     goroutine on every image looks for notices every 5 ms and tells
//     package coarray (Image.Stopped): a collective, SYNC ALL, SYNC
//     IMAGES, FORM TEAM or CHANGE TEAM with a stopped image that it never
//     started returns STAT_STOPPED_IMAGE, a wait in one at once, and
//     without STAT= the program ends with "image N of the initial team has
//     stopped"; those it started complete. A coindexed access to it gives
//     STAT_STOPPED_IMAGE too. STOPPED_IMAGES and IMAGE_STATUS
//     answer (gfortran; flang 22 does not lower them). FAILED_IMAGES is
//     empty: a process that dies ends the job (mpirun's default).
//   - GOCOLL_CAF_CPUPROFILE=path: each process writes a CPU profile of its
//     Go side (pprof) to path.N, N its image (profile.go).
//   - STAT values as package coarray gives them: an argument error (an
//     invalid RESULT_IMAGE or SOURCE_IMAGE, say) the same on every image
//     gives its STAT on every image. Arguments that differ between images
//     give STAT 2 (mismatch) where the engine sees a message of the other
//     call, or STAT 12 (stalled) after the stall timeout (GOCOLL_STALL,
//     default 10 minutes), never wrong data; with GOCOLL_CAF_CHECK=1 (the
//     package's checked mode, one more small collective per call) every
//     image gets STAT 2 at once, or the STAT of an error found on another
//     image. The type errors this runtime finds itself (a kind it has no
//     arithmetic for, STAT 7; an operator it cannot call, STAT 10) depend
//     only on the call's declared types, alike on every image.
//
// # What does not
//
// FAIL IMAGE and RANDOM_INIT link, and at run time set STAT 10 where the
// statement has STAT=, else stop the job with a "not supported" message.
// gfortran 12 drops STAT= of an image selector (x[i, STAT=s]): an error
// there ends the program.
//
// # gfortran 12's own limits, met on the way
//
//   - It passes ERRMSG= of a collective by value, so the message cannot
//     reach the variable: STAT is set, ERRMSG stays as it was (caf.c,
//     misplaced). SYNC ALL's ERRMSG works.
//   - real(10) and real(16) both reach the runtime as 16-byte reals: kind 16
//     (binary128) is assumed; GOCOLL_CAF_REAL10=1 makes them x87 extended.
//   - A CO_REDUCE function of a derived type of 16 bytes or less returns its
//     value in registers chosen by the component types, which the
//     descriptor does not carry: STAT 10 (such a type cannot be called).
//   - It parses neither NEW_INDEX= nor STAT= on FORM TEAM, CHANGE TEAM and
//     END TEAM, nor GET_TEAM with a level; the Go package has all of them.
//   - A section of a component (p(:)%a) reaches the runtime described as the
//     whole derived type: CO_BROADCAST of it moves the whole elements.
//   - CO_BROADCAST of a derived type with allocatable components comes as
//     one call per component, in descriptors whose span and offset it
//     leaves unset (caf.c believes a span only where the offset agrees),
//     and one more for each allocatable scalar's coarray token, which is
//     skipped.
package main

/*
#include "caf.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"unsafe"

	"github.com/gocoll/gocoll/coarray"
	"github.com/gocoll/gocoll/coll"
)

func main() {}

// The runtime's operators: Fortran CO_REDUCE functions (the one in
// gocaf_cur), and the C kernels of the kinds Go has no arithmetic for
// (arg names the kernel).
const (
	opFortran coarray.Op = iota
	opKernel
)

var (
	img     *coarray.Image // the image in its current team
	initial *coarray.Image // the image in the initial team (for the watcher: Stopped)
	initErr error
	teams   = map[uintptr]*coarray.Team{} // team handles given to Fortran
	handles = map[*coarray.Team]uintptr{}
	real10  = os.Getenv("GOCOLL_CAF_REAL10") == "1"
)

// gocaf_init starts MPI, gocoll and the runtime, once: gfortran registers a
// program's SAVE coarrays from a constructor, before main calls
// _gfortran_caf_init, so the first registration starts it.
//
//export gocaf_init
func gocaf_init() C.int {
	if img != nil {
		return 0
	}
	c, err := mpiStart()
	if err == nil {
		img, err = coarray.Init(c, nil, 0, coarray.Options{
			Operators: []coarray.Operator{
				coarray.ElementwiseOperator(func(dst, a, b []byte, _ int) {
					C.gocaf_apply(ptr(dst), ptr(a), ptr(b), C.size_t(len(dst)))
				}, 0),
				coarray.ElementwiseOperator(func(dst, a, b []byte, kernel int) {
					C.gocaf_kernel(C.int(kernel), ptr(dst), ptr(a), ptr(b), C.size_t(len(dst)))
				}, 0),
			},
		})
	}
	if err == nil {
		initial = img
		stops = watchStops(func(rank int, started coll.Started) { _ = initial.Stopped(rank+1, started) })
	}
	if err == nil {
		err = startProfile(img.ThisImage())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gocoll coarray runtime: initialization failed:", err)
		return 1
	}
	C.gocaf_cur.real10 = C.bool(real10)
	return 0
}

//export gocaf_finalize
func gocaf_finalize() {
	if img == nil {
		return
	}
	for img.Outer() != nil { // STOP inside CHANGE TEAM
		img = img.Outer()
	}
	// Close finishes what the image's collectives still owe the others
	// before they hear that it stopped: the ones it started complete there.
	err := img.Close()
	err = errors.Join(err, stops.stop(img.Coll().Started()), mpiStop(), stopProfile())
	img = nil
	if err != nil {
		fmt.Fprintln(os.Stderr, "gocoll coarray runtime: finalization:", err)
	}
}

//export gocaf_abort
func gocaf_abort(code C.int) {
	mpiAbort(int(code))
	os.Exit(int(code))
}

//export gocaf_this_image
func gocaf_this_image() C.int { return C.int(img.ThisImage()) }

//export gocaf_num_images
func gocaf_num_images() C.int { return C.int(img.NumImages()) }

//export gocaf_sync_all
func gocaf_sync_all(msg *C.char, msgLen C.size_t) C.int {
	return result(img.SyncAll(), msg, msgLen)
}

//export gocaf_broadcast
func gocaf_broadcast(buf unsafe.Pointer, n, elem C.size_t, source C.int, msg *C.char, msgLen C.size_t) C.int {
	if buf == nil && n > 0 {
		return result(errNoStorage, msg, msgLen)
	}
	return result(img.BroadcastBytes(mem(buf, n), int(elem), int(source)), msg, msgLen)
}

// errNoStorage is the error of an array of nonzero size at a null address
// (an unallocated allocatable).
var errNoStorage = fmt.Errorf("%w: the array has no storage (not allocated?)", coarray.ErrType)

// What gocaf_reduce computes.
const (
	whatSum = iota + 1
	whatMin
	whatMax
	whatReduce
)

// gocaf_reduce is CO_SUM, CO_MIN, CO_MAX or CO_REDUCE (the operator in
// gocaf_cur) of n bytes at buf, elements of gfortran type typ and elem
// bytes, characters of charLen for character types.
//
//export gocaf_reduce
func gocaf_reduce(buf unsafe.Pointer, n C.size_t, what, typ C.int, elem, charLen C.size_t, resultImage C.int, msg *C.char, msgLen C.size_t) C.int {
	b, ri := mem(buf, n), int(resultImage)
	var err error
	switch {
	case buf == nil && n > 0:
		err = errNoStorage
	case what == whatReduce:
		err = reduceFortran(b, int(typ), int(elem), int(charLen), ri)
	case typ == C.BT_CHARACTER:
		k := coarray.Char
		if charLen > 0 && elem == 4*charLen {
			k = coarray.Char4
		}
		if what == whatMin {
			err = img.MinBytes(b, k, int(charLen), ri)
		} else if what == whatMax {
			err = img.MaxBytes(b, k, int(charLen), ri)
		} else {
			err = fmt.Errorf("%w: CO_SUM of character", coarray.ErrType)
		}
	default:
		k, kernel, kerr := kindOf(int(typ), int(elem), int(what))
		switch {
		case kerr != nil:
			err = kerr
		case kernel != 0:
			err = img.ReduceBytes(b, int(elem), opKernel, kernel<<8|int(what), ri)
		case what == whatSum:
			err = img.SumBytes(b, k, ri)
		case what == whatMin:
			err = img.MinBytes(b, k, 0, ri)
		default:
			err = img.MaxBytes(b, k, 0, ri)
		}
	}
	return result(err, msg, msgLen)
}

// kindOf maps a gfortran numeric type to the coarray package's Kind, or to
// a C kernel for the kinds Go has no arithmetic for.
func kindOf(typ, elem, what int) (coarray.Kind, int, error) {
	switch {
	case typ == C.BT_INTEGER:
		switch elem {
		case 1:
			return coarray.Int8, 0, nil
		case 2:
			return coarray.Int16, 0, nil
		case 4:
			return coarray.Int32, 0, nil
		case 8:
			return coarray.Int64, 0, nil
		case 16:
			return 0, C.T_INT128, nil
		}
	case typ == C.BT_REAL:
		switch elem {
		case 4:
			return coarray.Float32, 0, nil
		case 8:
			return coarray.Float64, 0, nil
		case 16:
			if real10 {
				return 0, C.T_FLOAT80, nil
			}
			return 0, C.T_FLOAT128, nil
		}
	case typ == C.BT_REAL_X87 && elem == 16:
		return 0, C.T_FLOAT80, nil
	case typ == C.BT_REAL_QUAD && elem == 16:
		return 0, C.T_FLOAT128, nil
	case typ == C.BT_COMPLEX_X87 && elem == 32 && what == whatSum:
		return 0, C.T_COMPLEX80, nil
	case typ == C.BT_COMPLEX_QUAD && elem == 32 && what == whatSum:
		return 0, C.T_COMPLEX128Q, nil
	case typ == C.BT_COMPLEX && what == whatSum:
		switch elem {
		case 8:
			return coarray.Complex64, 0, nil
		case 16:
			return coarray.Complex128, 0, nil
		case 32:
			if real10 {
				return 0, C.T_COMPLEX80, nil
			}
			return 0, C.T_COMPLEX128Q, nil
		}
	}
	return 0, 0, fmt.Errorf("%w: gfortran type %d of %d bytes for this collective", coarray.ErrType, typ, elem)
}

// reduceFortran is CO_REDUCE with the Fortran function in gocaf_cur.
func reduceFortran(b []byte, typ, elem, charLen, ri int) error {
	if typ == C.BT_DERIVED && elem <= 16 {
		// Such a result comes back in registers chosen by the types of
		// its components (System V ABI), which the descriptor does not
		// carry: the runtime cannot call the function correctly.
		return fmt.Errorf("%w: CO_REDUCE on a derived type of %d bytes: results of 16 bytes or less come back in registers that depend on the component types, which gfortran does not pass; give the type more than 16 bytes", coarray.ErrNotSupported, elem)
	}
	if C.gocaf_cur.flags&C.CAF_ARG_DESC != 0 {
		return fmt.Errorf("%w: CO_REDUCE operator with array arguments", coarray.ErrNotSupported)
	}
	C.gocaf_cur._type = C.int(typ)
	C.gocaf_cur.elem_len = C.size_t(elem)
	C.gocaf_cur.char_len = C.size_t(charLen)
	return img.ReduceBytes(b, elem, opFortran, 0, ri)
}

// Teams. A Fortran team value (caf_team_t, a pointer) holds a handle; 0
// names the current team.

//export gocaf_form_team
func gocaf_form_team(number C.int64_t, newIndex C.int, handle *C.uintptr_t, msg *C.char, msgLen C.size_t) C.int {
	t, err := img.FormTeam(int(number), int(newIndex))
	if err == nil {
		*handle = C.uintptr_t(handleOf(t))
	}
	return result(err, msg, msgLen)
}

func handleOf(t *coarray.Team) uintptr {
	h, ok := handles[t]
	if !ok {
		h = uintptr(len(handles) + 1)
		handles[t], teams[h] = h, t
	}
	return h
}

func teamOf(h uintptr) (*coarray.Team, error) {
	if h == 0 {
		return img.Team(), nil
	}
	if t, ok := teams[h]; ok {
		return t, nil
	}
	return nil, fmt.Errorf("%w: not a team value", coarray.ErrTeam)
}

//export gocaf_change_team
func gocaf_change_team(h C.uintptr_t, msg *C.char, msgLen C.size_t) C.int {
	t, err := teamOf(uintptr(h))
	if err == nil {
		var in *coarray.Image
		if in, err = img.BeginTeam(t); err == nil {
			img = in
		}
	}
	return result(err, msg, msgLen)
}

//export gocaf_end_team
func gocaf_end_team(msg *C.char, msgLen C.size_t) C.int {
	in := img
	err := in.EndTeam()
	if err == nil {
		img = in.Outer()
	}
	return result(err, msg, msgLen)
}

//export gocaf_sync_team
func gocaf_sync_team(h C.uintptr_t, msg *C.char, msgLen C.size_t) C.int {
	t, err := teamOf(uintptr(h))
	if err == nil {
		err = img.SyncTeam(t)
	}
	return result(err, msg, msgLen)
}

//export gocaf_team_number
func gocaf_team_number(h C.uintptr_t) C.int {
	t, err := teamOf(uintptr(h))
	if err != nil {
		return -1
	}
	return C.int(t.Number())
}

//export gocaf_get_team
func gocaf_get_team(level C.int) C.uintptr_t {
	t, err := img.GetTeam(int(level))
	if err != nil || t.Parent() == nil {
		return 0
	}
	return C.uintptr_t(handleOf(t))
}

// gocaf_team_handle is GET_TEAM(level) as a handle of its own for every
// team, the initial one too (flang's team values are never "current").
//
//export gocaf_team_handle
func gocaf_team_handle(level C.int) C.uintptr_t {
	t, err := img.GetTeam(int(level))
	if err != nil {
		return 0
	}
	return C.uintptr_t(handleOf(t))
}

// gocaf_this_image_in is THIS_IMAGE(TEAM=h); 0 for a team value this
// image is not in.
//
//export gocaf_this_image_in
func gocaf_this_image_in(h C.uintptr_t) C.int {
	t, err := teamOf(uintptr(h))
	if err != nil {
		return 0
	}
	return C.int(img.ThisImageIn(t))
}

// gocaf_num_images_in is NUM_IMAGES(TEAM=h); 0 for a value that is not a
// team.
//
//export gocaf_num_images_in
func gocaf_num_images_in(h C.uintptr_t) C.int {
	t, err := teamOf(uintptr(h))
	if err != nil {
		return 0
	}
	return C.int(t.NumImages())
}

// gocaf_num_images_numbered is NUM_IMAGES(TEAM_NUMBER=n) for the initial
// team (-1) and the current team; -1 with the message for a sibling team.
//
//export gocaf_num_images_numbered
func gocaf_num_images_numbered(n C.int64_t, msg *C.char, msgLen C.size_t) C.int {
	switch {
	case n == -1:
		t, _ := img.GetTeam(coarray.InitialTeam)
		return C.int(t.NumImages())
	case int64(n) == int64(img.TeamNumber()):
		return C.int(img.NumImages())
	}
	result(fmt.Errorf("%w: NUM_IMAGES(TEAM_NUMBER=%d) of a team other than the current and the initial one", coarray.ErrNotSupported, n), msg, msgLen)
	return -1
}

// gocaf_stopped_images writes STOPPED_IMAGES(), the indices of the current
// team's images that stopped, into out (room for max) and returns how many
// there are. (gfortran 12 takes no TEAM= for it.)
//
//export gocaf_stopped_images
func gocaf_stopped_images(out *C.int, max C.int) C.int {
	list := img.StoppedImages(nil)
	for k, i := range list[:min(len(list), int(max))] {
		unsafe.Slice(out, int(max))[k] = C.int(i)
	}
	return C.int(len(list))
}

// gocaf_image_status is IMAGE_STATUS(image) in the current team:
// STAT_STOPPED_IMAGE (gfortran's value) for an image that stopped, else 0.
//
//export gocaf_image_status
func gocaf_image_status(image C.int) C.int {
	if img.ImageStopped(int(image)) {
		return coarray.StatStoppedImage
	}
	return 0
}

// gocaf_sync_images is SYNC IMAGES over the n image indices at images (of
// the current team), or over every other image of the current team when n
// is -1 (SYNC IMAGES (*)).
//
//export gocaf_sync_images
func gocaf_sync_images(images *C.int, n C.int, msg *C.char, msgLen C.size_t) C.int {
	var list []C.int
	if n > 0 {
		list = unsafe.Slice(images, int(n))
	}
	me, np := img.ThisImage(), img.NumImages()
	var indices, nodes []int
	seen := map[int]bool{}
	add := func(i int) error {
		if i < 1 || i > np {
			return fmt.Errorf("%w: SYNC IMAGES of image %d, the team has %d", coarray.ErrInvalidImage, i, np)
		}
		if seen[i] {
			return fmt.Errorf("%w: image %d is in SYNC IMAGES' list twice", coarray.ErrInvalidImage, i)
		}
		seen[i] = true
		if i == me {
			return nil
		}
		node, err := img.NodeOf(i)
		indices, nodes = append(indices, i), append(nodes, node)
		return err
	}
	var err error
	if n < 0 {
		for i := 1; i <= np && err == nil; i++ {
			err = add(i)
		}
	}
	for _, i := range list {
		if err == nil {
			err = add(int(i))
		}
	}
	if err == nil {
		err = syncWith(indices, nodes)
	}
	return result(err, msg, msgLen)
}

// result is err's STAT value, its ERRMSG written NUL-terminated into msg
// (msgLen bytes).
func result(err error, msg *C.char, msgLen C.size_t) C.int {
	if err == nil {
		return 0
	}
	m := unsafe.Slice((*byte)(unsafe.Pointer(msg)), int(msgLen))
	s := strings.TrimPrefix(err.Error(), "coarray: ")
	m[copy(m[:len(m)-1], s)] = 0
	return C.int(coarray.Stat(err))
}

func mem(p unsafe.Pointer, n C.size_t) []byte {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(p), int(n))
}

func ptr(b []byte) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(b)) }
