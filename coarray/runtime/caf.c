// The _gfortran_caf_* entry points of gfortran's -fcoarray=lib ABI (GCC 12):
// descriptors in, STAT and ERRMSG out; the work is done in Go (runtime.go).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "_cgo_export.h"
#include "caf.h"

typedef void *caf_token_t;
typedef void *caf_team_t;

// done reports a call's outcome: STAT and ERRMSG when the program asked for
// them, else an error terminates every image, as the standard says of an
// error without STAT=.
static void done(int st, const char *m, const char *what, int *stat, char *errmsg, size_t errmsg_len) {
	if (stat) *stat = st;
	if (st == 0) return;
	if (stat) {
		if (errmsg && errmsg_len > 0) {
			size_t n = strlen(m);
			if (n > errmsg_len) n = errmsg_len;
			memcpy(errmsg, m, n);
			memset(errmsg + n, ' ', errmsg_len - n); // Fortran assignment pads
		}
		return;
	}
	gocaf_fatal(st, m, what);
}

static void unsupported(const char *what, int *stat) {
	char m[200];
	snprintf(m, sizeof m, "not supported by gocoll's coarray runtime: %s", what);
	done(STAT_NOT_SUPPORTED, m, what, stat, NULL, 0);
}

// span is the bytes from one element of d to the next along a stride of 1:
// the element size, except in pointers to components. gfortran 12's
// CO_BROADCAST of a derived type with allocatable components passes each
// component in a descriptor of its own whose span and offset it never
// sets (rank 1 from 1 with stride 1, over the component's contiguous
// memory); every descriptor it builds otherwise has offset = -sum(lbound_k
// * stride_k). So a span is believed only in a descriptor whose offset
// agrees; elsewhere the elements are elem_len apart.
static ptrdiff_t span(const gfc_desc *d) {
	ptrdiff_t elem = (ptrdiff_t)d->dtype.elem_len, off = 0;
	if (d->span <= 0 || d->span == elem) return elem;
	for (int k = 0; k < d->dtype.rank; k++) off -= d->dim[k].lbound * d->dim[k].stride;
	return (ptrdiff_t)d->offset == off ? d->span : elem;
}

// shape is d as the shims' common array: an element of d is at base +
// sum(i_k * stride_k) * span bytes.
static gocaf_shape shape(const gfc_desc *d) {
	gocaf_shape s = {.base = d->base_addr, .rank = d->dtype.rank, .elem = d->dtype.elem_len};
	ptrdiff_t sp = span(d);
	for (int k = 0; k < s.rank; k++) {
		s.extent[k] = d->dim[k].ubound - d->dim[k].lbound + 1;
		s.sm[k] = d->dim[k].stride * sp;
	}
	return s;
}

// Start and end.

void _gfortran_caf_init(int *argc, char ***argv) {
	(void)argc, (void)argv;
	if (gocaf_init() != 0) exit(1);
}

void _gfortran_caf_finalize(void) { gocaf_finalize(); }

int _gfortran_caf_this_image(int distance) {
	(void)distance;
	return gocaf_this_image();
}

int _gfortran_caf_num_images(int distance, int failed) {
	(void)distance;
	return failed > 0 ? 0 : gocaf_num_images(); // no image ever fails here
}

void _gfortran_caf_sync_all(int *stat, char *errmsg, size_t errmsg_len) {
	char m[256];
	done(gocaf_sync_all(m, sizeof m), m, "SYNC ALL", stat, errmsg, errmsg_len);
}

void _gfortran_caf_sync_memory(int *stat, char *errmsg, size_t errmsg_len) {
	(void)errmsg, (void)errmsg_len;
	__sync_synchronize();
	if (stat) *stat = 0;
}

// SYNC IMAGES: count -1 is SYNC IMAGES (*).
void _gfortran_caf_sync_images(int count, int images[], int *stat, char *errmsg, size_t errmsg_len) {
	char m[256];
	done(gocaf_sync_images(images, count, m, sizeof m), m, "SYNC IMAGES", stat, errmsg, errmsg_len);
}

// STOP ends this image normally once every image got there (finalize
// synchronizes); ERROR STOP ends the job at once.

void _gfortran_caf_stop_numeric(int code, bool quiet) {
	if (!quiet) fprintf(stderr, "STOP %d\n", code);
	gocaf_finalize();
	exit(code);
}

void _gfortran_caf_stop_str(const char *s, size_t len, bool quiet) {
	if (!quiet) fprintf(stderr, "STOP %.*s\n", (int)len, s);
	gocaf_finalize();
	exit(0);
}

void _gfortran_caf_error_stop_str(const char *s, size_t len, bool quiet) {
	if (!quiet) fprintf(stderr, "ERROR STOP %.*s\n", (int)len, s);
	fflush(stderr);
	gocaf_abort(1);
	exit(1);
}

void _gfortran_caf_error_stop(int code, bool quiet) {
	if (!quiet) fprintf(stderr, "ERROR STOP %d\n", code);
	fflush(stderr);
	gocaf_abort(code);
	exit(code);
}

void _gfortran_caf_fail_image(void) {
	fprintf(stderr, "FAIL IMAGE: not supported by gocoll's coarray runtime; ending the job\n");
	gocaf_abort(1);
	exit(1);
}

// The collectives.
//
// gfortran 12 passes a character variable given as ERRMSG= to a collective
// by value (a copy on the stack) rather than its address: the next integer
// argument then arrives in errmsg's place, and the message cannot reach the
// variable. No valid address is below 64 KiB (Linux's mmap_min_addr), so a
// smaller errmsg is that shifted argument: misplaced() recovers it and
// drops ERRMSG (STAT is still set).
static bool misplaced(char **errmsg, size_t *shifted) {
	if (!*errmsg || (uintptr_t)*errmsg >= 65536) return false;
	*shifted = (size_t)(uintptr_t)*errmsg;
	*errmsg = NULL;
	return true;
}

