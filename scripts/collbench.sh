#!/usr/bin/env bash
# The main job: installs Open MPI when missing, builds cmd/collbench and runs
# it under mpirun (np 2 unless GOCOLL_NP says otherwise). Extra arguments go
# to collbench (see `collbench --help`).
set -eu
cd "$(dirname "$0")/.."
. scripts/lib.sh
ensure_go
ensure_mpi
mkdir -p bin
go build -o bin/collbench ./cmd/collbench
exec $(mpirun_cmd "${GOCOLL_NP:-2}") bin/collbench "$@"
