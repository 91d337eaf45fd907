#!/usr/bin/env bash
# Rust suite, lockstep worker: each criterion bench binary in step mode, in sorted order of the
# binaries' names (each holds the group of that name, so the names it offers follow the ones
# before), timed in steps by the gate's lockstep runner over the two file descriptors in
# BENCH_STEP (tracker/GATE.md). Not for direct use: the runner starts one per side, both pinned
# to one CPU. BENCH_FILTER selects benchmarks; BENCH_PROFILE sizes them.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${BENCH_STEP:?is set by benchtrack gate (lockstep suites); this script is its worker}"
# Build once; cargo's JSON messages name each bench binary.
mapfile -t exes < <(
  cargo bench --manifest-path rust/Cargo.toml --locked -p patterns --no-run --message-format=json \
    | python3 -c '
import json, sys
exes = []
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and "bench" in m["target"]["kind"]:
        exes.append((m["target"]["name"], m["executable"]))
for name, exe in sorted(exes):
    print(exe)
'
)
[ ${#exes[@]} -gt 0 ] || { echo "bench-rust-step: cargo built no bench binary" >&2; exit 3; }
for exe in "${exes[@]}"; do
  "$exe" --bench
done
