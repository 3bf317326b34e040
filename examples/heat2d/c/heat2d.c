/* heat2d.c: the C + MPI twin of examples/heat2d (see its main.go).
 *
 * Same problem, same decomposition, same arithmetic in the same order, so
 * the result line is the Go program's, bit for bit, the time aside. Halos go
 * with MPI_Isend/MPI_Irecv; the convergence test is a non-blocking
 * MPI_Iallreduce (MPI_MAX), waited for after the next sweep as in Go.
 *
 *   mpicc -O2 -ffp-contract=off -o heat2d_c heat2d.c
 *   mpirun -np 4 ./heat2d_c -n 1024 -steps 2000 -k 10 -grid 2x2
 *
 * -ffp-contract=off keeps the compiler from fusing a multiply and an add
 * into one FMA, which rounds once instead of twice (Go does not fuse on
 * amd64 by default either).
 */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOP_VALUE 1.0
#define LEFT_VALUE 0.5

typedef struct {
	int n, steps, k, py, px;
	double tol;
} params;

/* span: the part of n rows (or columns) that block b of p holds. */
static void span(int n, int p, int b, int *start, int *size) {
	int q = n / p, r = n % p;
	*start = b * q + (b < r ? b : r);
	*size = q + (b < r);
}

/* dims: the most square process grid, py >= px. */
static void dims(int np, int *py, int *px) {
	*px = 1;
	for (int d = 1; d * d <= np; d++)
		if (np % d == 0) *px = d;
	*py = np / *px;
}

static void sweep(double *v, const double *u, int nx, int ny) {
	int s = nx + 2;
	for (int i = 1; i <= ny; i++) {
		double *out = v + i * s + 1;
		const double *n = u + (i - 1) * s + 1, *so = u + (i + 1) * s + 1, *w = u + i * s, *e = u + i * s + 2;
		for (int j = 0; j < nx; j++) out[j] = 0.25 * (n[j] + so[j] + w[j] + e[j]);
	}
}

static double sweep_residual(double *v, const double *u, int nx, int ny) {
	int s = nx + 2;
	double res = 0.0;
	for (int i = 1; i <= ny; i++) {
		double *out = v + i * s + 1;
		const double *c = u + i * s + 1;
		const double *n = u + (i - 1) * s + 1, *so = u + (i + 1) * s + 1, *w = u + i * s, *e = u + i * s + 2;
		for (int j = 0; j < nx; j++) {
			double x = 0.25 * (n[j] + so[j] + w[j] + e[j]);
			out[j] = x;
			double d = fabs(x - c[j]);
			if (d > res) res = d;
		}
	}
	return res;
}

/* Directions of travel, used as tags: a message going north is received
 * from the south neighbour with the tag NORTH. */
enum { NORTH, SOUTH, WEST, EAST };

typedef struct {
	int nb[4];          /* neighbour rank in each direction, or MPI_PROC_NULL */
	double *send[4], *recv[4];
	int len[4];
} halos;

/* exchange fills the halos of u from the four neighbours. */
static void exchange(halos *h, double *u, int nx, int ny) {
	int s = nx + 2;
	MPI_Request rq[8];
	int nr = 0;
	if (h->nb[NORTH] != MPI_PROC_NULL) memcpy(h->send[NORTH], u + s + 1, nx * sizeof(double));
	if (h->nb[SOUTH] != MPI_PROC_NULL) memcpy(h->send[SOUTH], u + ny * s + 1, nx * sizeof(double));
	if (h->nb[WEST] != MPI_PROC_NULL)
		for (int i = 0; i < ny; i++) h->send[WEST][i] = u[(i + 1) * s + 1];
	if (h->nb[EAST] != MPI_PROC_NULL)
		for (int i = 0; i < ny; i++) h->send[EAST][i] = u[(i + 1) * s + nx];
	static const int opposite[4] = {SOUTH, NORTH, EAST, WEST};
	for (int d = 0; d < 4; d++) {
		if (h->nb[d] == MPI_PROC_NULL) continue;
		/* from the neighbour in direction d comes what travels the other way */
		MPI_Irecv(h->recv[d], h->len[d], MPI_DOUBLE, h->nb[d], opposite[d], MPI_COMM_WORLD, &rq[nr++]);
		MPI_Isend(h->send[d], h->len[d], MPI_DOUBLE, h->nb[d], d, MPI_COMM_WORLD, &rq[nr++]);
	}
	MPI_Waitall(nr, rq, MPI_STATUSES_IGNORE);
	if (h->nb[NORTH] != MPI_PROC_NULL) memcpy(u + 1, h->recv[NORTH], nx * sizeof(double));
	if (h->nb[SOUTH] != MPI_PROC_NULL) memcpy(u + (ny + 1) * s + 1, h->recv[SOUTH], nx * sizeof(double));
	if (h->nb[WEST] != MPI_PROC_NULL)
		for (int i = 0; i < ny; i++) u[(i + 1) * s] = h->recv[WEST][i];
	if (h->nb[EAST] != MPI_PROC_NULL)
		for (int i = 0; i < ny; i++) u[(i + 1) * s + nx + 1] = h->recv[EAST][i];
}

