#!/usr/bin/env bash
# Perl suite, instruction counts: the Coro throughput benchmarks in count mode (BENCH_COUNT) under
# callgrind, into target/bench/raw/perl-instructions/perl.json (tracker/GATE.md).
# Args: [--iters K]. BENCH_FILTER selects benchmarks; BENCHTRACK names the tracker to run (the
# gate sets it to its own).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1-}" = "--" ]; then shift; fi
iters=3
if [ "${1-}" = "--iters" ]; then iters=${2:?--iters takes a number}; shift 2; fi
[ $# -eq 0 ] || { echo "bench-perl-count: unexpected argument $1 (expected --iters K)" >&2; exit 2; }
read -r -a benchtrack <<< "${BENCHTRACK:-uv run --frozen benchtrack}"
out=target/bench/raw/perl-instructions
rm -rf "$out"
mkdir -p "$out"
echo "== perl: instruction counts ($iters runs each, under callgrind)"
"${benchtrack[@]}" callgrind --iters "$iters" --out "$out/perl.json" -- \
  perl -Iperl/lib perl/bin/bench --quiet
