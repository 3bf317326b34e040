#!/usr/bin/env bash
# Builds the example programs (examples/heat2d, examples/cg) and their C + MPI
# twins, runs each Go program and its twin under mpirun at np 1, 2 and 4 on
# the same inputs, checks that the results agree, and prints the times side
# by side. Installs Open MPI and a C compiler when missing.
#
#   heat2d: every run (Go and C, every np) prints the same result line, bit
#           for bit (steps, residual, checksum of the field).
#   cg:     every run's ||x|| is within 2 rtol κ(A) ||x|| of the Go np 1
#           run's, κ(A) = cot^2(π/(2(n+1))), and its true residual within
#           2 rtol (see examples/cg/main.go for why not bit for bit).
#
# Times: each (program, np) runs Go and C EXAMPLES_REPS times (default 3),
# alternating, and keeps each side's fastest run. Time it alone:
#   flock /tmp/gocoll-cpu.lock scripts/examples.sh
# Environment: EXAMPLES_NPS (default "1 2 4"), EXAMPLES_REPS, CFLAGS of the
# twins (default -O2), EXAMPLES_QUICK=1 for small inputs (a check, not timing).
set -u
cd "$(dirname "$0")/.."
. scripts/lib.sh
ensure_go || exit 1
ensure_mpi || exit 1
if ! command -v cc >/dev/null 2>&1; then
	echo "== installing a C compiler (gcc) with apt-get"
	sudo=""
	[ "$(id -u)" -ne 0 ] && sudo="sudo"
	$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq gcc >/dev/null ||
		{ echo "could not install gcc" >&2; exit 1; }
fi

NPS=${EXAMPLES_NPS:-"1 2 4"}
REPS=${EXAMPLES_REPS:-3}
# -ffp-contract=off: no fused multiply-add, whose single rounding would
# break heat2d's bitwise agreement (Go does not fuse on amd64 either).
CFLAGS="${CFLAGS:--O2} -ffp-contract=off"
# heat2d runs twice: a grid too large for the caches (memory-bound sweeps)
# and one whose blocks fit in the last-level cache at np 2 (compute-bound).
if [ "${EXAMPLES_QUICK:-0}" = 1 ]; then
	HEAT_INPUTS=("-n 300 -steps 200 -k 10")
	CG_N=200 CG_RTOL=1e-8
else
	HEAT_INPUTS=("-n 2048 -steps 600 -k 10" "-n 1024 -steps 4000 -k 10")
	CG_N=1024 CG_RTOL=1e-8
fi
CG_ARGS="-n $CG_N -rtol $CG_RTOL"

out=out/examples
mkdir -p "$out"
echo "== building into $out (twins: $(mpi_cc) $CFLAGS)"
go build -o "$out/heat2d" ./examples/heat2d &&
	go build -o "$out/cg" ./examples/cg &&
	$(mpi_cc) $CFLAGS -o "$out/heat2d_c" examples/heat2d/c/heat2d.c -lm &&
	$(mpi_cc) $CFLAGS -o "$out/cg_c" examples/cg/c/cg.c -lm ||
	{ echo "build failed" >&2; exit 1; }

failed=0
# fail MSG: report a disagreement; the script exits non-zero at the end.
fail() {
	echo "DISAGREE: $*"
	failed=$((failed + 1))
}

# run NP BIN ARGS...: the result line (the last line) of one run.
run() {
	local np=$1 bin=$2
	shift 2
	local line
	line=$($(mpirun_cmd "$np") "$out/$bin" "$@" 2>"$out/$bin.np$np.err" | tail -1)
	[ -n "$line" ] || { echo "$bin at np $np printed nothing:" >&2; cat "$out/$bin.np$np.err" >&2; }
	echo "$line"
}

# field KEY LINE: the value of key=value in a result line.
field() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

# best TIME TIME: the smaller one (the first when empty).
best() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b + 0 < a + 0) print b; else print a }'; }

# cg_check LINE REF: LINE's ||x|| within 2 rtol κ ||x_ref|| of REF's, and its
# true residual within 2 rtol.
cg_check() {
	awk -v x="$(field xnorm "$1")" -v ref="$(field xnorm "$2")" -v rr="$(field relres "$1")" \
		-v n="$CG_N" -v rtol="$CG_RTOL" 'BEGIN {
		pi = atan2(0, -1); t = sin(pi / (2 * (n + 1))) / cos(pi / (2 * (n + 1)))
		tol = 2 * rtol / (t * t) * ref; d = x - ref; if (d < 0) d = -d
		if (x == "" || d > tol || rr > 2 * rtol) { printf "d=%.3g tol=%.3g relres=%s", d, tol, rr; exit 1 }
		printf "%.2g", d / ref }'
}

rows=()
# compare NAME LABEL ARGS...: Go and twin at every np, REPS times each.
compare() {
	local name=$1 label=$2
	shift 2
	local ref="" np rep gl cl gt ct diff d worst
	for np in $NPS; do
		gt="" ct="" worst=0
		for rep in $(seq "$REPS"); do
			# Alternate which side goes first, as collbench does.
			if [ $((rep % 2)) -eq 1 ]; then
				gl=$(run "$np" "$name" "$@")
				cl=$(run "$np" "${name}_c" "$@")
			else
				cl=$(run "$np" "${name}_c" "$@")
				gl=$(run "$np" "$name" "$@")
			fi
			[ -n "$ref" ] || ref=$gl
			for l in "$gl" "$cl"; do
				case $name in
				heat2d)
					[ "${l% time=*}" = "${ref% time=*}" ] || fail "heat2d np $np: '$l' vs the first Go run '$ref'"
					diff="bitwise"
					;;
				cg)
					if d=$(cg_check "$l" "$ref"); then
						worst=$(awk -v a="$worst" -v b="$d" 'BEGIN { print (b + 0 > a + 0 ? b : a) }')
						diff="||x|| within $worst"
					else
						fail "cg np $np: '$l' vs the first Go run '$ref': $d"
					fi
					;;
				esac
			done
			gt=$(best "$gt" "$(field time "$gl")")
			ct=$(best "$ct" "$(field time "$cl")")
		done
		local it=""
		[ "$name" = cg ] && it="iters Go $(field iterations "$gl") C $(field iterations "$cl")"
		rows+=("$(printf '%-14s %3s %9.3f %9.3f %6.3f   %s %s' "$label" "$np" "$gt" "$ct" \
			"$(awk -v g="$gt" -v c="$ct" 'BEGIN { print (c > 0 ? g / c : 0) }')" "$diff" "$it")")
		echo "${rows[-1]}"
	done
}

echo "== heat2d $(printf '[%s] ' "${HEAT_INPUTS[@]}")cg [$CG_ARGS]; np $NPS; best of $REPS"
printf '%-14s %3s %9s %9s %6s   %s\n' program np "Go s" "C s" Go/C agreement
for a in "${HEAT_INPUTS[@]}"; do
	set -- $a
	compare heat2d "heat2d n=$2" $a
done
compare cg "cg n=$CG_N" $CG_ARGS

echo
echo "== summary (Go and C + MPI twin, $($(mpi_launcher) --version 2>/dev/null | head -1), twins: $CFLAGS)"
printf '%-14s %3s %9s %9s %6s   %s\n' program np "Go s" "C s" Go/C agreement
printf '%s\n' "${rows[@]}"
if [ "$failed" -gt 0 ]; then
	echo "$failed disagreements"
	exit 1
fi
echo "all results agree"
