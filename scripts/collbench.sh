#!/usr/bin/env bash
# The main job: installs the MPI library (GOCOLL_MPI: openmpi, the default,
# or mpich; see scripts/lib.sh) when missing, builds cmd/collbench for it and
# runs it under its launcher (np 2 unless GOCOLL_NP says otherwise). Extra arguments go
# to collbench (see `collbench --help`).
set -eu
cd "$(dirname "$0")/.."
. scripts/lib.sh
ensure_go
ensure_mpi
build_collbench
exec $(mpirun_cmd "${GOCOLL_NP:-2}") bin/collbench "$@"
