#!/usr/bin/env bash
# Python suite, instruction counts: the pytest-benchmark suite in count mode (BENCH_COUNT) under
# callgrind, into target/bench/raw/python-instructions/python.json (tracker/GATE.md).
# Args: [--iters K]. BENCH_FILTER selects benchmarks; BENCH_PROFILE sizes them; BENCHTRACK names
# the tracker to run (the gate sets it to its own).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1-}" = "--" ]; then shift; fi
iters=3
if [ "${1-}" = "--iters" ]; then iters=${2:?--iters takes a number}; shift 2; fi
[ $# -eq 0 ] || { echo "bench-python-count: unexpected argument $1 (expected --iters K)" >&2; exit 2; }
read -r -a benchtrack <<< "${BENCHTRACK:-uv run --frozen benchtrack}"
out=target/bench/raw/python-instructions
rm -rf "$out"
mkdir -p "$out"
# The environment's interpreter itself (not `uv run`): valgrind must start the process that counts.
python=$(uv run --frozen python -c 'import sys; print(sys.executable)')
echo "== python: instruction counts ($iters runs each, under callgrind)"
"${benchtrack[@]}" callgrind --lazy --iters "$iters" --out "$out/python.json" -- \
  "$python" -m pytest python/benchmarks -o 'python_files=bench_*.py' -p no:cacheprovider \
  --benchmark-disable -q --timeout=900
