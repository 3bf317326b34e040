// Arrays of either compiler's descriptors, as gocaf_shape: packed into one
// contiguous buffer when they are not contiguous, so that a collective on a
// section is still one collective.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "_cgo_export.h"
#include "caf.h"

size_t gocaf_count(const gocaf_shape *s) {
	size_t n = 1;
	for (int k = 0; k < s->rank; k++) n *= s->extent[k] > 0 ? (size_t)s->extent[k] : 0;
	return n;
}

static bool contiguous(const gocaf_shape *s) {
	ptrdiff_t want = (ptrdiff_t)s->elem;
	for (int k = 0; k < s->rank; k++) {
		if (s->extent[k] > 1 && s->sm[k] != want) return false;
		want *= s->extent[k] > 0 ? s->extent[k] : 0;
	}
	return true;
}

// walk copies the elements of s to buf (pack) or back (unpack), in array
// element order.
static void walk(const gocaf_shape *s, char *buf, bool pack) {
	size_t n = gocaf_count(s);
	ptrdiff_t idx[GFC_MAX_DIMENSIONS] = {0};
	for (size_t i = 0; i < n; i++) {
		ptrdiff_t off = 0;
		for (int k = 0; k < s->rank; k++) off += idx[k] * s->sm[k];
		if (pack) memcpy(buf + i * s->elem, s->base + off, s->elem);
		else memcpy(s->base + off, buf + i * s->elem, s->elem);
		for (int k = 0; k < s->rank; k++) {
			if (++idx[k] < s->extent[k]) break;
			idx[k] = 0;
		}
	}
}

char *gocaf_data(const gocaf_shape *s, size_t *nbytes, bool *copied) {
	*nbytes = gocaf_count(s) * s->elem;
	*copied = s->rank > 0 && !contiguous(s);
	if (!*copied) return s->base;
	char *buf = malloc(*nbytes ? *nbytes : 1);
	walk(s, buf, true);
	return buf;
}

void gocaf_restore(const gocaf_shape *s, char *buf, bool copied) {
	if (!copied) return;
	walk(s, buf, false);
	free(buf);
}

void gocaf_fatal(int stat, const char *msg, const char *what) {
	fprintf(stderr, "ERROR STOP: %s: %s (STAT %d)\n", what, msg, stat);
	fflush(stderr);
	gocaf_abort(stat);
}
