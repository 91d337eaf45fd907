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
# With BENCHTRACK_PROFILES (the gate's), once per side: the statements each sub runs, in a perl of
# its own outside callgrind (Devel::BenchtrackProfile), for the gate's function diff.
if [ -n "${BENCHTRACK_PROFILES-}" ]; then
  profile="$BENCHTRACK_PROFILES/${GATE_SIDE:-run}/perl.json"
  if [ ! -e "$profile" ]; then
    BENCH_COUNT_PROFILE=$profile perl -Iperl/lib -d:BenchtrackProfile perl/bin/bench --quiet \
      || echo "bench-perl-count: no Perl profile (the counts above stand)" >&2
  fi
fi
