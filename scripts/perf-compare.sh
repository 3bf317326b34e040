#!/usr/bin/env bash
# Tells a regression from noise: collbench built at two commits, run in
# alternated rounds, compared row by row.
#
#   scripts/perf-compare.sh [--fortran] BASE [HEAD] [collbench flags...]
#
# BASE and HEAD are commits (anything git rev-parse takes); without HEAD the
# work tree as it is, uncommitted changes included. Each commit is exported
# (git archive) into a temporary directory, removed at exit, and built there;
# the binaries, each run's CSV file and table go to out/perf-compare/. The
# flags after them go to every collbench run: narrow the table with --ops,
# --max-size and the like (not --csv: the script writes one per run).
#
#   GOCOLL_ROUNDS  rounds (default 6): each runs both builds, base first in
#                  odd rounds and head first in even ones, so that a drift of
#                  the machine, or a cost of running second, falls on both
#                  alike; an even count balances the two orders. On
#                  identical builds five rounds (drawn from six) flagged two
#                  lines on average, six none or one with a "?" (below).
#   GOCOLL_NP      ranks (default 2)
#   GOCOLL_COMPARE_FORTRAN=1, or --fortran: also CO_SUM of one double
#                  (coarray/fortran/bench/bench.f90) on gocoll's gfortran
#                  runtime built at each commit, in the same rounds.
#
# Every run takes /tmp/gocoll-cpu.lock exclusively (the machine is shared),
# one run at a time, so other benchmarks wait between runs, not during one.
# A run of the full table takes about 50 s with the lock free, so the
# default 6 rounds take 11 minutes; with other jobs queueing on the lock,
# 20 to 30.
#
# It prints, per gocoll.* row and size (cmd/perfcompare does the
# arithmetic), the median over the rounds of new/old (head's Go average over
# base's in the same round) and of each build's Go/C (against the native
# collective timed beside it), each as median (least..greatest); rooted rows
# get a line "op:root" of the root's (rank 0's) figures; the images-per-node
# ratio rows (gocoll.T2.X/gocoll.Y) a table of their own with the ratio and
# its "per native", as scripts/images-bench.sh prints them.
#
# The flag column. One run is not a measure on these 2-core VMs: the machine
# flips between states in which small messages take twice as long, for a
# whole run or part of one (BENCHMARKS.md, "Two machine states"). On two
# identical builds in 6 rounds the median new/old of small sizes came out
# 1.44 when the slow state caught one build in more rounds, and a median
# beyond the spread of base's own rounds flagged a dozen rows. A row is
# flagged "slower" (or "faster") when ALL THREE of these moved by 5% or more
# (perfcompare -threshold) the same way:
#   1. the median over rounds of new/old, paired by round;
#   2. the median over rounds of new/old of Go/C, which cancels a state
#      that slows the native collective as much;
#   3. the fastest rounds: head's fastest over base's second fastest (for
#      faster: head's second fastest over base's fastest). The slow state
#      only adds time, so a build's fastest rounds are its cleanest figures,
#      and the second fastest asks the change to exceed their spread.
# Any one alone flags noise; a real change moves all three. "slower?" adds
# that the rounds of the two builds still interleave (more than 15% of the
# pairs of a head round and a base round go the other way): a bimodal row
# (gocoll.GatherAll at 1 MiB takes 98 or 120 us from run to run), or an
# outlier round; more rounds tell. The images ratio rows, ratios of two rows
# that flip between states independently, are flagged only when new/old
# moved by 5% in every round (and the median per native with it).
# "allocs A->B": the median allocations per operation changed by 0.5 or more.
#
# Calibration, full table, 6 rounds, 270 rows x sizes (370 lines with the
# roots): two comparisons of identical builds flagged nothing, and one
# "faster?" (gocoll.Agg16.Broadcast at 1 MiB, 142 allocations per operation,
# 10-17% faster in three of head's runs); the same runs with head's times
# made 10% longer flagged two thirds of the rows of 32 KiB and more, 97% of
# all at 20%. A real slowdown (a busy wait of 7 ps per byte, about 10%, in
# the blocking Broadcast from 32 KiB) was flagged "slower" in every
# Broadcast row it slowed from 128 KiB on, gocoll.BroadcastNB and
# Agg16.Broadcast, which do not take that path, not at all.
set -euo pipefail # a failed build or run ends the script
cd "$(dirname "$0")/.."
. scripts/lib.sh

