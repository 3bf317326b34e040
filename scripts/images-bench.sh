#!/usr/bin/env bash
# Issue 9's comparison, in rounds: collbench's images-per-node rows (T = np
# images on one process against one image on each of np processes, np 2
# unless GOCOLL_NP says otherwise), run GOCOLL_ROUNDS times (default 20),
# then, per row and size, the median, least and greatest of the ratio and of
# the ratio per native (collbench's two columns), and whether the median
# meets the aim: at most 1.2 at 8 B, below 1 at 64 KiB; and the native
# MPI_Allreduce of 8 B timed in the same runs, which tells the state.
#
# Why rounds: on these machines one run measures one of the machine's states
# (BENCHMARKS.md, "Two machine states"), and the T rows and the one-image
# rows flip between them independently, so one run's ratio can be 0.5 or 2
# for the same binary. The median over many short runs says what the code
# costs. Each run takes /tmp/gocoll-cpu.lock exclusively (the machine is
# shared); extra arguments go to collbench.
set -euo pipefail # a failed collbench run ends the script
cd "$(dirname "$0")/.."
. scripts/lib.sh
ensure_go
ensure_mpi
build_collbench
np=${GOCOLL_NP:-2}
rounds=${GOCOLL_ROUNDS:-20}
ops=gocoll.Tnp.ReduceAll,gocoll.Tnp.Broadcast,gocoll.Tnp.BroadcastM,gocoll.Tnp.ReduceAllM,gocoll.ReduceAll,gocoll.Broadcast
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT
for r in $(seq 1 "$rounds"); do
	# The ratio rows: "gocoll.T2.X/gocoll.Y  size  T  one  ratio  per-native".
	flock /tmp/gocoll-cpu.lock $(mpirun_cmd "$np") bin/collbench --ops "$ops" \
		--min-size 8 --max-size 64K --step 65528 --quiet "$@" |
		awk '$1 ~ /^gocoll\.T[0-9]+\..*\/gocoll\./ && NF == 6 { print $1, $2, $5, $6 }
			$1 == "gocoll.ReduceAll" && $2 == 8 { print "native.Allreduce", 8, $6, $6 }' >>"$raw"
done
echo "# $rounds rounds at np $np: median (least..greatest) of T images on one process over one image per process"
printf '%-40s %7s %22s %22s  %s\n' rows size ratio "per native" "aim (median)"
sort -k1,1 -k2,2n "$raw" | awk '
	function med(v, n,   i, j, t) {
		for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j-1] > v[j]; j--) { t = v[j]; v[j] = v[j-1]; v[j-1] = t }
		return n % 2 ? v[(n+1)/2] : (v[n/2] + v[n/2+1]) / 2
	}
	function flush(   a, b, m, aim) {
		if (n == 0) return
		if (row == "native.Allreduce") {
			m = med(ra, n)
			printf "# the same runs'"'"' native MPI_Allreduce of 8 B, µs: %.2f (%.2f..%.2f), which says the machine'"'"'s state\n", m, ra[1], ra[n]
			n = 0
			return
		}
		m = med(ra, n)
		aim = size <= 8 ? (m <= 1.2 ? "met (<= 1.2)" : "NOT met (> 1.2)") : (size >= 65536 ? (m < 1 ? "met (< 1)" : "NOT met (>= 1)") : "")
		a = sprintf("%.2f (%.2f..%.2f)", m, ra[1], ra[n])
		m = med(pn, n)
		b = sprintf("%.2f (%.2f..%.2f)", m, pn[1], pn[n])
		printf "%-40s %7d %22s %22s  %s\n", row, size, a, b, aim
		n = 0
	}
	$1 != row || $2 != size { flush(); row = $1; size = $2 }
	{ n++; ra[n] = $3; pn[n] = $4 }
	END { flush() }'
