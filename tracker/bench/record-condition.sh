#!/usr/bin/env bash
# One report recording of the gate as CI runs it, under a stated condition, for
# tracker/GATE.md's figures (tracker/bench/recordings/README.md lists each one made):
#
#   bash tracker/bench/record-condition.sh quiet|cotenant OUT.json [record-aa flags...]
#
# - cold builds: the recording's gate build caches are removed first, so its `build_seconds`
#   is what a CI job without caches pays (evaluate replays the time budget with it);
# - every suite `benchtrack.toml` gates, as many rounds as its screening and its confirmation
#   take together, all CPUs of this machine;
# - cotenant: a busy loop (one core, unpinned) runs beside it for the whole recording, started
#   before the builds and stopped after; quiet: nothing else is started (say in the README what
#   else ran: the recording's `load` has the machine's load average and busy/steal shares).
set -euo pipefail
cd "$(dirname "$0")/../.."
condition=${1:?usage: record-condition.sh quiet|cotenant OUT.json [record-aa flags...]}
out=${2:?usage: record-condition.sh quiet|cotenant OUT.json [record-aa flags...]}
shift 2
case $condition in
  quiet | cotenant) ;;
  *) echo "record-condition: expected quiet or cotenant, got $condition" >&2; exit 2 ;;
esac
# The screening's rounds and the confirmation's (evaluate draws the two from disjoint rounds).
rounds=$(uv run --frozen python -c 'from benchtrack.gate import config; from pathlib import Path
c = config.load(Path("benchtrack.toml")); print(c.all_rounds)')
rm -rf target/gate/cache/aa-*
loop=
if [ "$condition" = cotenant ]; then
  python3 -c 'while True: pass' &
  loop=$!
  trap 'kill "$loop" 2>/dev/null || true' EXIT
fi
uv run --frozen benchtrack record-aa --rounds "$rounds" --out "$out" "$@"