usage() {
	echo "usage: scripts/perf-compare.sh [--fortran] BASE [HEAD] [collbench flags...]" >&2
	exit 2
}
fortran=${GOCOLL_COMPARE_FORTRAN:-0}
if [ "${1:-}" = --fortran ]; then
	fortran=1
	shift
fi
[ $# -ge 1 ] && [ "${1#-}" = "$1" ] || usage
base_id=$(git rev-parse --verify --quiet "$1^{commit}") || { echo "perf-compare.sh: $1 is not a commit" >&2; exit 2; }
shift
head_id=""
if [ $# -ge 1 ] && [ "${1#-}" = "$1" ]; then
	head_id=$(git rev-parse --verify --quiet "$1^{commit}") || { echo "perf-compare.sh: $1 is not a commit" >&2; exit 2; }
	shift
fi
[ "${1:-}" = -- ] && shift

ensure_go
ensure_mpi
[ "$fortran" = 1 ] && ensure_fortran
root=$(pwd)
out=$root/out/perf-compare
np=${GOCOLL_NP:-2}
rounds=${GOCOLL_ROUNDS:-6}
t0=$SECONDS
rm -rf "$out/base" "$out/head" "$out/runs"
mkdir -p "$out/base" "$out/head" "$out/runs"
src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT

describe() { git log -1 --format='%h %s' "$1"; }
# build SIDE COMMIT: exports COMMIT (the work tree when empty) and builds
# collbench, and with --fortran the coarray benchmark, into $out/SIDE.
build() {
	local dir=$root
	if [ -n "$2" ]; then
		dir=$src/$1
		mkdir -p "$dir" && git archive "$2" | tar -x -C "$dir"
	fi
	(cd "$dir" && go build -o "$out/$1/collbench" ./cmd/collbench)
	if [ "$fortran" = 1 ]; then
		(cd "$dir" && build_coarray_bench "$out/$1/caf")
	fi
}
echo "# base: $(describe "$base_id")"
build base "$base_id"
if [ -n "$head_id" ]; then
	echo "# head: $(describe "$head_id")"
else
	dirty=""
	[ -n "$(git status --porcelain --untracked-files=no)" ] && dirty=", with uncommitted changes"
	echo "# head: the work tree (on $(describe HEAD)$dirty)"
fi
build head "$head_id"
go build -o "$out/perfcompare" ./cmd/perfcompare

for r in $(seq 1 "$rounds"); do
	order="base head"
	[ $((r % 2)) -eq 0 ] && order="head base"
	for side in $order; do
		[ -t 2 ] && printf '\r# round %d of %d: %s   ' "$r" "$rounds" "$side" >&2
		flock /tmp/gocoll-cpu.lock $(mpirun_cmd "$np") "$out/$side/collbench" --quiet \
			--csv "$out/runs/$side-$r.csv" "$@" >"$out/runs/$side-$r.txt"
	done
	[ "$fortran" = 1 ] || continue
	for side in $order; do
		# bench prints "co_sum  1  µs  images".
		flock /tmp/gocoll-cpu.lock $(mpirun_cmd "$np") "$out/$side/caf/bench.gocoll" 1 |
			awk '$1 == "co_sum" { print $3 }' >"$out/runs/$side-$r.cosum"
		[ -s "$out/runs/$side-$r.cosum" ] || { echo "round $r: bench.gocoll ($side) printed no co_sum row" >&2; exit 1; }
	done
done
[ -t 2 ] && printf '\r%40s\r' "" >&2

files() { for r in $(seq 1 "$rounds"); do echo "$out/runs/$1-$r.csv"; done | paste -sd, -; }
echo "# np $np, collbench $*"
"$out/perfcompare" -base "$(files base)" -head "$(files head)"
if [ "$fortran" = 1 ]; then
	echo "#"
	echo "# CO_SUM of one double, bench.f90 on gocoll's gfortran runtime: median (least..greatest) over $rounds rounds"
	echo "base (us)      $(cat "$out"/runs/base-*.cosum | spread)"
	echo "head (us)      $(cat "$out"/runs/head-*.cosum | spread)"
	echo "new/old        $(for r in $(seq 1 "$rounds"); do
		paste "$out/runs/base-$r.cosum" "$out/runs/head-$r.cosum"
	done | awk '{ print $2 / $1 }' | spread)"
fi
echo "# $rounds rounds in $((SECONDS - t0)) s; the runs' CSV files and tables are in ${out#"$root"/}/runs"
