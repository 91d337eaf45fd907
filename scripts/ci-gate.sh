#!/usr/bin/env bash
# CI PR gate job: the PR head against its merge base with BASE_SHA, interleaved on this runner size
# (pinned with taskset when BENCH_TASKSET is set; extra args go to `benchtrack gate`). The verdict (gate.json, gate.md) and the PR
# number go to target/gate/comment/ for pr-comment.yml; the Markdown to the job summary.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/tools.sh
. scripts/tools.sh

: "${BASE_SHA:?BASE_SHA must name the PR base commit}"
if ! base=$(git merge-base "$BASE_SHA" HEAD 2>/dev/null); then
  if [ "$(git rev-parse --is-shallow-repository)" = true ]; then
    echo "gate: error: no merge base of $BASE_SHA and HEAD in this shallow clone: check out with fetch-depth: 0 (actions/checkout) so the PR's base is reachable" >&2
  else
    echo "gate: error: no merge base of $BASE_SHA and HEAD" >&2
  fi
  exit 2
fi
out=target/gate/comment
rm -rf "$out" && mkdir -p "$out"
pin=()
[ -n "${BENCH_TASKSET:-}" ] && pin=(taskset -c "$BENCH_TASKSET")
suites=()  # BENCH_SUITES=a,b: these suites only (as in ci-bench.sh); default [gate].suites
if [ -n "${BENCH_SUITES:-}" ]; then
  IFS=, read -ra names <<< "$BENCH_SUITES"
  for name in "${names[@]}"; do suites+=(--suite "$name"); done
fi
shard=()  # BENCH_SHARD=K/N: this job's shard of .github/gate-shards.json (pr-gate.yml's matrix)
if [ -n "${BENCH_SHARD:-}" ]; then shard=(--shard "$BENCH_SHARD" --shard-plan .github/gate-shards.json); fi
prebuilt=()  # BENCH_PREBUILT=FILE: the builds its size's build job made (gate-build-ci), not built again
if [ -n "${BENCH_PREBUILT:-}" ]; then prebuilt=(--prebuilt "$BENCH_PREBUILT"); fi
if [ "${1-}" = "--" ]; then shift; fi  # `cargo make TASK -- ARGS` hands the -- on
# the rest are extra gate flags, e.g. cargo make gate-ci -- --suite python
# --idle-sudo: idle CPUs poll while the gate measures, where the runner's sudo allows (idle.py)
"${pin[@]}" uv run --frozen benchtrack gate --base "$base" --head HEAD --out "$out" --idle-sudo "${suites[@]}" "${shard[@]}" "${prebuilt[@]}" "$@"
rc=$?
[ -f "$out/gate.md" ] && [ -n "${GITHUB_STEP_SUMMARY:-}" ] && cat "$out/gate.md" >> "$GITHUB_STEP_SUMMARY"
# The PR number as the event gave it (pr-comment.yml still finds the PR from its own event).
if [ -n "${GITHUB_EVENT_PATH:-}" ] && [ -f "$GITHUB_EVENT_PATH" ]; then
  uv run --frozen python -c 'import json,sys; e=json.load(open(sys.argv[1])); print(json.dumps({"number": e["pull_request"]["number"]}))' \
    "$GITHUB_EVENT_PATH" > "$out/pr.json"
fi
exit "$rc"