void _gfortran_caf_co_broadcast(gfc_desc *a, int source_image, int *stat, char *errmsg, size_t errmsg_len) {
	misplaced(&errmsg, &errmsg_len);
	if (a->dtype.type == BT_VOID) {
		// gfortran 12's CO_BROADCAST of a derived type with an allocatable
		// scalar component passes the component's coarray token too: an
		// address of this process, null outside coarrays, which no other
		// image can use. Every image skips it alike.
		if (stat) *stat = 0;
		return;
	}
	size_t n;
	bool copied;
	gocaf_shape s = shape(a);
	char m[256], *buf = gocaf_data(&s, &n, &copied);
	int st = gocaf_broadcast(buf, n, a->dtype.elem_len, source_image, m, sizeof m);
	gocaf_restore(&s, buf, copied);
	done(st, m, "CO_BROADCAST", stat, errmsg, errmsg_len);
}

static void reduce(gfc_desc *a, int what, size_t char_len, int result_image, int *stat, char *errmsg,
		   size_t errmsg_len, const char *name) {
	size_t n;
	bool copied;
	gocaf_shape s = shape(a);
	char m[256], *buf = gocaf_data(&s, &n, &copied);
	int st = gocaf_reduce(buf, n, what, a->dtype.type, a->dtype.elem_len, char_len, result_image, m, sizeof m);
	gocaf_restore(&s, buf, copied);
	done(st, m, name, stat, errmsg, errmsg_len);
}

void _gfortran_caf_co_sum(gfc_desc *a, int result_image, int *stat, char *errmsg, size_t errmsg_len) {
	misplaced(&errmsg, &errmsg_len);
	reduce(a, 1, 0, result_image, stat, errmsg, errmsg_len, "CO_SUM");
}

void _gfortran_caf_co_min(gfc_desc *a, int result_image, int *stat, char *errmsg, int a_len, size_t errmsg_len) {
	size_t len;
	if (misplaced(&errmsg, &len)) a_len = (int)len;
	reduce(a, 2, a_len, result_image, stat, errmsg, errmsg_len, "CO_MIN");
}

void _gfortran_caf_co_max(gfc_desc *a, int result_image, int *stat, char *errmsg, int a_len, size_t errmsg_len) {
	size_t len;
	if (misplaced(&errmsg, &len)) a_len = (int)len;
	reduce(a, 3, a_len, result_image, stat, errmsg, errmsg_len, "CO_MAX");
}

void _gfortran_caf_co_reduce(gfc_desc *a, void *(*opr)(void *, void *), int opr_flags, int result_image, int *stat,
			     char *errmsg, int a_len, size_t errmsg_len) {
	size_t len;
	if (misplaced(&errmsg, &len)) a_len = (int)len;
	gocaf_cur.fn = (void *)opr;
	gocaf_cur.flags = opr_flags;
	reduce(a, 4, a_len, result_image, stat, errmsg, errmsg_len, "CO_REDUCE");
}

// Teams.

void _gfortran_caf_form_team(int team_number, caf_team_t *team, int new_index) {
	char m[256];
	done(gocaf_form_team(team_number, new_index, (uintptr_t *)team, m, sizeof m), m, "FORM TEAM", NULL, NULL, 0);
}

void _gfortran_caf_change_team(caf_team_t *team, int coselector) {
	(void)coselector;
	char m[256];
	done(gocaf_change_team((uintptr_t)*team, m, sizeof m), m, "CHANGE TEAM", NULL, NULL, 0);
}

void _gfortran_caf_end_team(caf_team_t *team) {
	(void)team;
	char m[256];
	done(gocaf_end_team(m, sizeof m), m, "END TEAM", NULL, NULL, 0);
}

void _gfortran_caf_sync_team(caf_team_t *team, int unused) {
	(void)unused;
	char m[256];
	done(gocaf_sync_team(team ? (uintptr_t)*team : 0, m, sizeof m), m, "SYNC TEAM", NULL, NULL, 0);
}

int _gfortran_caf_team_number(caf_team_t team) { return gocaf_team_number((uintptr_t)team); }

caf_team_t _gfortran_caf_get_team(int32_t *level) { return (caf_team_t)gocaf_get_team(level ? *level : 2); }

// Coarrays. Each registered coarray is memory of this process that the
// other images reach through the runtime's dynamic window (coindexed.go):
// its token is a gocaf_token, whose handle names the coarray on the Go
// side. Coindexed reads and writes of sections go through it: the local
// side packed into one buffer (converted to the other side's type when the
// types differ), the remote side as a section of the coarray's memory.

typedef enum {
	CAF_REGTYPE_COARRAY_STATIC,
	CAF_REGTYPE_COARRAY_ALLOC,
	CAF_REGTYPE_LOCK_STATIC,
	CAF_REGTYPE_LOCK_ALLOC,
	CAF_REGTYPE_CRITICAL,
	CAF_REGTYPE_EVENT_STATIC,
	CAF_REGTYPE_EVENT_ALLOC,
	CAF_REGTYPE_COARRAY_ALLOC_REGISTER_ONLY,
	CAF_REGTYPE_COARRAY_ALLOC_ALLOCATE_ONLY
} caf_register_t;

typedef struct {
	void *mem;
	size_t size;
	uintptr_t handle; // 0: memory of this image only (a component's)
	bool attached;    // a component's memory, attached to the window alone
	gfc_desc *desc;   // an allocatable coarray's descriptor (its bounds are every image's)
	bool heap;        // mem is the heap's (gocaf_alloc)
} gocaf_token;

