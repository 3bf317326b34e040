#!/usr/bin/env bash
# Installs gocoll's Fortran coarray runtime for gfortran and LLVM flang:
#
#   scripts/install-caf.sh [PREFIX]      (default out/caf)
#
# PREFIX/lib/libcaf_gocoll.so, the compile wrappers PREFIX/bin/gocaf
# (gfortran -fcoarray=lib) and PREFIX/bin/gocaf-flang (flang-22 -fcoarray),
# and the launcher PREFIX/bin/gocafrun (gocafrun -n N ./prog). Installs MPI
# (GOCOLL_MPI: openmpi or mpich), gfortran, OpenCoarrays and flang-22 with
# apt-get when missing.
set -u
cd "$(dirname "$0")/.."
. scripts/lib.sh
case ${1:-} in -h | --help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
prefix=${1:-out/caf}
ensure_go && ensure_mpi && ensure_fortran && ensure_flang || exit 1
build_caf "$prefix" || exit 1
echo "installed into $prefix: lib/libcaf_gocoll.so, bin/gocaf, bin/gocaf-flang, bin/gocafrun"
