#!/usr/bin/env bash
# Perl suite, instruction counts: the Coro throughput benchmarks in count mode (BENCH_COUNT) under
# callgrind, into target/bench/raw/perl-instructions/perl.json (tracker/GATE.md).
# Args: [--iters K]. BENCH_FILTER selects benchmarks; BENCHTRACK names the tracker to run (the
# gate sets it to its own).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/count-args.sh
. scripts/count-args.sh
count_args perl "$@"
echo "== perl: instruction counts ($iters runs each, under callgrind)"
"${benchtrack[@]}" callgrind --iters "$iters" --out "$out/perl.json" -- \
  perl -Iperl/lib perl/bin/bench --quiet
