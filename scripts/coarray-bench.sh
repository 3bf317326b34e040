#!/usr/bin/env bash
# Times the coarray collectives (coarray/fortran/bench/bench.f90: CO_BROADCAST,
# CO_SUM, CO_REDUCE with a user function, of n doubles) on gocoll's runtime,
# in its default mode and in its checked mode (GOCOLL_CAF_CHECK=1), built
# with gfortran and with flang-22 (which has no CO_REDUCE), and on
# OpenCoarrays, beside MPI_Bcast and MPI_Allreduce (mpi_bench.c); then
# coindexed writes and reads (rma.f90: x(1:n)[2] and x(1:2n:2)[2]) on
# gocoll's runtime and on OpenCoarrays beside MPI_Put and MPI_Get
# (mpi_rma.c); all in one run at each rank count of GOCOLL_NPS (default
# "2 4"):
#
#   scripts/coarray-bench.sh [SIZES...]      (default 1 1000 131072 1000000)
#
# RMA_SIZES gives the coindexed access sizes in doubles (default
# "1 1000 131072"). The runs take /tmp/gocoll-cpu.lock exclusively (the
# machine is shared).
set -u
cd "$(dirname "$0")/.."
. scripts/lib.sh
# OpenCoarrays is Debian's Open MPI build, and the runs pass Open MPI's -x.
[ "$(gocoll_mpi)" = openmpi ] || { echo "coarray-bench.sh compares against OpenCoarrays on Open MPI: run it with GOCOLL_MPI=openmpi" >&2; exit 2; }
ensure_go && ensure_mpi && ensure_fortran && ensure_flang || exit 1

out=out/coarray-bench
build_coarray_bench "$out" && build_coarray_more "$out" || exit 1
rma=${RMA_SIZES:-1 1000 131072}

for np in ${GOCOLL_NPS:-2 4}; do
	echo "== np $np"
	flock /tmp/gocoll-cpu.lock bash -c "
		echo '-- gocoll (default)'; $(mpirun_cmd "$np") $out/bench.gocoll $*
		echo '-- gocoll (checked: GOCOLL_CAF_CHECK=1)'; $(mpirun_cmd "$np") -x GOCOLL_CAF_CHECK=1 $out/bench.gocoll $*
		echo '-- OpenCoarrays'; $(cafrun_cmd "$np") $out/bench.opencoarrays $* 2>&1 | grep -v '^\[warn\] Epoll'
		echo '-- gocoll (flang)'; $(mpirun_cmd "$np") $out/bench.flang $*
		echo '-- MPI'; $(mpirun_cmd "$np") $out/mpi_bench $*
		echo '-- gocoll: coindexed access'; $(mpirun_cmd "$np") $out/rma.gocoll $rma
		echo '-- OpenCoarrays: coindexed access'; $(cafrun_cmd "$np") $out/rma.opencoarrays $rma 2>&1 | grep -v '^\[warn\] Epoll'
		echo '-- MPI: MPI_Put, MPI_Get'; $(mpirun_cmd "$np") $out/mpi_rma $rma
	"
done