void _gfortran_caf_register(size_t size, caf_register_t type, caf_token_t *token, gfc_desc *desc, int *stat,
			    char *errmsg, size_t errmsg_len) {
	if (gocaf_init() != 0) exit(1); // SAVE coarrays register before _gfortran_caf_init
	// gfortran gives locks and events one byte each: the runtime's are
	// 32-bit words, in slots of GOCAF_SLOT bytes (atomics.go's eventSlot)
	if (type >= CAF_REGTYPE_LOCK_STATIC && type <= CAF_REGTYPE_EVENT_ALLOC) size *= GOCAF_SLOT;
	gocaf_token *t = calloc(1, sizeof *t);
	// a coarray's part comes from the heap (coindexed.go) when it has room; a
	// component's, which gfortran may free itself, from malloc
	if (t && type != CAF_REGTYPE_COARRAY_ALLOC_REGISTER_ONLY && type != CAF_REGTYPE_COARRAY_ALLOC_ALLOCATE_ONLY)
		t->heap = (t->mem = gocaf_alloc(size)) != NULL;
	if (t && type != CAF_REGTYPE_COARRAY_ALLOC_REGISTER_ONLY && !t->mem) t->mem = calloc(1, size ? size : 1);
	if (!t || (type != CAF_REGTYPE_COARRAY_ALLOC_REGISTER_ONLY && !t->mem)) {
		free(t);
		done(STAT_NOT_SUPPORTED, "out of memory", "ALLOCATE of a coarray", stat, errmsg, errmsg_len);
		return;
	}
	t->size = size;
	*token = t;
	if (desc) desc->base_addr = t->mem;
	if (stat) *stat = 0;
	// A coarray of its own is registered by every image of the current
	// team (which also synchronizes them, as ALLOCATE must); the memory of
	// a component is this image's alone.
	char m[256];
	if (type == CAF_REGTYPE_COARRAY_ALLOC) t->desc = desc;
	if (type == CAF_REGTYPE_COARRAY_ALLOC_REGISTER_ONLY) return;
	if (type == CAF_REGTYPE_COARRAY_ALLOC_ALLOCATE_ONLY) { // reached by address (caf_get_by_ref)
		t->attached = true;
		done(gocaf_attach(t->mem, size, m, sizeof m), m, "ALLOCATE of a coarray's component", stat, errmsg, errmsg_len);
		return;
	}
	uintptr_t h = 0;
	done(gocaf_register(t->mem, size, &h, m, sizeof m), m, "ALLOCATE of a coarray", stat, errmsg, errmsg_len);
	t->handle = h;
}

typedef enum { CAF_DEREGTYPE_COARRAY_DEREGISTER, CAF_DEREGTYPE_COARRAY_DEALLOCATE_ONLY } caf_deregister_t;

void _gfortran_caf_deregister(caf_token_t *token, caf_deregister_t type, int *stat, char *errmsg, size_t errmsg_len) {
	gocaf_token *t = *token;
	if (stat) *stat = 0;
	// DEALLOCATE of a coarray synchronizes; of a component, not
	if (type == CAF_DEREGTYPE_COARRAY_DEREGISTER && (!t || !t->attached)) _gfortran_caf_sync_all(stat, errmsg, errmsg_len);
	if (!t) return;
	if (t->handle) gocaf_deregister(t->handle);
	if (t->attached && t->mem) gocaf_detach(t->mem, t->size);
	if (t->heap) gocaf_free(t->mem, t->size);
	else free(t->mem);
	t->heap = false;
	t->mem = NULL;
	t->attached = false;
	if (type == CAF_DEREGTYPE_COARRAY_DEALLOCATE_ONLY) return; // the token stays for the next ALLOCATE
	free(t);
	*token = NULL;
}

// remote is the section of a coarray that descriptor d describes on another
// image, offset bytes into the coarray: gfortran counts its strides in
// elements of d's size, from the coarray's memory (its base address means
// nothing there).
static gocaf_shape remote(const gfc_desc *d, size_t offset) {
	gocaf_shape s = {.base = (char *)(uintptr_t)offset, .rank = d->dtype.rank, .elem = d->dtype.elem_len};
	for (int k = 0; k < s.rank; k++) {
		s.extent[k] = d->dim[k].ubound - d->dim[k].lbound + 1;
		s.sm[k] = d->dim[k].stride * (ptrdiff_t)s.elem;
	}
	return s;
}

// convert writes n elements of type dt, kind dk (bytes dl) at dst from
// those of type st, kind sk (bytes sl) at src: the same type and kind
// copies (characters padded with blanks or cut), numbers of other kinds
// convert as Fortran's intrinsic assignment does. False for a pair it does
// not know.
static bool convert(char *dst, int dt, int dk, size_t dl, const char *src, int st, int sk, size_t sl, size_t n) {
	if (dt == st && dk == sk && dl == sl) {
		memmove(dst, src, n * dl);
		return true;
	}
	if (dt == BT_CHARACTER && st == BT_CHARACTER && dk == 1 && sk == 1) {
		for (size_t i = 0; i < n; i++) {
			memmove(dst + i * dl, src + i * sl, dl < sl ? dl : sl);
			if (dl > sl) memset(dst + i * dl + sl, ' ', dl - sl);
		}
		return true;
	}
	bool num = (dt == BT_INTEGER || dt == BT_REAL || dt == BT_COMPLEX) &&
		   (st == BT_INTEGER || st == BT_REAL || st == BT_COMPLEX);
	if (!num || dk > 8 || sk > 8) return false;
	for (size_t i = 0; i < n; i++) {
		const char *a = src + i * sl;
		double re = 0, im = 0;
		switch (st * 100 + sk) {
		case BT_INTEGER * 100 + 1: re = *(const int8_t *)a; break;
		case BT_INTEGER * 100 + 2: re = *(const int16_t *)a; break;
		case BT_INTEGER * 100 + 4: re = *(const int32_t *)a; break;
		case BT_INTEGER * 100 + 8: re = (double)*(const int64_t *)a; break;
		case BT_REAL * 100 + 4: re = *(const float *)a; break;
		case BT_REAL * 100 + 8: re = *(const double *)a; break;
		case BT_COMPLEX * 100 + 4: re = ((const float *)a)[0], im = ((const float *)a)[1]; break;
		case BT_COMPLEX * 100 + 8: re = ((const double *)a)[0], im = ((const double *)a)[1]; break;
		default: return false;
		}
		char *b = dst + i * dl;
		switch (dt * 100 + dk) {
		case BT_INTEGER * 100 + 1: *(int8_t *)b = (int8_t)re; break;
		case BT_INTEGER * 100 + 2: *(int16_t *)b = (int16_t)re; break;
		case BT_INTEGER * 100 + 4: *(int32_t *)b = (int32_t)re; break;
		case BT_INTEGER * 100 + 8:
			// an integer(8) from integer(8) copied above; from another kind exactly
			*(int64_t *)b = st == BT_INTEGER && sk == 8 ? *(const int64_t *)a : (int64_t)re;
			break;
		case BT_REAL * 100 + 4: *(float *)b = (float)re; break;
		case BT_REAL * 100 + 8: *(double *)b = re; break;
		case BT_COMPLEX * 100 + 4: ((float *)b)[0] = (float)re, ((float *)b)[1] = (float)im; break;
		case BT_COMPLEX * 100 + 8: ((double *)b)[0] = re, ((double *)b)[1] = im; break;
		default: return false;
		}
	}
	return true;
}

