#!/usr/bin/env bash
# Makes coarray/runtime/default.pgo, the CPU profile the coarray runtime is
# built with (profile-guided optimization: coarray/runtime/profile.go):
# coarray/fortran/bench/bench.f90 of 1 and 1000 doubles at np 2 on the
# runtime as it is built now, profiled with GOCOLL_CAF_CPUPROFILE; image 1's
# profile becomes default.pgo. Run it after changing the code under a
# collective's path, then time the runtime (scripts/cosum-rounds.sh) and
# commit the profile if the figures hold. The run takes
# /tmp/gocoll-cpu.lock exclusively (the machine is shared).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
ensure_go
ensure_mpi
ensure_fortran
out=out/pgo-profile
rm -rf "$out"
build_caf "$out"
GOCOLL_FFLAGS="-O2 -cpp" caf_gocoll "$out" coarray/fortran/bench/bench.f90 "$out/bench"
flock /tmp/gocoll-cpu.lock env GOCOLL_CAF_CPUPROFILE="$PWD/$out/cpu" $(mpirun_cmd 2) "$out/bench" 1 1000
# The profile must parse and hold the collectives' calls. (Read whole
# first: grep -q ending the pipe early would fail it under pipefail.)
top=$(go tool pprof -top "$out/cpu.1")
grep -q 'coll.(\*Image).ReduceAll' <<<"$top" ||
	{ echo "pgo-profile.sh: $out/cpu.1 holds no ReduceAll" >&2; exit 1; }
cp "$out/cpu.1" coarray/runtime/default.pgo
echo "wrote coarray/runtime/default.pgo ($(wc -c <coarray/runtime/default.pgo) bytes)"
