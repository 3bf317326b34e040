/* The timing both MPI baselines share, as the Fortran benchmarks time
   (timing.inc): best is the least mean time per operation, in microseconds,
   over 5 batches of about 0.2 s, where batch(op, n, iters) is the seconds
   rank 0 measured for iters operations op on n doubles, shared with every
   rank. */
static double best(double (*batch)(int op, int n, long iters), int op, int n) {
	long iters = 1;
	for (;;) {
		double t = batch(op, n, iters);
		if (t > 0.2 || iters >= 1000000) break;
		iters *= 4;
	}
	double b = 1e30;
	for (int rep = 0; rep < 5; rep++) {
		double t = batch(op, n, iters) / iters * 1e6;
		if (t < b) b = t;
	}
	return b;
}