static uintptr_t handleOf(caf_token_t token) { return token ? ((gocaf_token *)token)->handle : 0; }

// fetch reads the remote section of src (offset into the coarray of token,
// on image) into a new buffer of its elements; NULL on an error, which m
// says (*st its STAT).
static char *fetch(caf_token_t token, size_t offset, int image, gfc_desc *src, int *st, char *m, size_t ml) {
	gocaf_shape r = remote(src, offset);
	size_t n = gocaf_count(&r) * r.elem;
	char *buf = malloc(n ? n : 1);
	*st = gocaf_get(handleOf(token), image, &r, buf, n, m, ml);
	if (*st != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

// store writes n elements of the given type at buf (one element for every
// element of dest when n is 1: a scalar assigned to a section) into the
// remote section of dest, converted to dest's type.
static int store(caf_token_t token, size_t offset, int image, gfc_desc *dest, int dk, const char *buf, int stype,
		 int sk, size_t slen, size_t n, char *m, size_t ml) {
	gocaf_shape r = remote(dest, offset);
	size_t want = gocaf_count(&r), dl = r.elem;
	if (n != 1 && n != want) {
		snprintf(m, ml, "coindexed assignment of %zu elements to a section of %zu", n, want);
		return STAT_NOT_SUPPORTED;
	}
	if (stype == dest->dtype.type && sk == dk && slen == dl && n == want) // as it is: no copy
		return gocaf_put(handleOf(token), image, &r, (char *)buf, want * dl, m, ml);
	char *out = malloc(want * dl ? want * dl : 1);
	bool ok = true;
	for (size_t i = 0; ok && i < want; i += n) // a scalar goes to every element
		ok = convert(out + i * dl, dest->dtype.type, dk, dl, buf, stype, sk, slen, n);
	int st;
	if (!ok) {
		snprintf(m, ml, "coindexed assignment between types %d (kind %d) and %d (kind %d)", stype, sk, dest->dtype.type, dk);
		st = STAT_NOT_SUPPORTED;
	} else {
		st = gocaf_put(handleOf(token), image, &r, out, want * dl, m, ml);
	}
	free(out);
	return st;
}

void _gfortran_caf_get(caf_token_t token, size_t offset, int image, gfc_desc *src, void *src_vector, gfc_desc *dest,
		       int src_kind, int dst_kind, bool may_require_tmp, int *stat) {
	(void)may_require_tmp;
	char m[256];
	int st = 0;
	if (src_vector) {
		unsupported("coindexed read with a vector subscript", stat);
		return;
	}
	size_t n, sl = src->dtype.elem_len, dl = dest->dtype.elem_len;
	gocaf_shape r = remote(src, offset);
	if (src->dtype.type == dest->dtype.type && src_kind == dst_kind && sl == dl) {
		bool copied;
		gocaf_shape d = shape(dest);
		char *out = gocaf_data(&d, &n, &copied);
		if (gocaf_count(&r) * dl == n) { // as it is: straight into the destination
			st = gocaf_get(handleOf(token), image, &r, out, n, m, sizeof m);
			gocaf_restore(&d, out, copied);
			done(st, m, "coindexed read (x[i])", stat, NULL, 0);
			return;
		}
		if (copied) free(out);
	}
	char *buf = fetch(token, offset, image, src, &st, m, sizeof m);
	if (buf) {
		bool copied;
		gocaf_shape d = shape(dest);
		char *out = gocaf_data(&d, &n, &copied);
		size_t got = gocaf_count(&r), want = dl ? n / dl : 0;
		bool ok = got == 1 || got == want;
		for (size_t i = 0; ok && i < want; i += got) // a scalar goes to every element
			ok = convert(out + i * dl, dest->dtype.type, dst_kind, dl, buf, src->dtype.type, src_kind, sl, got);
		if (!ok) {
			snprintf(m, sizeof m, "coindexed read of %zu elements of type %d (kind %d) into %zu of type %d (kind %d)",
				 got, src->dtype.type, src_kind, want, dest->dtype.type, dst_kind);
			st = STAT_NOT_SUPPORTED;
		}
		gocaf_restore(&d, out, copied);
		free(buf);
	}
	done(st, m, "coindexed read (x[i])", stat, NULL, 0);
}

void _gfortran_caf_send(caf_token_t token, size_t offset, int image, gfc_desc *dest, void *dst_vector, gfc_desc *src,
			int dst_kind, int src_kind, bool may_require_tmp, int *stat) {
	(void)may_require_tmp;
	char m[256];
	if (dst_vector) {
		unsupported("coindexed write with a vector subscript", stat);
		return;
	}
	size_t n;
	bool copied;
	gocaf_shape s = shape(src);
	char *buf = gocaf_data(&s, &n, &copied);
	size_t sl = src->dtype.elem_len;
	int st = store(token, offset, image, dest, dst_kind, buf, src->dtype.type, src_kind, sl,
		       src->dtype.rank == 0 ? 1 : n / (sl ? sl : 1), m, sizeof m);
	if (copied) free(buf); // the source is not written: nothing to unpack
	done(st, m, "coindexed write (x[i] = ...)", stat, NULL, 0);
}

void _gfortran_caf_sendget(caf_token_t dst_token, size_t dst_offset, int dst_image, gfc_desc *dest, void *dst_vector,
			   caf_token_t src_token, size_t src_offset, int src_image, gfc_desc *src, void *src_vector,
			   int dst_kind, int src_kind, bool may_require_tmp, int *stat) {
	(void)may_require_tmp;
	char m[256];
	int st = 0;
	if (dst_vector || src_vector) {
		unsupported("coindexed copy with a vector subscript", stat);
		return;
	}
	char *buf = fetch(src_token, src_offset, src_image, src, &st, m, sizeof m);
	if (buf) {
		size_t sl = src->dtype.elem_len;
		gocaf_shape r = remote(src, src_offset);
		size_t n = gocaf_count(&r);
		st = store(dst_token, dst_offset, dst_image, dest, dst_kind, buf, src->dtype.type, src_kind, sl,
			   src->dtype.rank == 0 ? 1 : n, m, sizeof m);
		free(buf);
	}
	done(st, m, "coindexed copy (x[i] = y[j])", stat, NULL, 0);
}

// The rest of the ABI: links, and says at run time that it is not there.

// The by-reference calls: gfortran's x[i]%a... where a is an allocatable
// (or pointer) component, described by a chain of references that this
// runtime follows through the other image's memory by address (the
// component's descriptor or pointer read there first), and turns into the
// runs of bytes the reference names (coindexed.go's gocaf_xfer).

typedef enum { CAF_REF_COMPONENT, CAF_REF_ARRAY, CAF_REF_STATIC_ARRAY } caf_ref_type_t;
typedef enum {
	CAF_ARR_REF_NONE,
	CAF_ARR_REF_VECTOR,
	CAF_ARR_REF_FULL,
	CAF_ARR_REF_RANGE,
	CAF_ARR_REF_SINGLE,
	CAF_ARR_REF_OPEN_END,
	CAF_ARR_REF_OPEN_START
} caf_array_ref_t;

typedef struct caf_reference_t {
	struct caf_reference_t *next;
	int type;
	size_t item_size;
	union {
		struct {
			ptrdiff_t offset, caf_token_offset;
		} c;
		struct {
			unsigned char mode[GFC_MAX_DIMENSIONS];
			int static_array_type;
			union {
				struct {
					ptrdiff_t start, end, stride;
				} s;
				struct {
					void *vector;
					size_t nvec;
					int kind;
				} v;
			} dim[GFC_MAX_DIMENSIONS];
		} a;
	} u;
} caf_reference_t;

// xfer moves n runs between buf and the addresses in image's process (this
// image: a copy).
static int xfer(int image, uintptr_t *addr, size_t *len, int n, char *buf, size_t total, bool put, char *m, size_t ml) {
	if (image != gocaf_this_image()) return gocaf_xfer(image, addr, len, n, buf, total, put, m, ml);
	for (int i = 0; i < n; buf += len[i], i++) {
		if (put) memcpy((void *)addr[i], buf, len[i]);
		else memcpy(buf, (void *)addr[i], len[i]);
	}
	return 0;
}

// A walk of a reference chain: the runs it names on image, and the size of
// their items.
typedef struct {
	int image;
	int n, cap;
	uintptr_t *addr;
	size_t *len, items, item;
	char *m;
	size_t ml;
} refwalk;

static void run(refwalk *w, uintptr_t a, size_t len) {
	w->items++;
	if (w->n > 0 && w->addr[w->n - 1] + w->len[w->n - 1] == a) {
		w->len[w->n - 1] += len;
		return;
	}
	if (w->n == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 16;
		w->addr = realloc(w->addr, w->cap * sizeof *w->addr);
		w->len = realloc(w->len, w->cap * sizeof *w->len);
	}
	w->addr[w->n] = a, w->len[w->n] = len, w->n++;
}

static int readAt(refwalk *w, uintptr_t a, void *buf, size_t n) {
	size_t l = n;
	return xfer(w->image, &a, &l, 1, buf, n, false, w->m, w->ml);
}

static int walkErr(refwalk *w, int st, const char *what) {
	snprintf(w->m, w->ml, "%s", what);
	return st;
}

// walk follows the references r from address a; each element it reaches
// at the chain's end is a run. An array reference reads the array's
// descriptor there, but the first of an allocatable coarray, whose
// descriptor is this process's (own): the bounds are alike on every image,
// the data at a.
static int walk(refwalk *w, caf_reference_t *r, uintptr_t a, const gfc_desc *own) {
	for (; r; r = r->next, own = NULL) {
		w->item = r->item_size;
		switch (r->type) {
		case CAF_REF_COMPONENT:
			a += r->u.c.offset;
			if (r->u.c.caf_token_offset == 0 || (r->next && r->next->type == CAF_REF_ARRAY)) break;
			{ // an allocatable or pointer scalar: the component holds its address
				uintptr_t p = 0;
				int st = readAt(w, a, &p, sizeof p);
				if (st) return st;
				if (!p) return walkErr(w, STAT_NOT_SUPPORTED, "the component is not allocated on that image");
				a = p;
			}
			break;
		case CAF_REF_ARRAY: { // a at the array's descriptor there
			gfc_desc *d = malloc(sizeof(gfc_desc) + GFC_MAX_DIMENSIONS * sizeof(gfc_dim));
			int st = 0;
			if (own) {
				memcpy(d, own, sizeof(gfc_desc) + own->dtype.rank * sizeof(gfc_dim));
				d->base_addr = (void *)a;
			} else {
				st = readAt(w, a, d, sizeof(gfc_desc));
				if (!st && d->dtype.rank > 0) st = readAt(w, a + sizeof(gfc_desc), d->dim, d->dtype.rank * sizeof(gfc_dim));
			}
			if (!st && !d->base_addr) st = walkErr(w, STAT_NOT_SUPPORTED, "the component is not allocated on that image");
			ptrdiff_t lo[GFC_MAX_DIMENSIONS], hi[GFC_MAX_DIMENSIONS], step[GFC_MAX_DIMENSIONS], idx[GFC_MAX_DIMENSIONS];
			int rank = 0;
			for (; !st && rank < d->dtype.rank && r->u.a.mode[rank] != CAF_ARR_REF_NONE; rank++) {
				gfc_dim *g = &d->dim[rank];
				ptrdiff_t s = r->u.a.dim[rank].s.start, e = r->u.a.dim[rank].s.end;
				step[rank] = r->u.a.dim[rank].s.stride ? r->u.a.dim[rank].s.stride : 1;
				switch (r->u.a.mode[rank]) {
				case CAF_ARR_REF_FULL: lo[rank] = g->lbound, hi[rank] = g->ubound, step[rank] = 1; break;
				case CAF_ARR_REF_RANGE: lo[rank] = s, hi[rank] = e; break;
				case CAF_ARR_REF_SINGLE: lo[rank] = hi[rank] = s, step[rank] = 1; break;
				case CAF_ARR_REF_OPEN_END: lo[rank] = s, hi[rank] = g->ubound; break;
				case CAF_ARR_REF_OPEN_START: lo[rank] = g->lbound, hi[rank] = e; break;
				default: st = walkErr(w, STAT_NOT_SUPPORTED, "a vector subscript in a coindexed reference");
				}
				bool in = step[rank] > 0 ? lo[rank] >= g->lbound && hi[rank] <= g->ubound
							 : hi[rank] >= g->lbound && lo[rank] <= g->ubound;
				if (!st && (step[rank] > 0 ? lo[rank] <= hi[rank] : lo[rank] >= hi[rank]) && !in)
					st = walkErr(w, 13, "a coindexed reference outside the array"); // coarray.StatBounds
				idx[rank] = lo[rank];
			}
			for (bool more = !st; more && !st;) {
				ptrdiff_t off = 0;
				bool empty = false;
				for (int k = 0; k < rank; k++) {
					off += (idx[k] - d->dim[k].lbound) * d->dim[k].stride;
					empty |= step[k] > 0 ? lo[k] > hi[k] : lo[k] < hi[k];
				}
				if (empty) break;
				uintptr_t e = (uintptr_t)d->base_addr + off * (ptrdiff_t)r->item_size;
				if (r->next) st = walk(w, r->next, e, NULL);
				else run(w, e, r->item_size);
				more = false;
				for (int k = 0; k < rank; k++) {
					idx[k] += step[k];
					if (step[k] > 0 ? idx[k] <= hi[k] : idx[k] >= hi[k]) {
						more = true;
						break;
					}
					idx[k] = lo[k];
				}
			}
			free(d);
			return st;
		}
		case CAF_REF_STATIC_ARRAY: { // one dimension, counted from 0
			if (r->u.a.mode[0] == CAF_ARR_REF_NONE) break;
			if (r->u.a.mode[1] != CAF_ARR_REF_NONE || r->u.a.mode[0] == CAF_ARR_REF_VECTOR)
				return walkErr(w, STAT_NOT_SUPPORTED, "a coindexed reference to a section of a fixed-size array of more than one dimension in an allocatable component");
			ptrdiff_t s = r->u.a.dim[0].s.start, e = r->u.a.dim[0].s.end, k = r->u.a.dim[0].s.stride ? r->u.a.dim[0].s.stride : 1;
			if (r->u.a.mode[0] == CAF_ARR_REF_FULL) s = 0;
			if (r->u.a.mode[0] == CAF_ARR_REF_SINGLE) e = s;
			for (ptrdiff_t i = s; k > 0 ? i <= e : i >= e; i += k) {
				uintptr_t el = a + i * r->item_size;
				int st = r->next ? walk(w, r->next, el, NULL) : (run(w, el, r->item_size), 0);
				if (st) return st;
			}
			return 0;
		}
		default: return walkErr(w, STAT_NOT_SUPPORTED, "an unknown coindexed reference");
		}
	}
	run(w, a, w->item);
	return 0;
}

// start walks refs from coarray token's memory on image.
static int start(refwalk *w, caf_token_t token, int image, caf_reference_t *refs, char *m, size_t ml) {
	*w = (refwalk){.image = image ? image : gocaf_this_image(), .m = m, .ml = ml};
	uintptr_t base = 0;
	int st = gocaf_base(handleOf(token), w->image, &base, m, ml);
	return st ? st : walk(w, refs, base, token ? ((gocaf_token *)token)->desc : NULL);
}

static void endWalk(refwalk *w) {
	free(w->addr);
	free(w->len);
}

// fetchRefs walks refs from coarray token on image and reads what they name
// into *buf (w->items elements of w->item bytes; the caller frees it and
// ends the walk).
static int fetchRefs(refwalk *w, caf_token_t token, int image, caf_reference_t *refs, char **buf, char *m, size_t ml) {
	*buf = NULL;
	int st = start(w, token, image, refs, m, ml);
	if (st) return st;
	*buf = malloc(w->items * w->item ? w->items * w->item : 1);
	return xfer(w->image, w->addr, w->len, w->n, *buf, w->items * w->item, false, m, ml);
}

void _gfortran_caf_get_by_ref(caf_token_t token, int image, gfc_desc *dst, caf_reference_t *refs, int dst_kind,
			      int src_kind, bool may_require_tmp, bool dst_reallocatable, int *stat, int src_type) {
	(void)may_require_tmp;
	char m[256], *buf;
	refwalk w;
	int st = fetchRefs(&w, token, image, refs, &buf, m, sizeof m);
	size_t dl = dst->dtype.elem_len, want = 1;
	for (int k = 0; k < dst->dtype.rank; k++) want *= dst->dim[k].ubound - dst->dim[k].lbound + 1;
	if (!st && (!dst->base_addr || (dst->dtype.rank > 0 && want != w.items))) {
		if (!dst_reallocatable && dst->base_addr) {
			snprintf(m, sizeof m, "coindexed read of %zu elements into an array of %zu", w.items, want);
			st = STAT_NOT_SUPPORTED;
		} else { // (re)allocate the destination, rank 1 from 1
			free(dst->base_addr);
			dst->base_addr = malloc(w.items * dl ? w.items * dl : 1);
			dst->span = (ptrdiff_t)dl;
			if (dst->dtype.rank > 0) {
				for (int k = 0; k < dst->dtype.rank; k++) dst->dim[k] = (gfc_dim){.stride = 1, .lbound = 1, .ubound = 1};
				dst->dim[0].ubound = w.items;
				dst->offset = (size_t)-1;
			}
		}
	}
	if (!st) {
		size_t n;
		bool copied;
		gocaf_shape d = shape(dst);
		char *out = gocaf_data(&d, &n, &copied);
		size_t got = w.items, to = dl ? n / dl : 0;
		bool ok = got == 1 || got == to;
		for (size_t i = 0; ok && i < to; i += got)
			ok = convert(out + i * dl, dst->dtype.type, dst_kind, dl, buf, src_type, src_kind, w.item, got);
		if (!ok) {
			snprintf(m, sizeof m, "coindexed read of %zu elements of type %d (kind %d) into %zu of type %d (kind %d)",
				 got, src_type, src_kind, to, dst->dtype.type, dst_kind);
			st = STAT_NOT_SUPPORTED;
		}
		gocaf_restore(&d, out, copied);
	}
	free(buf);
	endWalk(&w);
	done(st, m, "coindexed read (x[i]%c)", stat, NULL, 0);
}

// putRefs writes n elements (one for all when n is 1) of the given type at
// src into what refs name on image, converted to dst_type.
static int putRefs(caf_token_t token, int image, caf_reference_t *refs, const char *src, int src_type, int src_kind,
		   size_t sl, size_t n, int dst_type, int dst_kind, char *m, size_t ml) {
	refwalk w;
	int st = start(&w, token, image, refs, m, ml);
	if (!st && n != 1 && n != w.items) {
		snprintf(m, ml, "coindexed assignment of %zu elements to %zu", n, w.items);
		st = STAT_NOT_SUPPORTED;
	}
	if (!st) {
		char *out = malloc(w.items * w.item ? w.items * w.item : 1);
		bool ok = true;
		for (size_t i = 0; ok && i < w.items; i += n)
			ok = convert(out + i * w.item, dst_type, dst_kind, w.item, src, src_type, src_kind, sl, n);
		if (ok) {
			st = xfer(w.image, w.addr, w.len, w.n, out, w.items * w.item, true, m, ml);
		} else {
			snprintf(m, ml, "coindexed assignment between types %d (kind %d) and %d (kind %d)", src_type, src_kind,
				 dst_type, dst_kind);
			st = STAT_NOT_SUPPORTED;
		}
		free(out);
	}
	endWalk(&w);
	return st;
}

void _gfortran_caf_send_by_ref(caf_token_t token, int image, gfc_desc *src, caf_reference_t *refs, int dst_kind,
			       int src_kind, bool may_require_tmp, bool dst_reallocatable, int *stat, int dst_type) {
	(void)may_require_tmp, (void)dst_reallocatable;
	char m[256];
	size_t n, sl = src->dtype.elem_len;
	bool copied;
	gocaf_shape s = shape(src);
	char *buf = gocaf_data(&s, &n, &copied);
	int st = putRefs(token, image, refs, buf, src->dtype.type, src_kind, sl, src->dtype.rank == 0 ? 1 : n / (sl ? sl : 1),
			 dst_type, dst_kind, m, sizeof m);
	if (copied) free(buf);
	done(st, m, "coindexed write (x[i]%c = ...)", stat, NULL, 0);
}

void _gfortran_caf_sendget_by_ref(caf_token_t dst_token, int dst_image, caf_reference_t *dst_refs,
				  caf_token_t src_token, int src_image, caf_reference_t *src_refs, int dst_kind,
				  int src_kind, bool may_require_tmp, int *dst_stat, int *src_stat, int dst_type,
				  int src_type) {
	(void)may_require_tmp;
	char m[256], *buf;
	refwalk w;
	int st = fetchRefs(&w, src_token, src_image, src_refs, &buf, m, sizeof m);
	if (src_stat) *src_stat = st;
	if (!st)
		st = putRefs(dst_token, dst_image, dst_refs, buf, src_type, src_kind, w.item, w.items, dst_type, dst_kind, m,
			     sizeof m);
	free(buf);
	endWalk(&w);
	done(st, m, "coindexed copy (x[i]%c = y[j]%c)", dst_stat, NULL, 0);
}

// Atomics, locks and events (atomics.go). gfortran's atomic_int_kind and
// atomic_logical_kind are 4.

enum { ATOMIC_DEFINE, ATOMIC_ADD, ATOMIC_AND, ATOMIC_OR, ATOMIC_XOR, ATOMIC_REF, ATOMIC_CAS };

static void atomic(int op, caf_token_t t, size_t o, int image, void *value, int32_t cmp, void *old, int *stat,
		   int kind, const char *what) {
	char m[256];
	if (kind != 4) {
		unsupported(what, stat); // (gfortran has no other atomic kind)
		return;
	}
	int32_t v = value ? *(int32_t *)value : 0;
	done(gocaf_atomic(handleOf(t), image, o, op, v, cmp, (int32_t *)old, m, sizeof m), m, what, stat, NULL, 0);
}

void _gfortran_caf_atomic_define(caf_token_t t, size_t o, int i, void *v, int *stat, int ty, int k) {
	(void)ty;
	atomic(ATOMIC_DEFINE, t, o, i, v, 0, NULL, stat, k, "ATOMIC_DEFINE");
}

void _gfortran_caf_atomic_ref(caf_token_t t, size_t o, int i, void *v, int *stat, int ty, int k) {
	(void)ty;
	atomic(ATOMIC_REF, t, o, i, NULL, 0, v, stat, k, "ATOMIC_REF");
}

void _gfortran_caf_atomic_cas(caf_token_t t, size_t o, int i, void *old, void *cmp, void *nw, int *stat, int ty, int k) {
	(void)ty;
	atomic(ATOMIC_CAS, t, o, i, nw, *(int32_t *)cmp, old, stat, k, "ATOMIC_CAS");
}

// gfortran's operations: GFC_CAF_ATOMIC_ADD = 1, AND, OR, XOR (the same
// numbers as ATOMIC_ADD..ATOMIC_XOR).
void _gfortran_caf_atomic_op(int op, caf_token_t t, size_t o, int i, void *v, void *old, int *stat, int ty, int k) {
	(void)ty;
	atomic(op, t, o, i, v, 0, old, stat, k, "atomic operation");
}

// gfortran's STAT_LOCKED, STAT_LOCKED_OTHER_IMAGE and STAT_UNLOCKED (which
// gfortran 12 makes 0), by what gocaf_lock and gocaf_unlock return, negated.
static const int lockStat[] = {0, 1, 2, 0};

static void locked(int rc, const char *m, const char *what, int *stat, char *errmsg, size_t errmsg_len) {
	if (rc >= 0) {
		done(rc, m, what, stat, errmsg, errmsg_len);
		return;
	}
	if (!stat) gocaf_fatal(lockStat[-rc], m, what);
	*stat = lockStat[-rc];
	if (errmsg && errmsg_len > 0) {
		size_t n = strlen(m) < errmsg_len ? strlen(m) : errmsg_len;
		memcpy(errmsg, m, n);
		memset(errmsg + n, ' ', errmsg_len - n);
	}
}

void _gfortran_caf_lock(caf_token_t t, size_t index, int image, int *acquired, int *stat, char *errmsg,
			size_t errmsg_len) {
	char m[256];
	int rc = gocaf_lock(handleOf(t), image, index, acquired != NULL, acquired, m, sizeof m);
	locked(rc, m, "LOCK", stat, errmsg, errmsg_len);
}

void _gfortran_caf_unlock(caf_token_t t, size_t index, int image, int *stat, char *errmsg, size_t errmsg_len) {
	char m[256];
	locked(gocaf_unlock(handleOf(t), image, index, m, sizeof m), m, "UNLOCK", stat, errmsg, errmsg_len);
}

void _gfortran_caf_event_post(caf_token_t t, size_t index, int image, int *stat, char *errmsg, size_t errmsg_len) {
	char m[256];
	done(gocaf_event_post(handleOf(t), image, index, m, sizeof m), m, "EVENT POST", stat, errmsg, errmsg_len);
}

void _gfortran_caf_event_wait(caf_token_t t, size_t index, int until, int *stat, char *errmsg, size_t errmsg_len) {
	char m[256];
	done(gocaf_event_wait(handleOf(t), index, until, m, sizeof m), m, "EVENT WAIT", stat, errmsg, errmsg_len);
}

void _gfortran_caf_event_query(caf_token_t t, size_t index, int image, int *count, int *stat) {
	char m[256];
	done(gocaf_event_query(handleOf(t), image, index, count, m, sizeof m), m, "EVENT_QUERY", stat, NULL, 0);
}

// STOPPED_IMAGES, FAILED_IMAGES: rank-1 integer arrays of kind *kind (4 if
// absent), allocated here and zero-based, as gfortran expects of an
// intrinsic's result (it rebases the bounds). No image is ever known to
// have failed: that list is empty.
static void list(gfc_desc *d, int *kind, const int *v, int n) {
	size_t k = kind ? (size_t)*kind : 4;
	d->base_addr = malloc(n > 0 ? n * k : 1);
	d->offset = 0;
	d->dtype.elem_len = k;
	d->dtype.rank = 1;
	d->dtype.type = BT_INTEGER;
	d->span = k;
	d->dim[0].stride = 1;
	d->dim[0].lbound = 0;
	d->dim[0].ubound = n - 1;
	for (int i = 0; i < n; i++) {
		int64_t x = v[i];
		switch (k) {
		case 1: ((int8_t *)d->base_addr)[i] = (int8_t)x; break;
		case 2: ((int16_t *)d->base_addr)[i] = (int16_t)x; break;
		case 8: ((int64_t *)d->base_addr)[i] = x; break;
		default: ((int32_t *)d->base_addr)[i] = (int32_t)x;
		}
	}
}

//
// gfortran 12 refuses their TEAM= argument and passes NULL (or, to
// IMAGE_STATUS, -1) in its place: the lists are of the current team.

void _gfortran_caf_failed_images(gfc_desc *d, caf_team_t *team, int *kind) {
	(void)team;
	list(d, kind, NULL, 0);
}

void _gfortran_caf_stopped_images(gfc_desc *d, caf_team_t *team, int *kind) {
	(void)team;
	int n = gocaf_stopped_images(NULL, 0);
	int *v = malloc((n > 0 ? n : 1) * sizeof(int));
	int m = gocaf_stopped_images(v, n); // another image may have stopped since
	list(d, kind, v, m < n ? m : n);
	free(v);
}

int _gfortran_caf_image_status(int image, caf_team_t *team) {
	(void)team;
	return gocaf_image_status(image);
}

// ALLOCATED(x[i]%a): whether the walk reaches the component there.
int _gfortran_caf_is_present(caf_token_t token, int image, caf_reference_t *refs) {
	char m[256];
	refwalk w;
	int st = start(&w, token, image, refs, m, sizeof m);
	endWalk(&w);
	return st == 0;
}

void _gfortran_caf_random_init(bool repeatable, bool image_distinct) {
	(void)repeatable, (void)image_distinct;
	unsupported("RANDOM_INIT", NULL);
}
