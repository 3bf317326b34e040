/* Declarations shared by the C shims of gocoll's coarray runtime: the parts
   of gfortran's -fcoarray=lib ABI (GCC 12's libcaf.h and libgfortran.h) and
   of flang's descriptors that the runtime reads, the arrays both shims hand
   to Go, and the C helpers Go calls. */
#ifndef GOCAF_H
#define GOCAF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define GFC_MAX_DIMENSIONS 15

#define STAT_NOT_SUPPORTED 10 // coarray.StatNotSupported
#define GOCAF_SLOT 8          // the bytes of a lock or event element (atomics.go's eventSlot)

/* gfortran's basic types (BT_*) as they appear in a descriptor's dtype. */
enum { BT_INTEGER = 1, BT_LOGICAL = 2, BT_REAL = 3, BT_COMPLEX = 4, BT_DERIVED = 5, BT_CHARACTER = 6, BT_VOID = 10 };

/* CO_REDUCE's operator flags (GFC_CAF_*). */
enum { CAF_BYREF = 1, CAF_HIDDENLEN = 2, CAF_ARG_VALUE = 4, CAF_ARG_DESC = 8 };

typedef struct {
	size_t elem_len;
	int version;
	signed char rank;
	signed char type;
	signed short attribute;
} gfc_dtype;

typedef struct {
	ptrdiff_t stride, lbound, ubound;
} gfc_dim;

typedef struct {
	void *base_addr;
	size_t offset;
	gfc_dtype dtype;
	ptrdiff_t span;
	gfc_dim dim[];
} gfc_desc;

/* Type codes beyond gfortran's, for flang, whose descriptors tell a 16-byte
   x87 extended real (kind 10) from binary128 (kind 16); gfortran's BT_REAL
   and BT_COMPLEX of 16 and 32 bytes leave it to GOCOLL_CAF_REAL10. */
enum { BT_REAL_X87 = 16, BT_REAL_QUAD, BT_COMPLEX_X87, BT_COMPLEX_QUAD };

/* flang's descriptor (its ISO_Fortran_binding.h CFI_cdesc_t): extents and
   byte strides (sm) per dimension. */
typedef struct {
	ptrdiff_t lower_bound, extent, sm;
} cfi_dim;

typedef struct {
	void *base_addr;
	size_t elem_len;
	int version;
	unsigned char rank;
	signed char type;
	signed char attribute;
	unsigned char extra;
	cfi_dim dim[];
} cfi_desc;

/* An array as both shims hand it over: elements of elem bytes, with an
   extent and a byte stride per dimension (first dimension fastest). */
typedef struct {
	char *base;
	int rank;
	size_t elem;
	ptrdiff_t extent[GFC_MAX_DIMENSIONS], sm[GFC_MAX_DIMENSIONS];
} gocaf_shape;

/* gocaf_count is the number of elements of s. */
size_t gocaf_count(const gocaf_shape *s);

/* gocaf_data is the array's elements, contiguous: its own memory, or a
   packed copy (*copied) that gocaf_restore unpacks and frees. */
char *gocaf_data(const gocaf_shape *s, size_t *nbytes, bool *copied);
void gocaf_restore(const gocaf_shape *s, char *buf, bool copied);

/* gocaf_fatal ends every image after an error that no STAT= receives, as
   the standard says of such an error. */
void gocaf_fatal(int stat, const char *msg, const char *what);

/* The kernels of kinds Go has no arithmetic for (integer(16), real(10),
   real(16), complex(10), complex(16)); op is one of: */
enum { K_SUM = 1, K_MIN = 2, K_MAX = 3 };
enum { T_INT128 = 1, T_FLOAT80, T_FLOAT128, T_COMPLEX80, T_COMPLEX128Q };
void gocaf_kernel(int kernel, void *dst, const void *a, const void *b, size_t nbytes);

/* The CO_REDUCE operator of the call in progress, and its application to
   every element of a and b into dst (dst may be a). Returns 0, or -1 when
   the operator's type cannot be called (see caf.c). */
typedef struct {
	void *fn;
	int flags;
	int type;
	size_t elem_len;
	size_t char_len;
	bool real10; /* 16-byte reals are x87 extended, not binary128 */
} gocaf_op;
extern gocaf_op gocaf_cur;
void gocaf_apply(void *dst, const void *a, const void *b, size_t nbytes);

#endif
