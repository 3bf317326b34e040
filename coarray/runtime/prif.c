// The Parallel Runtime Interface for Fortran (PRIF) as LLVM flang 22 calls
// it for programs built with -fcoarray: the module procedures of a module
// named prif (flang's names _QMprifPprif_*), with the arguments flang's
// lowering passes (its MIFOpConversion pass): scalars of intrinsic type by
// reference, and everything else - arrays, ERRMSG, team values - as flang
// descriptors (ISO_Fortran_binding's CFI_cdesc_t), an absent optional
// argument as a null pointer. A module written from PRIF's Fortran
// interfaces and compiled by flang would expect ERRMSG as an address and a
// trailing length instead (a character(*) dummy), so the entry points are
// written here, against what flang emits; the work is done in Go
// (runtime.go), as for gfortran's ABI (caf.c).
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "_cgo_export.h"
#include "caf.h"

// flang's ISO_FORTRAN_ENV values where they differ from gfortran's, which
// the Go side gives.
enum { GFORTRAN_STAT_STOPPED_IMAGE = 6000, GFORTRAN_STAT_FAILED_IMAGE = 6001 };
enum { FLANG_STAT_FAILED_IMAGE = 101, FLANG_STAT_STOPPED_IMAGE = 104 };
enum { FLANG_CURRENT_TEAM = -1, FLANG_INITIAL_TEAM = -2, FLANG_PARENT_TEAM = -3 };

// flang's type codes (CFI_type_*) that the collectives take.
enum {
	CFI_int8 = 7,
	CFI_int128 = 11,
	CFI_int_least16 = 13,
	CFI_int_least64 = 15,
	CFI_float = 27,
	CFI_double = 28,
	CFI_extended = 29,
	CFI_long_double = 30,
	CFI_float128 = 31,
	CFI_float_complex = 34,
	CFI_double_complex = 35,
	CFI_extended_complex = 36,
	CFI_long_double_complex = 37,
	CFI_float128_complex = 38,
	CFI_bool = 39,
	CFI_char = 40,
	CFI_struct = 42,
	CFI_char32 = 44,
};

// errmsg writes m into ERRMSG, blank-padded as Fortran assignment pads, or
// into ERRMSG_ALLOC: allocated to m's length (flang's allocatables are
// malloc's) when unallocated, else written over in its length. flang 22
// passes ERRMSG_ALLOC as a copy of the variable's descriptor, so neither
// reaches the variable; freeing its memory through the copy would leave
// the variable dangling, so it is never freed here.
static void errmsg(const char *m, cfi_desc *msg, cfi_desc *alloc) {
	size_t n = strlen(m);
	if ((!msg || !msg->base_addr) && alloc && !alloc->base_addr) {
		alloc->base_addr = malloc(n ? n : 1);
		alloc->elem_len = n;
	}
	cfi_desc *d = msg && msg->base_addr ? msg : alloc;
	if (!d || !d->base_addr) return;
	size_t k = n < d->elem_len ? n : d->elem_len;
	memcpy(d->base_addr, m, k);
	memset((char *)d->base_addr + k, ' ', d->elem_len - k);
}

// done reports a call's outcome: STAT and ERRMSG when the program asked for
// them, else an error ends every image.
static void done(int st, const char *m, const char *what, int *stat, cfi_desc *msg, cfi_desc *alloc) {
	if (st == GFORTRAN_STAT_STOPPED_IMAGE) st = FLANG_STAT_STOPPED_IMAGE;
	if (st == GFORTRAN_STAT_FAILED_IMAGE) st = FLANG_STAT_FAILED_IMAGE;
	if (stat) *stat = st;
	if (st == 0) return;
	if (!stat) gocaf_fatal(st, m, what);
	errmsg(m, msg, alloc);
}

static gocaf_shape shape(const cfi_desc *d) {
	gocaf_shape s = {.base = d->base_addr, .rank = d->rank, .elem = d->elem_len};
	for (int k = 0; k < s.rank; k++) {
		s.extent[k] = d->dim[k].extent;
		s.sm[k] = d->dim[k].sm;
	}
	return s;
}

