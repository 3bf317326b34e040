// Command gfortran is gocoll's coarray runtime for gfortran: built with
// -buildmode=c-shared into libcaf_gocoll.so, it implements the
// _gfortran_caf_* functions of gfortran's -fcoarray=lib ABI (GCC 12) that
// collective programs use, over package coarray. The C shim (caf.c) reads
// gfortran's array descriptors, packs non-contiguous sections, and calls the
// Go functions below; kernels.c holds the arithmetic of the kinds Go lacks
// and the calls of Fortran CO_REDUCE operators. scripts/coarray.sh builds it
// and runs a program on it.
//
// # What works
//
//   - init/finalize (MPI and gocoll under them), THIS_IMAGE, NUM_IMAGES, SYNC
//     ALL, SYNC MEMORY, STOP, ERROR STOP (MPI_Abort: every image ends).
//   - CO_BROADCAST, CO_SUM, CO_MIN, CO_MAX, CO_REDUCE with RESULT_IMAGE,
//     STAT and ERRMSG on scalars and arrays of any rank and section (a
//     non-contiguous one is packed into one buffer: still one collective);
//     integer(1..16), real(4, 8, 16), complex(4, 8, 16), logical; character of
//     any length, kinds 1 and 4 (compared as code points); derived types
//     (CO_BROADCAST of any, CO_REDUCE of those over 16 bytes).
//   - FORM TEAM, CHANGE TEAM, END TEAM, SYNC TEAM (of the current team),
//     TEAM_NUMBER, and THIS_IMAGE/NUM_IMAGES inside a team.
//   - Coarray registration (ALLOCATE/DEALLOCATE synchronize): a program
//     declaring coarrays links and uses its own image's part.
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
// Coindexed access (x[i]), LOCK/UNLOCK, EVENT, atomics, SYNC IMAGES,
// FAIL IMAGE and RANDOM_INIT link, and at run time set STAT 10 where the
// statement has STAT=, else stop the job with a "not supported" message.
// STOP on one image while the others still call collectives is not detected
// (STAT_STOPPED_IMAGE is never reported): they wait for it.
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
	initErr error
	teams   = map[uintptr]*coarray.Team{} // team handles given to Fortran
	handles = map[*coarray.Team]uintptr{}
	real10  = os.Getenv("GOCOLL_CAF_REAL10") == "1"
)

//export gocaf_init
func gocaf_init() C.int {
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
	err := errors.Join(img.SyncAll(), img.Close(), mpiStop(), stopProfile())
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
	return result(img.BroadcastBytes(mem(buf, n), int(elem), int(source)), msg, msgLen)
}

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
func gocaf_form_team(number, newIndex C.int, handle *C.uintptr_t, msg *C.char, msgLen C.size_t) C.int {
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
	if err == nil && t != img.Team() {
		err = fmt.Errorf("%w: SYNC TEAM of a team other than the current one", coarray.ErrNotSupported)
	}
	if err == nil {
		err = img.SyncAll()
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
