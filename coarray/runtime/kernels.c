// Arithmetic on the kinds Go has none for, and calls of Fortran CO_REDUCE
// operators: C knows each kind's calling convention.
#include <stdlib.h>
#include <string.h>

#include "caf.h"

typedef _Complex float __attribute__((mode(TC))) complex128q;

// The engine's buffers are aligned for 8 bytes, not for 16 as SSE code on
// __int128 and __float128 wants: elements go through aligned locals.
#define LOOP(T, EXPR)                                                 \
	do {                                                          \
		for (size_t i = 0; i < nbytes; i += sizeof(T)) {      \
			T u, v, r;                                    \
			memcpy(&u, (const char *)a + i, sizeof(T));   \
			memcpy(&v, (const char *)b + i, sizeof(T));   \
			r = (EXPR);                                   \
			memcpy((char *)dst + i, &r, sizeof(T));       \
		}                                                     \
	} while (0)

#define ORDERED(T)                                           \
	switch (op) {                                        \
	case K_SUM: LOOP(T, u + v); break;                   \
	case K_MIN: LOOP(T, v < u ? v : u); break;           \
	case K_MAX: LOOP(T, v > u ? v : u); break;           \
	}

void gocaf_kernel(int kernel, void *dst, const void *a, const void *b, size_t nbytes) {
	int op = kernel & 0xff;
	switch (kernel >> 8) {
	case T_INT128: ORDERED(__int128); break;
	case T_FLOAT80: ORDERED(long double); break;
	case T_FLOAT128: ORDERED(__float128); break;
	case T_COMPLEX80: LOOP(_Complex long double, u + v); break;
	case T_COMPLEX128Q: LOOP(complex128q, u + v); break;
	}
}

gocaf_op gocaf_cur;

// CALL applies the operator to element i, by reference or by value, with a
// result of type T returned in registers as the C ABI says for T.
// (operands pass through aligned locals, as in LOOP).
#define CALL(T)                                                         \
	do {                                                            \
		T (*fv)(T, T) = gocaf_cur.fn;                           \
		T (*fr)(const T *, const T *) = gocaf_cur.fn;           \
		bool byval = gocaf_cur.flags & CAF_ARG_VALUE;           \
		for (size_t i = 0; i < n; i++) {                        \
			T u, v, r;                                      \
			memcpy(&u, (const char *)a + i * len, len);     \
			memcpy(&v, (const char *)b + i * len, len);     \
			r = byval ? fv(u, v) : fr(&u, &v);              \
			memcpy((char *)dst + i * len, &r, len);         \
		}                                                       \
	} while (0)

void gocaf_apply(void *dst, const void *a, const void *b, size_t nbytes) {
	size_t len = gocaf_cur.elem_len, n = nbytes / len;
	switch (gocaf_cur.type) {
	case BT_CHARACTER: {
		// character function results come by reference, with the
		// length of the result and of each argument passed hidden.
		void (*f)(char *, size_t, const char *, const char *, size_t, size_t) = gocaf_cur.fn;
		char *tmp = malloc(3 * len);
		for (size_t i = 0; i < n; i++) {
			size_t cl = gocaf_cur.char_len;
			memcpy(tmp + len, (const char *)a + i * len, len);
			memcpy(tmp + 2 * len, (const char *)b + i * len, len);
			f(tmp, cl, tmp + len, tmp + 2 * len, cl, cl);
			memcpy((char *)dst + i * len, tmp, len);
		}
		free(tmp);
		return;
	}
	case BT_DERIVED: {
		// A derived type of more than 16 bytes is returned in memory:
		// the caller passes its address first (the System V ABI's
		// MEMORY class), which is what this call does.
		void (*f)(void *, const void *, const void *) = gocaf_cur.fn;
		size_t al = (len + 15) & ~(size_t)15; // malloc aligns for 16
		char *tmp = malloc(3 * al);
		for (size_t i = 0; i < n; i++) {
			memcpy(tmp + al, (const char *)a + i * len, len);
			memcpy(tmp + 2 * al, (const char *)b + i * len, len);
			f(tmp, tmp + al, tmp + 2 * al);
			memcpy((char *)dst + i * len, tmp, len);
		}
		free(tmp);
		return;
	}
	case BT_REAL:
		switch (len) {
		case 4: CALL(float); return;
		case 8: CALL(double); return;
		case 16:
			if (gocaf_cur.real10) CALL(long double);
			else CALL(__float128);
			return;
		}
		break;
	case BT_COMPLEX:
		switch (len) {
		case 8: CALL(_Complex float); return;
		case 16: CALL(_Complex double); return;
		case 32:
			if (gocaf_cur.real10) CALL(_Complex long double);
			else CALL(complex128q);
			return;
		}
		break;
	default: // integer and logical
		switch (len) {
		case 1: CALL(int8_t); return;
		case 2: CALL(int16_t); return;
		case 4: CALL(int32_t); return;
		case 8: CALL(int64_t); return;
		case 16: CALL(__int128); return;
		}
	}
}
