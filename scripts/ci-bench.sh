#!/usr/bin/env bash
# CI bench job: every suite on this runner size, wall time and instruction counts (pinned with
# taskset when BENCH_TASKSET is set), result documents in target/bench/results/, the table in the
# job summary. The publish job appends.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/tools.sh
. scripts/tools.sh

pin=()
[ -n "${BENCH_TASKSET:-}" ] && pin=(taskset -c "$BENCH_TASKSET")
suites=()
# default: every [bench.suites] table of benchtrack.toml, the instruction counts included: they
# are the history's quiet series (tracker/DETECT.md, "History noise")
[ -n "${BENCH_SUITES:-}" ] && suites=(--suite "$BENCH_SUITES")
summary=target/bench/summary.md
rm -f "$summary"  # an earlier run's table must not pass for this one's
# the table to the log, its Markdown to the job summary
"${pin[@]}" uv run --frozen benchtrack bench-local --no-history "${suites[@]}" --markdown "$summary"
rc=$?
[ -n "${GITHUB_STEP_SUMMARY:-}" ] && [ -f "$summary" ] && cat "$summary" >> "$GITHUB_STEP_SUMMARY"
exit "$rc"
