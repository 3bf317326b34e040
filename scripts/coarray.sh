#!/usr/bin/env bash
# Runs a Fortran coarray program on gocoll's coarray runtime and on
# OpenCoarrays, one after the other, in one command:
#
#   scripts/coarray.sh [--np N] [--only gocoll|opencoarrays] PROG.f90 [ARGS...]
#
# It builds the runtime (coarray/runtime, -buildmode=c-shared) into
# out/coarray/libcaf_gocoll.so, compiles PROG.f90 with gfortran
# -fcoarray=lib against it and runs it under mpirun with N images (default
# 2, or GOCOLL_NP); then compiles it with OpenCoarrays' caf and runs it with
# cafrun. Installs Open MPI, gfortran and OpenCoarrays with apt-get when
# missing. GOCOLL_FFLAGS replaces the compile flags (default -O2) of both.
# Exits non-zero when the run on gocoll fails; OpenCoarrays' exit status is
# reported, not propagated (its known defects are what the comparison shows).
set -u
cd "$(dirname "$0")/.."
. scripts/lib.sh

np=${GOCOLL_NP:-2}
only=""
while [ $# -gt 0 ]; do
	case $1 in
	--np) np=$2; shift 2 ;;
	--only) only=$2; shift 2 ;;
	-h | --help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || { echo "usage: scripts/coarray.sh [--np N] [--only gocoll|opencoarrays] PROG.f90 [ARGS...]" >&2; exit 2; }
src=$1
shift
[ -f "$src" ] || { echo "no such file: $src" >&2; exit 2; }
ensure_go && ensure_mpi && ensure_fortran || exit 1

out=out/coarray
name=$(basename "$src" .f90)
mkdir -p "$out"
status=0
if [ "$only" != opencoarrays ]; then
	echo "== gocoll: building the runtime and $name"
	build_caf "$out" && caf_gocoll "$out" "$src" "$out/$name.gocoll" || exit 1
	echo "== gocoll: $(mpirun_cmd "$np") $out/$name.gocoll $*"
	$(mpirun_cmd "$np") "$out/$name.gocoll" "$@"
	status=$?
	echo "== gocoll: exit $status"
fi
if [ "$only" != gocoll ]; then
	echo "== OpenCoarrays: caf ${GOCOLL_FFLAGS:--O2} $src"
	if caf ${GOCOLL_FFLAGS:--O2} -J "$out" "$src" -o "$out/$name.opencoarrays"; then
		echo "== OpenCoarrays: $(cafrun_cmd "$np") $out/$name.opencoarrays $*"
		$(cafrun_cmd "$np") "$out/$name.opencoarrays" "$@" 2>&1 | grep -v '^\[warn\] Epoll'
		echo "== OpenCoarrays: exit ${PIPESTATUS[0]}"
	fi
fi
exit $status
