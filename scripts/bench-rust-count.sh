#!/usr/bin/env bash
# Rust suite, instruction counts: each criterion bench binary in count mode (BENCH_COUNT) under
# callgrind, one raw file per binary in target/bench/raw/rust-instructions/ (tracker/GATE.md).
# Args: [--iters K]. BENCH_FILTER selects benchmarks; BENCHTRACK names the tracker to run (the
# gate sets it to its own, so an older checkout is counted the same way).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/count-args.sh
. scripts/count-args.sh
count_args rust "$@"
mapfile -t exes < <(bash scripts/rust-bench-binaries.sh)
[ ${#exes[@]} -gt 0 ] || { echo "bench-rust-count: cargo built no bench binary" >&2; exit 3; }
failed=()
for entry in "${exes[@]}"; do
  name=${entry%% *} exe=${entry#* }
  # A binary whose benchmarks the filter all leaves out is not started under callgrind, where a
  # start costs ~1.3 s: criterion's --list, run natively, names what the filter selects.
  if listed=$(BENCH_PROFILE=quick "$exe" --bench --list 2>/dev/null) && [[ $listed != *": benchmark"* ]]; then
    continue
  fi
  echo "== rust/$name: instruction counts ($iters runs each, under callgrind)"
  "${benchtrack[@]}" callgrind --iters "$iters" --out "$out/$name.json" -- "$exe" --bench \
    || failed+=("$name")
done
if [ ${#failed[@]} -gt 0 ]; then echo "bench-rust-count: failed: ${failed[*]}" >&2; exit 3; fi