// typeOf is the runtime's type code of a's elements (caf.h: gfortran's
// BT_*, and the 16-byte reals flang tells apart), and the character length
// of character types; 0 for a type no collective takes.
static int typeOf(const cfi_desc *a, size_t *charLen) {
	*charLen = 0;
	switch (a->type) {
	case CFI_char:
		*charLen = a->elem_len;
		return BT_CHARACTER;
	case CFI_char32:
		*charLen = a->elem_len / 4;
		return BT_CHARACTER;
	case CFI_float:
	case CFI_double:
		return BT_REAL;
	case CFI_extended:
	case CFI_long_double:
		return BT_REAL_X87;
	case CFI_float128:
		return BT_REAL_QUAD;
	case CFI_float_complex:
	case CFI_double_complex:
		return BT_COMPLEX;
	case CFI_extended_complex:
	case CFI_long_double_complex:
		return BT_COMPLEX_X87;
	case CFI_float128_complex:
		return BT_COMPLEX_QUAD;
	case CFI_bool:
		return BT_LOGICAL;
	case CFI_struct:
		return BT_DERIVED;
	}
	if (a->type >= CFI_int8 && a->type <= CFI_int128) return BT_INTEGER;
	if (a->type >= CFI_int_least16 && a->type <= CFI_int_least64) return BT_LOGICAL; // flang's LOGICAL(2..8)
	return 0;
}

// team is the runtime's handle of a team value (0: the current team, for an
// absent TEAM=). flang's team_type holds one 64-bit integer.
static uintptr_t team(const cfi_desc *t) {
	if (!t || !t->base_addr) return 0;
	int64_t h = *(const int64_t *)t->base_addr;
	return h > 0 ? (uintptr_t)h : (uintptr_t)-1; // -1: flang's never-assigned value, not a team
}

static void setTeam(cfi_desc *t, uintptr_t h) { *(int64_t *)t->base_addr = (int64_t)h; }

// Start and end. flang 22 ends an image through its own runtime (STOP,
// ERROR STOP and END PROGRAM call exit with the stop code), never through
// prif_stop or prif_error_stop: the runtime learns of the end from an
// exit handler, which sees the code but not the statement. Code 0 is
// normal termination (every image gets there, as after gfortran's STOP);
// any other code ends every image at once, as ERROR STOP does - STOP with
// a nonzero code too.
static void atExit(int status, void *arg) {
	(void)arg;
	if (status != 0) gocaf_abort(status);
	gocaf_finalize();
}

void _QMprifPprif_init(int *exit_code) {
	*exit_code = gocaf_init();
	if (*exit_code == 0) on_exit(atExit, NULL);
}

// Images.

void _QMprifPprif_this_image_no_coarray(cfi_desc *t, int *image) { *image = gocaf_this_image_in(team(t)); }

void _QMprifPprif_num_images(int *n) { *n = gocaf_num_images(); }

void _QMprifPprif_num_images_with_team(cfi_desc *t, int *n) { *n = gocaf_num_images_in(team(t)); }

void _QMprifPprif_num_images_with_team_number(int64_t *number, int *n) {
	char m[256];
	*n = gocaf_num_images_numbered(*number, m, sizeof m);
	if (*n < 0) gocaf_fatal(STAT_NOT_SUPPORTED, m, "NUM_IMAGES(TEAM_NUMBER=)");
}

// Image control.

void _QMprifPprif_sync_all(int *stat, cfi_desc *msg, cfi_desc *alloc) {
	char m[256];
	done(gocaf_sync_all(m, sizeof m), m, "SYNC ALL", stat, msg, alloc);
}

// SYNC IMAGES: images is a rank-1 integer array, absent for SYNC IMAGES (*).
void _QMprifPprif_sync_images(cfi_desc *images, int *stat, cfi_desc *msg, cfi_desc *alloc) {
	char m[256];
	int st;
	if (!images) {
		st = gocaf_sync_images(NULL, -1, m, sizeof m);
	} else {
		size_t n;
		bool copied;
		gocaf_shape s = shape(images);
		char *buf = gocaf_data(&s, &n, &copied);
		st = gocaf_sync_images((int *)buf, (int)(n / sizeof(int)), m, sizeof m);
		gocaf_restore(&s, buf, copied);
	}
	done(st, m, "SYNC IMAGES", stat, msg, alloc);
}

