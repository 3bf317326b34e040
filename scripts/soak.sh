#!/usr/bin/env bash
# The full soak (issue 11, item 7): a million small collectives per run under
# mpirun (coll/mpitest TestSoakMPI, colltest.Soak), with each rank's heap in
# use and goroutine count measured after warm-up and bounded (the test fails
# on growth). scripts/mpirun-tests.sh runs the same test with 20,000.
#   GOCOLL_SOAK_NPS  rank counts (default "2 4")
#   GOCOLL_SOAK_OPS  collectives per run (default 1000000)
# Prints one SOAK line per run (rank 0's figures) and appends them, with
# the command and date, to out/soak/soak.txt. The duration is not a
# benchmark (the lock is shared, as for every mpirun test run).
set -u
cd "$(dirname "$0")/.."
. scripts/lib.sh
ensure_go || exit 1
ensure_mpi || exit 1
export GOCOLL_SOAK_OPS=${GOCOLL_SOAK_OPS:-1000000}
export GOCOLL_SOAK_REPORT=1
out=out/soak
mkdir -p "$out"
bin=$out/mpitest.test
go test -c -o "$bin" ./coll/mpitest || exit 1
failed=0
for np in ${GOCOLL_SOAK_NPS:-2 4}; do
	cmd="$(mpirun_cmd "$np") $bin -test.run ^TestSoakMPI\$ -test.v -test.timeout 0"
	t0=$SECONDS
	log=$(flock -s /tmp/gocoll-cpu.lock $cmd 2>&1)
	rc=$?
	echo "$log" | grep -E '^(SOAK|--- FAIL)|rank [0-9]+:' | sort -u
	{
		echo "$(date -u +%FT%TZ) GOCOLL_SOAK_OPS=$GOCOLL_SOAK_OPS $cmd: exit $rc, $((SECONDS - t0))s"
		echo "$log" | grep '^SOAK'
	} >>"$out/soak.txt"
	[ $rc -eq 0 ] || failed=$((failed + 1))
done
[ "$failed" -eq 0 ]
