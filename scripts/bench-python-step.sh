#!/usr/bin/env bash
# Python suite, lockstep worker: the pytest-benchmark suite in step mode, timed in steps by the
# gate's lockstep runner over the two file descriptors in BENCH_STEP (tracker/GATE.md). Not for
# direct use: the runner starts one per side, both pinned to one CPU. BENCH_FILTER selects
# benchmarks; BENCH_PROFILE sizes them.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${BENCH_STEP:?is set by benchtrack gate (lockstep suites); this script is its worker}"
# A worker starts every round on each side: without the pytest plugins of hypothesis, xdist (its
# two: xdist.looponfail imports execnet) and pytest-asyncio (in the dev group for the tracker's
# tests; the suite uses none of them), whose imports are a large part of a worker's start-up CPU.
exec uv run --frozen python -m pytest python/benchmarks -o 'python_files=bench_*.py' \
  -p no:cacheprovider -p no:hypothesispytest -p no:xdist -p no:xdist.looponfail -p no:asyncio \
  --benchmark-disable -q --timeout=900
