#!/usr/bin/env bash
# Look for flaky tests: run the test suite RUNS times, each with a fresh GDVARIANT_SEED (the
# seed of every engine test), engines required; print each run's result and the failures.
#   bash tools/seed-sweep.sh 20                       # the whole suite, 20 runs
#   bash tools/seed-sweep.sh 40 tests/live               # only the engine tests
# Exits 1 if any run failed; rerun one with GDVARIANT_SEED=<seed> bash tools/test.sh.
set -uo pipefail
cd "$(dirname "$0")/.."
runs=${1:-20}
shift || true
[ -x .venv/bin/python ] || { python3 -m venv .venv && .venv/bin/python -m pip install -q -e '.[test]'; }
failed=0
for i in $(seq 1 "$runs"); do
    seed=$(( (RANDOM << 15) | RANDOM ))
    out=$(GDVARIANT_SEED=$seed GDVARIANT_REQUIRE_ENGINES=1 .venv/bin/python -m pytest -q \
          -p no:cacheprovider "$@" 2>&1)
    last=$(printf '%s\n' "$out" | tail -n 1)
    printf 'run %d, seed %d: %s\n' "$i" "$seed" "$last"
    if printf '%s\n' "$last" | grep -qE 'failed|error'; then
        failed=$((failed + 1))
        printf '%s\n' "$out" | grep -E '^(FAILED|ERROR|E  )' | cut -c1-300 | head -n 12
    fi
done
printf '%d of %d runs failed\n' "$failed" "$runs"
[ "$failed" = 0 ]
