#!/usr/bin/env bash
# Runs every test of gocoll: formatting, vet, staticcheck, `go test -race ./...`
# (MPI packages run as singletons there, the collective engine on the
# in-process conduit), then each MPI test binary under real mpirun at several
# rank counts, and the Fortran coarray test programs on gocoll's coarray
# runtime, built with gfortran and with flang-22, at np 1..4. GOCOLL_MPI
# picks the MPI: openmpi (default) or mpich (see scripts/lib.sh); GOCOLL_NPS
# the rank counts (default 1 2 3 4 8, on MPICH only those up to 2 per core:
# see below). Installs that MPI, gfortran, OpenCoarrays and flang-22 when
# missing. Ends with "N passed, N failed" and exits non-zero on any failure.
set -u
cd "$(dirname "$0")/.."
. scripts/lib.sh
ensure_go || exit 1
ensure_mpi || exit 1
ensure_fortran || exit 1
ensure_flang || exit 1
echo "== $(gocoll_mpi): $(mpirun_cmd N)${GOFLAGS:+, GOFLAGS=$GOFLAGS}"

NPS=${GOCOLL_NPS:-"1 2 3 4 8"}
if [ -z "${GOCOLL_NPS:-}" ] && [ "$(gocoll_mpi)" = mpich ]; then
	# MPICH 4.0.2's blocking calls spin without ever yielding the processor
	# (its ch4 device has no yield-when-idle), so with several ranks per
	# core every MPI_Barrier waits for the scheduler to come round: at np 8
	# on 2 cores 33-50 ms against Open MPI's 21-46 us (mpiconduit/mpi/
	# testdata/oversubscribed_barrier.c), and the np 8 runs outlast the
	# tests' time limits. By default MPICH runs up to 2 ranks per core;
	# GOCOLL_NPS runs more.
	cap=$((2 * $(nproc)))
	NPS=$(for np in $NPS; do [ "$np" -le "$cap" ] && echo "$np"; done | xargs)
	echo "== MPICH: rank counts up to $cap (2 per core; set GOCOLL_NPS for more): $NPS"
fi
STATICCHECK_VERSION=v0.8.2
out=out/tests
rm -rf "$out" && mkdir -p "$out"
gofmt_check() {
	local bad
	bad=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
	[ -z "$bad" ] || { echo "gofmt would change: $bad"; return 1; }
}

staticcheck_run() {
	if ! command -v staticcheck >/dev/null 2>&1; then
		go install "honnef.co/go/tools/cmd/staticcheck@$STATICCHECK_VERSION" || return 1
	fi
	staticcheck ./...
}

step "gofmt" gofmt_check
step "go vet" go vet ./...
step "staticcheck" staticcheck_run
step "go test -race ./..." go test -race -count=1 -timeout 15m ./...
# The in-process conduit's conformance suite at P = 64 (go test ./... runs it
# at a smaller P, under -race; here without it, which costs several times less).
step "in-process suite P=64" env GOCOLL_SUITE_P=64 go test -count=1 -timeout 20m -run '^TestSuiteInProcessScale$' ./coll/

# (The coll/mpitest binary includes the model test, 200 operations, and the
# soak, 20,000 collectives; scripts/model.sh and scripts/soak.sh run them in
# full.)
# mpi_run SECONDS NP CMD...: CMD on NP ranks, ended after SECONDS. It
# fails when CMD does, and when the MPI library reports at MPI_Finalize
# objects the program never freed (MPICH: "[WARNING] yaksa: 2 leaked handle
# pool objects"; Open MPI reports none unless built for debugging).
mpi_run() {
	local log rc
	log=$(timeout "$1" $(mpirun_cmd "$2") "${@:3}" 2>&1)
	rc=$?
	echo "$log"
	[ $rc -eq 0 ] || return $rc
	if grep -q 'leaked handle' <<<"$log"; then
		echo "mpi_run: the MPI library reports handles left allocated at MPI_Finalize"
		return 1
	fi
}

