#!/usr/bin/env bash
# One report recording of the gate as CI runs it, under a stated condition, for
# tracker/GATE.md's figures (tracker/bench/recordings/README.md lists each one made):
#
#   bash tracker/bench/record-condition.sh quiet|cotenant|uneven OUT.json [record-aa flags...]
#
# - cold builds: the recording's gate build caches are removed first, so its `build_seconds`
#   is what a CI job without caches pays (evaluate replays the time budget with it);
# - every suite `benchtrack.toml` gates, as many rounds as its screening and its longest
#   confirmation (`uneven_rounds`) take together, all CPUs of this machine;
# - cotenant: a busy loop (one core, unpinned) runs beside it for the whole recording, started
#   before the builds and stopped after; quiet: nothing else is started (say in the README what
#   else ran: the recording's `load` has the machine's load average and busy/steal shares);
# - uneven: an emulation of the VM state whose vCPUs run apart in speed: uneven_hog.pl under
#   SCHED_FIFO on the last CPU (the one the lockstep workers share) takes UNEVEN_SHARE (0.4) of
#   every UNEVEN_PERIOD seconds (0.001) there, so that CPU runs ~1.6x slower than the other
#   (0.3 of every 0.0002 s does too, in stalls of 60 µs, not 400: tracker/LAB.md, "How fast each
#   vCPU runs"; needs root or CAP_SYS_NICE); started before the builds, stopped after.
set -euo pipefail
cd "$(dirname "$0")/../.."
usage="usage: record-condition.sh quiet|cotenant|uneven OUT.json [record-aa flags...]"
condition=${1:?$usage}
out=${2:?$usage}
shift 2
case $condition in
  quiet | cotenant | uneven) ;;
  *) echo "record-condition: expected quiet, cotenant or uneven, got $condition" >&2; exit 2 ;;
esac
share=${UNEVEN_SHARE:-0.4}
period=${UNEVEN_PERIOD:-0.001}
if [ "$condition" = uneven ] && ! awk -v s="$share" 'BEGIN { exit !(s ~ /^[0-9.]+$/ && s > 0 && s < 0.95) }'; then
  echo "record-condition: UNEVEN_SHARE: expected a share of the CPU above 0 and below 0.95, got $share" >&2
  exit 2
fi
if [ "$condition" = uneven ] && ! awk -v p="$period" 'BEGIN { exit !(p ~ /^[0-9.]+$/ && p >= 0.0001 && p <= 0.1) }'; then
  echo "record-condition: UNEVEN_PERIOD: expected seconds from 0.0001 to 0.1, got $period" >&2
  exit 2
fi
# The screening's rounds and the confirmation's (evaluate draws the two from disjoint rounds).
rounds=$(uv run --frozen python -c 'from benchtrack.gate import config; from pathlib import Path
c = config.load(Path("benchtrack.toml")); print(c.all_rounds)')
loop=
trap '[ -z "$loop" ] || kill "$loop" 2>/dev/null || true' EXIT
if [ "$condition" = cotenant ]; then
  python3 -c 'while True: pass' &
  loop=$!
elif [ "$condition" = uneven ]; then
  last=$(uv run --frozen python -c 'from benchtrack.gate import placement; print(placement.one_cpu(None))')
  chrt -f 1 taskset -c "$last" perl tracker/bench/uneven_hog.pl "$period" "$share" &
  loop=$!
  sleep 0.5
  kill -0 "$loop" 2>/dev/null || { echo "record-condition: uneven: could not start the hog under SCHED_FIFO (root or CAP_SYS_NICE)" >&2; exit 2; }
fi
rm -rf target/gate/cache/aa-*
uv run --frozen benchtrack record-aa --rounds "$rounds" --out "$out" "$@"
