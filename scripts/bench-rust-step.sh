#!/usr/bin/env bash
# Rust suite, lockstep worker: each criterion bench binary in step mode, in sorted order of the
# binaries' names (each holds the group of that name, so the names it offers follow the ones
# before), timed in steps by the gate's lockstep runner over the two file descriptors in
# BENCH_STEP (tracker/GATE.md). Not for direct use: the runner starts one per side, both pinned
# to one CPU. BENCH_FILTER selects benchmarks; BENCH_PROFILE sizes them; BENCH_CARGO_PROFILE
# builds with another cargo profile than `bench` (e.g. `dev`: a protocol test reuses the
# dependencies `cargo test` built, where an optimised build would compile them all again).
set -euo pipefail
cd "$(dirname "$0")/.."
: "${BENCH_STEP:?is set by benchtrack gate (lockstep suites); this script is its worker}"
# Build once; cargo's JSON messages name each bench binary.
mapfile -t exes < <(
  cargo bench --manifest-path rust/Cargo.toml --locked -p patterns --no-run --message-format=json \
    ${BENCH_CARGO_PROFILE:+--profile "$BENCH_CARGO_PROFILE"} \
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
# Each binary runs from a private copy in memory (tmpfs), removed after it. Two quiet A/A
# recordings each had one `streams` benchmark slower on one side by 18-25% in every process for
# ten rounds, then not (aa-all-quiet-q3.json `unfold`, -q4.json `async_stream`; tracker/LAB.md):
# a state that outlived the processes, so one the side keeps, and the bench binaries' page cache
# pages are the part of it that a benchmark's speed can hang on. With a copy a process, the code
# sits in pages of its own: such a state is one process's of the round's eight.
copies=$(mktemp -d /dev/shm/bench-rust-step.XXXXXX 2>/dev/null) || copies=
trap 'rm -rf "$copies"' EXIT
if [ -z "$copies" ] || ! { cp /bin/true "$copies/" && "$copies/true"; } 2>/dev/null; then
  rm -rf "$copies" # no tmpfs, or one mounted noexec: the temporary directory, on disk
  copies=$(mktemp -d "${TMPDIR:-/tmp}/bench-rust-step.XXXXXX")
fi
trap 'exit 143' TERM # the runner stops a worker with SIGTERM: the copies go with it
for exe in "${exes[@]}"; do
  copy="$copies/$(basename "$exe")"
  cp "$exe" "$copy"
  "$copy" --bench
  rm -f "$copy"
done
