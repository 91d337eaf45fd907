#!/usr/bin/env bash
# Python suite, instruction counts: the pytest-benchmark suite in count mode (BENCH_COUNT) under
# callgrind, into target/bench/raw/python-instructions/python.json (tracker/GATE.md).
# Args: [--iters K]. BENCH_FILTER selects benchmarks; BENCH_PROFILE sizes them; BENCHTRACK names
# the tracker to run (the gate sets it to its own).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/count-args.sh
. scripts/count-args.sh
count_args python "$@"
# The environment's interpreter itself (not `uv run`): valgrind must start the process that counts.
python=$(uv run --frozen python -c 'import sys; print(sys.executable)')
# Without the plugins the suite uses none of: under valgrind their imports were a third of a
# small count run (tracker/tests/test_callgrind.py's toy: 23 -> 14 CPU-s).
echo "== python: instruction counts ($iters runs each, under callgrind)"
"${benchtrack[@]}" callgrind --lazy --iters "$iters" --out "$out/python.json" -- \
  "$python" -m pytest python/benchmarks -o 'python_files=bench_*.py' -p no:cacheprovider \
  -p no:hypothesispytest -p no:xdist -p no:xdist.looponfail -p no:asyncio --benchmark-disable \
  -q --timeout=900