void _QMprifPprif_sync_memory(int *stat, cfi_desc *msg, cfi_desc *alloc) {
	(void)msg, (void)alloc;
	__sync_synchronize();
	if (stat) *stat = 0;
}

void _QMprifPprif_sync_team(cfi_desc *t, int *stat, cfi_desc *msg, cfi_desc *alloc) {
	char m[256];
	done(gocaf_sync_team(team(t), m, sizeof m), m, "SYNC TEAM", stat, msg, alloc);
}

// The collectives.

void _QMprifPprif_co_broadcast(cfi_desc *a, int *source, int *stat, cfi_desc *msg, cfi_desc *alloc) {
	size_t n;
	bool copied;
	gocaf_shape s = shape(a);
	char m[256], *buf = gocaf_data(&s, &n, &copied);
	int st = gocaf_broadcast(buf, n, a->elem_len, *source, m, sizeof m);
	gocaf_restore(&s, buf, copied);
	done(st, m, "CO_BROADCAST", stat, msg, alloc);
}

static void reduce(cfi_desc *a, int what, int *result, int *stat, cfi_desc *msg, cfi_desc *alloc, const char *name) {
	size_t n, charLen;
	bool copied;
	int typ = typeOf(a, &charLen);
	gocaf_shape s = shape(a);
	char m[256], *buf = gocaf_data(&s, &n, &copied);
	int st = gocaf_reduce(buf, n, what, typ, a->elem_len, charLen, result ? *result : 0, m, sizeof m);
	gocaf_restore(&s, buf, copied);
	done(st, m, name, stat, msg, alloc);
}

void _QMprifPprif_co_sum(cfi_desc *a, int *result, int *stat, cfi_desc *msg, cfi_desc *alloc) {
	reduce(a, 1, result, stat, msg, alloc, "CO_SUM");
}

void _QMprifPprif_co_min(cfi_desc *a, int *result, int *stat, cfi_desc *msg, cfi_desc *alloc) {
	reduce(a, 2, result, stat, msg, alloc, "CO_MIN");
}

void _QMprifPprif_co_max(cfi_desc *a, int *result, int *stat, cfi_desc *msg, cfi_desc *alloc) {
	reduce(a, 3, result, stat, msg, alloc, "CO_MAX");
}

void _QMprifPprif_co_min_character(cfi_desc *a, int *result, int *stat, cfi_desc *msg, cfi_desc *alloc) {
	reduce(a, 2, result, stat, msg, alloc, "CO_MIN");
}

void _QMprifPprif_co_max_character(cfi_desc *a, int *result, int *stat, cfi_desc *msg, cfi_desc *alloc) {
	reduce(a, 3, result, stat, msg, alloc, "CO_MAX");
}

// Teams.

void _QMprifPprif_form_team(int64_t *number, cfi_desc *t, int *new_index, int *stat, cfi_desc *msg,
			    cfi_desc *alloc) {
	char m[256];
	uintptr_t h = 0;
	int st = gocaf_form_team(*number, new_index ? *new_index : 0, &h, m, sizeof m);
	if (st == 0) setTeam(t, h);
	done(st, m, "FORM TEAM", stat, msg, alloc);
}

void _QMprifPprif_change_team(cfi_desc *t, int *stat, cfi_desc *msg, cfi_desc *alloc) {
	char m[256];
	done(gocaf_change_team(team(t), m, sizeof m), m, "CHANGE TEAM", stat, msg, alloc);
}

void _QMprifPprif_end_team(int *stat, cfi_desc *msg, cfi_desc *alloc) {
	char m[256];
	done(gocaf_end_team(m, sizeof m), m, "END TEAM", stat, msg, alloc);
}

void _QMprifPprif_team_number(cfi_desc *t, int64_t *number) { *number = gocaf_team_number(team(t)); }

void _QMprifPprif_get_team(int *level, cfi_desc *t) {
	int l = 2; // coarray.CurrentTeam
	if (level && *level == FLANG_INITIAL_TEAM) l = 0;
	if (level && *level == FLANG_PARENT_TEAM) l = 1;
	setTeam(t, gocaf_team_handle(l));
}