static int parse(int argc, char **argv, params *p) {
	char grid[64] = "";
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		while (*a == '-') a++;
		const char *val = strchr(a, '=');
		size_t nlen = val ? (size_t)(val - a) : strlen(a);
		if (val) val++;
		else if (i + 1 < argc) val = argv[++i];
		else return -1;
		if (nlen == 1 && !strncmp(a, "n", 1)) p->n = atoi(val);
		else if (nlen == 5 && !strncmp(a, "steps", 5)) p->steps = atoi(val);
		else if (nlen == 1 && !strncmp(a, "k", 1)) p->k = atoi(val);
		else if (nlen == 3 && !strncmp(a, "tol", 3)) p->tol = atof(val);
		else if (nlen == 4 && !strncmp(a, "grid", 4)) snprintf(grid, sizeof grid, "%s", val);
		else return -1;
	}
	if (grid[0] && (sscanf(grid, "%dx%d", &p->py, &p->px) != 2 || p->py < 1 || p->px < 1)) return -1;
	return 0;
}

int main(int argc, char **argv) {
	MPI_Init(&argc, &argv);
	int rank, np;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	params p = {512, 1000, 10, 0, 0, 0.0};
	if (parse(argc, argv, &p) != 0) {
		if (rank == 0) fprintf(stderr, "usage: heat2d_c [-n N] [-steps S] [-k K] [-tol T] [-grid PYxPX]\n");
		MPI_Finalize();
		return 2;
	}
	if (p.py == 0) dims(np, &p.py, &p.px);
	if (p.n < 1 || p.steps < 0 || p.k < 1 || p.py * p.px != np || p.py > p.n || p.px > p.n) {
		if (rank == 0) fprintf(stderr, "heat2d_c: bad parameters or grid %dx%d for %d processes\n", p.py, p.px, np);
		MPI_Finalize();
		return 2;
	}
	int prow = rank / p.px, pcol = rank % p.px;
	int r0, ny, c0, nx;
	span(p.n, p.py, prow, &r0, &ny);
	span(p.n, p.px, pcol, &c0, &nx);
	int s = nx + 2;
	double *u = calloc((size_t)(ny + 2) * s, sizeof(double));
	double *v = calloc((size_t)(ny + 2) * s, sizeof(double));
	double *arrays[2] = {u, v};
	for (int a = 0; a < 2; a++) {
		if (pcol == 0)
			for (int i = 0; i < ny + 2; i++) arrays[a][i * s] = LEFT_VALUE;
		if (prow == 0)
			for (int j = 0; j < s; j++) arrays[a][j] = TOP_VALUE;
	}
	halos h;
	h.nb[NORTH] = prow > 0 ? rank - p.px : MPI_PROC_NULL;
	h.nb[SOUTH] = prow < p.py - 1 ? rank + p.px : MPI_PROC_NULL;
	h.nb[WEST] = pcol > 0 ? rank - 1 : MPI_PROC_NULL;
	h.nb[EAST] = pcol < p.px - 1 ? rank + 1 : MPI_PROC_NULL;
	for (int d = 0; d < 4; d++) {
		h.len[d] = d < WEST ? nx : ny;
		h.send[d] = malloc(h.len[d] * sizeof(double));
		h.recv[d] = malloc(h.len[d] * sizeof(double));
	}

	int steps = 0, res_step = 0, pending_step = 0;
	double residual = 0.0, local = 0.0, global = 0.0;
	MPI_Request pending = MPI_REQUEST_NULL;
	MPI_Barrier(MPI_COMM_WORLD);
	double t0 = MPI_Wtime();
	while (steps < p.steps) {
		steps++;
		exchange(&h, u, nx, ny);
		int test = steps % p.k == 0;
		double r = 0.0;
		if (test) r = sweep_residual(v, u, nx, ny);
		else sweep(v, u, nx, ny);
		double *t = u;
		u = v;
		v = t;
		if (pending_step != 0) {
			MPI_Wait(&pending, MPI_STATUS_IGNORE);
			residual = global;
			res_step = pending_step;
			pending_step = 0;
			if (residual < p.tol) break;
		}
		if (test) {
			local = r;
			MPI_Iallreduce(&local, &global, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD, &pending);
			pending_step = steps;
		}
	}
	if (pending_step != 0) {
		MPI_Wait(&pending, MPI_STATUS_IGNORE);
		residual = global;
		res_step = pending_step;
	}
	MPI_Barrier(MPI_COMM_WORLD);
	double seconds = MPI_Wtime() - t0;

	uint64_t sum = 0, total = 0;
	for (int i = 1; i <= ny; i++)
		for (int j = 1; j <= nx; j++) {
			uint64_t pos = (uint64_t)(r0 + i) * (uint64_t)(p.n + 2) + (uint64_t)(c0 + j);
			uint64_t bits;
			memcpy(&bits, &u[i * s + j], sizeof bits);
			sum += bits * (2 * pos + 1);
		}
	MPI_Allreduce(&sum, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0) {
		printf("heat2d c: n=%d grid=%dx%d steps=%d k=%d tol=%g np=%d\n", p.n, p.py, p.px, p.steps, p.k, p.tol, np);
		printf("steps=%d residual=%.17g residual_step=%d checksum=0x%016llx time=%.6f\n", steps, residual, res_step,
		       (unsigned long long)total, seconds);
	}
	for (int d = 0; d < 4; d++) {
		free(h.send[d]);
		free(h.recv[d]);
	}
	free(u);
	free(v);
	MPI_Finalize();
	return 0;
}
