#!/usr/bin/env bash
# Python suite, lockstep worker: the pytest-benchmark suite in step mode, timed in steps by the
# gate's lockstep runner over the two file descriptors in BENCH_STEP (tracker/GATE.md). Not for
# direct use: the runner starts one per side, both pinned to one CPU. BENCH_FILTER selects
# benchmarks; BENCH_PROFILE sizes them.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${BENCH_STEP:?is set by benchtrack gate (lockstep suites); this script is its worker}"
exec uv run --frozen python -m pytest python/benchmarks -o 'python_files=bench_*.py' \
  -p no:cacheprovider --benchmark-disable -q --timeout=900
