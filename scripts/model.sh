#!/usr/bin/env bash
# Runs the model test (coll/colltest Model, issue 11) in full: 10,000 random
# operations per seed and images table, in process under the race detector
# with random message delays. A failure prints its one-line reproduction.
#   GOCOLL_MODEL_SEEDS   seeds to run (default "1 2 3")
#   GOCOLL_MODEL_TABLES  images tables, e.g. "1,1 2,2 3,1,2" (default: every
#                        table of coll/model_test.go, in parallel)
#   GOCOLL_MODEL_OPS     operations per run (default 10000)
# Takes the shared CPU lock, as every race run on the shared machine does.
# All 16 tables of one seed take about 5 minutes on 2 cores.
set -u
cd "$(dirname "$0")/.."
. scripts/lib.sh
ensure_go || exit 1
export GOCOLL_MODEL_OPS=${GOCOLL_MODEL_OPS:-10000}
export GOCOLL_MODEL_TIMEOUT=${GOCOLL_MODEL_TIMEOUT:-36000}
failed=0
for seed in ${GOCOLL_MODEL_SEEDS:-1 2 3}; do
	for table in ${GOCOLL_MODEL_TABLES:-all}; do
		t0=$SECONDS
		if [ "$table" = all ]; then unset GOCOLL_MODEL_TABLE; else export GOCOLL_MODEL_TABLE=$table; fi
		if GOCOLL_MODEL_SEED=$seed flock -s /tmp/gocoll-cpu.lock \
			go test -race -count=1 -timeout 0 -run 'TestModel$' ./coll/; then
			echo "ok    seed $seed table $table ops $GOCOLL_MODEL_OPS $((SECONDS - t0))s"
		else
			echo "FAIL  seed $seed table $table ops $GOCOLL_MODEL_OPS $((SECONDS - t0))s"
			failed=$((failed + 1))
		fi
	done
done
[ "$failed" -eq 0 ]