mkdir -p "$out/bin"
for pkg in $(mpi_test_packages); do
	name=${pkg#github.com/gocoll/gocoll/}
	bin="$out/bin/$(echo "$name" | tr '/' '_').test"
	step "build $name" go test -c -o "$bin" "$pkg"
	[ -x "$bin" ] || continue
	for np in $NPS; do
		step "mpirun -np $np $name" mpi_run 600 "$np" "$bin" -test.timeout 8m
	done
done

# fortran_run NP BIN NAME: a Fortran test passes when mpi_run passes it
# and image 1 printed "PASS NAME".
fortran_run() {
	local log
	log=$(mpi_run 300 "$1" "$2")
	local rc=$?
	echo "$log"
	[ $rc -eq 0 ] && grep -qx "PASS $3" <<<"$log"
}

# fortran_run_checked: fortran_run in the runtime's checked mode
# (GOCOLL_CAF_CHECK=1, which mpirun passes on to its local ranks).
fortran_run_checked() { GOCOLL_CAF_CHECK=1 fortran_run "$@"; }

# fortran_profiled NP BIN NAME: fortran_run with the runtime's CPU profile
# (GOCOLL_CAF_CPUPROFILE), which must then be there for every image and
# parse as a CPU profile (a short test may give it no samples).
fortran_profiled() {
	local dir i
	dir=$(mktemp -d)
	GOCOLL_CAF_CPUPROFILE=$dir/cpu fortran_run "$@" || { rm -rf "$dir"; return 1; }
	for i in $(seq 1 "$1"); do
		go tool pprof -top "$dir/cpu.$i" 2>&1 | grep -qx 'Type: cpu' ||
			{ echo "image $i wrote no CPU profile"; rm -rf "$dir"; return 1; }
	done
	rm -rf "$dir"
}

# The Fortran coarray tests, built with gfortran and with flang-22 (through
# the wrappers gocaf and gocaf-flang) against gocoll's runtime: stat, whose
# disagreeing arguments only the checked mode finds on every image, once
# more in that mode; reduce once more writing CPU profiles. The sources
# leave out under flang what flang 22 does not compile (#ifndef
# __flang__), and flang skips those marked "! gfortran only" (CO_REDUCE,
# coarrays). The programs of coarray/fortran/fails must end in error
# termination.
caf_out=$out/coarray
step "build coarray/runtime and its wrappers" build_caf "$caf_out"
# fortran_fails NP BIN SRC: a program of coarray/fortran/fails passes when
# its run fails (error termination), in time, with the message its source
# names in a comment "! expect: TEXT".
fortran_fails() {
	local log want
	want=$(sed -n 's/^! expect: //p' "$3")
	log=$(mpi_run 300 "$1" "$2") && { echo "$log"; echo "the run succeeded: it must fail"; return 1; }
	[ $? -ne 124 ] || { echo "$log"; echo "timed out"; return 1; }
	echo "$log"
	grep -qF "$want" <<<"$log"
}

# hello_run FC: the README's hello world, built with the wrapper of FC
# (gocaf, gocaf-flang) and run with gocafrun on 3 images.
hello_run() {
	local wrapper=gocaf log
	[ "$1" = flang ] && wrapper=gocaf-flang
	"$caf_out/bin/$wrapper" coarray/fortran/hello.f90 -o "$caf_out/hello.$1" || return 1
	log=$(timeout 120 "$caf_out/bin/gocafrun" -n 3 "$caf_out/hello.$1" 2>&1) || { echo "$log"; return 1; }
	echo "$log"
	[ "$(grep -c '^Hello from image [123] of 3$' <<<"$log")" = 3 ]
}

for fc in gfortran flang; do
	step "$fc hello world (gocaf, gocafrun)" hello_run $fc
	for src in coarray/fortran/tests/*.f90; do
		name=$(basename "$src" .f90)
		[ $fc = flang ] && grep -q '^! gfortran only' "$src" && continue
		bin=$caf_out/$fc/$name
		mkdir -p "$caf_out/$fc"
		GOCOLL_FFLAGS="-O2 -cpp" step "$fc $name" caf_gocoll "$caf_out" "$src" "$bin" $fc
		[ -x "$bin" ] || continue
		for np in $NPS; do
			[ "$np" -le 4 ] || continue
			step "mpirun -np $np $fc/$name" fortran_run "$np" "$bin" "$name"
			if [ "$name" = reduce ] && [ "$np" = 2 ]; then
				step "mpirun -np $np $fc/$name, profiled" fortran_profiled "$np" "$bin" "$name"
			fi
			[ "$name" = stat ] || continue
			step "mpirun -np $np $fc/$name, checked" fortran_run_checked "$np" "$bin" "$name"
		done
	done
	for src in coarray/fortran/fails/*.f90; do
		name=$(basename "$src" .f90)
		[ $fc = flang ] && grep -q '^! gfortran only' "$src" && continue
		bin=$caf_out/$fc/fails-$name
		GOCOLL_FFLAGS="-O2 -cpp" step "$fc fails/$name" caf_gocoll "$caf_out" "$src" "$bin" $fc
		[ -x "$bin" ] || continue
		for np in 2 3 4; do
			step "mpirun -np $np $fc/fails/$name (must fail)" fortran_fails "$np" "$bin" "$src"
		done
	done
done

step_summary
