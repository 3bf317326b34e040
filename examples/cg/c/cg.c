/* cg.c: the C + MPI twin of examples/cg (see its main.go).
 *
 * Same problem, same decomposition (a band of grid rows per process), same
 * operations in the same order; dot products are plain loops summed with
 * MPI_Allreduce, halo rows go with MPI_Isend/MPI_Irecv. The results agree
 * with the Go program's to the tolerance its documentation derives, not bit
 * for bit: the sums are rounded in other orders.
 *
 *   mpicc -O2 -ffp-contract=off -o cg_c cg.c -lm
 *   mpirun -np 2 ./cg_c -n 512 -rtol 1e-8
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void span(int n, int p, int b, int *start, int *size) {
	int q = n / p, r = n % p;
	*start = b * q + (b < r ? b : r);
	*size = q + (b < r);
}

static double dot(const double *x, const double *y, long len) {
	double s = 0.0;
	for (long i = 0; i < len; i++) s += x[i] * y[i];
	return s;
}

static double sum(double v) {
	double g;
	MPI_Allreduce(&v, &g, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	return g;
}

/* y += a x */
static void axpy(double *y, double a, const double *x, long len) {
	for (long i = 0; i < len; i++) y[i] += a * x[i];
}

/* y = x + b y */
static void xpby(double *y, const double *x, double b, long len) {
	for (long i = 0; i < len; i++) y[i] = x[i] + b * y[i];
}

/* q = A p on the owned rows; p has w = n+2 values a row and halo rows. */
static void stencil(double *q, const double *p, int n, int ny) {
	int w = n + 2;
	for (int i = 1; i <= ny; i++) {
		double *out = q + (long)(i - 1) * w + 1;
		const double *c = p + (long)i * w + 1, *no = c - w, *so = c + w, *we = c - 1, *ea = c + 1;
		for (int j = 0; j < n; j++) out[j] = 4 * c[j] - no[j] - so[j] - we[j] - ea[j];
	}
}

/* apply_a fills p's halo rows from the neighbours, then sets q = A p. */
static void apply_a(double *q, double *p, int n, int ny, int below, int above) {
	int w = n + 2;
	MPI_Request rq[4];
	int nr = 0;
	if (below != MPI_PROC_NULL) {
		MPI_Irecv(p, w, MPI_DOUBLE, below, 1, MPI_COMM_WORLD, &rq[nr++]);
		MPI_Isend(p + w, w, MPI_DOUBLE, below, 0, MPI_COMM_WORLD, &rq[nr++]);
	}
	if (above != MPI_PROC_NULL) {
		MPI_Irecv(p + (long)(ny + 1) * w, w, MPI_DOUBLE, above, 0, MPI_COMM_WORLD, &rq[nr++]);
		MPI_Isend(p + (long)ny * w, w, MPI_DOUBLE, above, 1, MPI_COMM_WORLD, &rq[nr++]);
	}
	MPI_Waitall(nr, rq, MPI_STATUSES_IGNORE);
	stencil(q, p, n, ny);
}

static int parse(int argc, char **argv, int *n, int *iters, double *rtol) {
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		while (*a == '-') a++;
		const char *val = strchr(a, '=');
		size_t nlen = val ? (size_t)(val - a) : strlen(a);
		if (val) val++;
		else if (i + 1 < argc) val = argv[++i];
		else return -1;
		if (nlen == 1 && !strncmp(a, "n", 1)) *n = atoi(val);
		else if (nlen == 5 && !strncmp(a, "iters", 5)) *iters = atoi(val);
		else if (nlen == 4 && !strncmp(a, "rtol", 4)) *rtol = atof(val);
		else return -1;
	}
	return 0;
}

int main(int argc, char **argv) {
	MPI_Init(&argc, &argv);
	int rank, np;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	int n = 256, max_iter = 100000;
	double rtol = 1e-8;
	if (parse(argc, argv, &n, &max_iter, &rtol) != 0 || n < 1 || max_iter < 0 || !(rtol >= 0) || np > n) {
		if (rank == 0) fprintf(stderr, "usage: cg_c [-n N] [-iters I] [-rtol R], N >= processes\n");
		MPI_Finalize();
		return 2;
	}
	int r0, ny;
	span(n, np, rank, &r0, &ny);
	int below = rank > 0 ? rank - 1 : MPI_PROC_NULL, above = rank < np - 1 ? rank + 1 : MPI_PROC_NULL;
	int w = n + 2;
	long len = (long)ny * w;
	double *x = calloc(len, sizeof(double)), *r = calloc(len, sizeof(double)), *q = calloc(len, sizeof(double));
	double *p = calloc((long)(ny + 2) * w, sizeof(double)), *own = p + w;

	double h2 = 1 / ((double)(n + 1) * (double)(n + 1));
	for (int i = 0; i < ny; i++)
		for (int j = 1; j <= n; j++) r[(long)i * w + j] = h2;
	memcpy(own, r, len * sizeof(double));

	MPI_Barrier(MPI_COMM_WORLD);
	double t0 = MPI_Wtime();
	double rr = sum(dot(r, r, len));
	double bnorm = sqrt(rr);
	int iters = 0;
	while (iters < max_iter && sqrt(rr) > rtol * bnorm) {
		iters++;
		apply_a(q, p, n, ny, below, above);
		double pq = sum(dot(own, q, len));
		double alpha = rr / pq;
		axpy(x, alpha, own, len);
		axpy(r, -alpha, q, len);
		double rr_new = sum(dot(r, r, len));
		double beta = rr_new / rr;
		rr = rr_new;
		xpby(own, r, beta, len);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	double seconds = MPI_Wtime() - t0;

	memcpy(own, x, len * sizeof(double));
	apply_a(q, p, n, ny, below, above);
	for (int i = 0; i < ny; i++)
		for (int j = 1; j <= n; j++) r[(long)i * w + j] = h2 - q[(long)i * w + j];
	double trr = sum(dot(r, r, len)), xx = sum(dot(x, x, len));
	if (rank == 0) {
		printf("cg c: n=%d rtol=%g np=%d\n", n, rtol, np);
		printf("iterations=%d relres=%.6e xnorm=%.17g time=%.6f\n", iters, sqrt(trr) / bnorm, sqrt(xx), seconds);
	}
	free(x);
	free(r);
	free(q);
	free(p);
	MPI_Finalize();
	return 0;
}
