#!/usr/bin/env bash
# What one count run (`--iters 1`, as the gate's count rounds run them) costs, part by part, for
# the decision of how the gate's counts are scheduled (tracker/GATE.md, "Known limits"):
#
#   bash tracker/bench/count-cost.sh RECORDING
#
# Seconds of: each Rust bench binary's start under callgrind with nothing to count (a filter
# that matches none), each counted Rust benchmark alone, the Python count's groups and the whole
# of it, Perl's, and each counted gate suite as the gate runs it. The counted benchmarks are RECORDING's
# `(instructions)` series. Run it on an otherwise idle machine:
# it times processes, one at a time.
set -euo pipefail
cd "$(dirname "$0")/../.."
export UV_PYTHON_DOWNLOADS=never BENCH_THREADS=${BENCH_THREADS:-$(nproc)}
recording=${1:?usage: count-cost.sh RECORDING (an A/A recording whose counted series to time)}
[ -f "$recording" ] || { echo "count-cost: $recording: no such recording" >&2; exit 2; }

seconds() {  # seconds of one command (its output dropped), and its exit code
  local start rc=0
  start=$(date +%s.%N)
  "$@" >/dev/null 2>&1 || rc=$?
  printf '%.2f s (exit %d)' "$(echo "$(date +%s.%N) - $start" | bc)" "$rc"
}
count() { uv run --frozen benchtrack callgrind --iters 1 --out "$scratch/c.json" "$@"; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

mapfile -t counted < <(python3 -c '
import json, sys
doc = json.load(open(sys.argv[1]))
for n in sorted(doc["benchmarks"]):
    if n.startswith("rust/") and n.endswith(" (instructions)"):
        print(n.removeprefix("rust/").removesuffix(" (instructions)"))
' "$recording")
mapfile -t exes < <(bash scripts/rust-bench-binaries.sh 2>/dev/null)
echo "counted benchmarks of $recording, BENCH_THREADS=$BENCH_THREADS"
for entry in "${exes[@]}"; do
  name=${entry%% *} exe=${entry#* }
  echo "rust/$name, nothing counted: $(BENCH_PROFILE=quick BENCH_FILTER='^none$' seconds count -- "$exe" --bench)"
  for b in "${counted[@]}"; do
    [ "${b%%/*}" = "$name" ] || continue
    echo "rust/$b: $(BENCH_PROFILE=quick BENCH_FILTER="^$b\$" seconds count -- "$exe" --bench)"
  done
done
python=$(uv run --frozen python -c 'import sys; print(sys.executable)')
for f in '^python/cpu/(?!process_pool_gather)' '^python/fileio_cpu/' '^python/(cpu/(?!process_pool_gather)|fileio_cpu/)'; do
  echo "python $f: $(BENCH_PROFILE=count BENCH_FILTER="$f" seconds count --lazy -- "$python" -m pytest \
    python/benchmarks -o 'python_files=bench_*.py' -p no:cacheprovider --benchmark-disable -q)"
done
echo "perl (BENCH_FILTER=trivial): $(BENCH_FILTER=trivial seconds bash scripts/bench-perl-count.sh --iters 1)"
# Each counted gate suite as the gate runs it, once a side: its command, filter and profile
# (a `one_run` suite's run gives all its rounds; the others run once a round).
while IFS=$'\t' read -r part runs command filter profile; do
  echo "gate suite $part (run $runs): $(BENCH_PROFILE=$profile BENCH_FILTER=$filter seconds bash -c "$command")"
done < <(uv run --frozen python -c '
from pathlib import Path
from benchtrack.gate import config
for s in config.load(Path("benchtrack.toml")).suites.values():
    if s.series == "instructions":
        runs = "once" if s.one_run else "a round"
        print(s.name, runs, s.command, s.env.get("BENCH_FILTER", ""), s.env.get("BENCH_PROFILE", "quick"), sep="\t")
')
