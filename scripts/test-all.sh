#!/usr/bin/env bash
# `cargo make test`: every part's tests (and the lint gates), one summary, non-zero if any failed.
# A part is a cargo-make task named test-<part>, defined in that part's tasks.toml.
#
# Two lanes at once: the tracker's tests (the longest part, itself on four pytest-xdist workers)
# in one, the other parts one after another in the other. No test's verdict depends on how busy
# the machine is (docs/architecture.md, "Tests"), so the lanes may share it. Each part's output
# goes to a log, printed whole when the part ends, so the lanes do not interleave their lines.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/tools.sh
. scripts/tools.sh

# Python's bytecode is written and read again, whatever the caller's PYTHONDONTWRITEBYTECODE:
# without it every one of the run's thousands of Python processes (step workers, benchtrack in
# act jobs, pytest) compiles each module it imports from source, numpy's and scipy's included
# (~1.4 of an import's 2.3 CPU-s). It goes to one tree under target/, so no test's directory
# (a scratch repository, an output directory) gets a __pycache__/ the run did not ask for.
export PYTHONDONTWRITEBYTECODE=
export PYTHONPYCACHEPREFIX="$PWD/target/pycache"

parts=(lint rust python perl tracker dashboard)
lanes=("tracker" "lint rust python perl dashboard")
logs=$(mktemp -d "${TMPDIR:-/tmp}/benchtrack-test.XXXXXX")
trap 'rm -rf "$logs"' EXIT

# One part: its task's output to its log, then (one lane at a time) the log to stdout; its status
# and seconds to $logs/<part>.status (lanes are subshells: the summary reads these files).
run_part() {
  local part=$1 task="test-$1" start=$SECONDS status
  [ "$part" = lint ] && task=lint
  if cargo make "$task" </dev/null >"$logs/$part.log" 2>&1; then status=ok; else status=FAILED; fi
  (
    flock 9
    printf '\n======== %s (cargo make %s): %s, %ds\n' "$part" "$task" "$status" $((SECONDS - start))
    cat "$logs/$part.log"
  ) 9>"$logs/print.lock"
  printf '%s %d\n' "$status" $((SECONDS - start)) >"$logs/$part.status"
}

run_lane() {
  local part
  for part in $1; do run_part "$part"; done
}

start=$SECONDS
pids=()
for lane in "${lanes[@]}"; do
  run_lane "$lane" &
  pids+=($!)
done
wait "${pids[@]}"

passed=(); failed=()
printf '\n======== summary (%ds in all, two lanes)\n' $((SECONDS - start))
for part in "${parts[@]}"; do
  read -r status seconds <"$logs/$part.status" 2>/dev/null || { status=FAILED; seconds=0; }
  printf '%-10s %-7s %4ds\n' "$part" "$status" "$seconds"
  if [ "$status" = ok ]; then passed+=("$part"); else failed+=("$part"); fi
done
[ ${#failed[@]} -eq 0 ] || printf 'failed parts: %s\n' "${failed[*]}"
echo "parts: ${#passed[@]} passed, ${#failed[@]} failed"
[ ${#failed[@]} -eq 0 ]
