#!/usr/bin/env bash
# A public repository tried as an adopter tries benchtrack (docs/adopting.md, "Tried on public
# repositories"): `benchtrack init`, its output committed, then bench-local, the gate on a PR
# that changes nothing and on one that slows one function (tracker/bench/adopt/NAME-*.patch),
# and A/A recordings of init's gate:
#
#   bash tracker/bench/adopt-trial.sh CHECKOUT NAME OUTDIR [RECORDINGS] [ROUNDS]
#
# CHECKOUT: a clone of the repository at the commit docs/adopting.md names, on a branch `main`
# (this script commits on it and makes the branches `nochange` and `slower`); NAME: the patches'
# prefix (xxhash, bidict, useg). Writes OUTDIR/{bench-local,nochange,slower}.log, the gates'
# gate.json under OUTDIR/{nochange,slower}/, and RECORDINGS (default 3) recordings of ROUNDS
# (default 8) rounds, OUTDIR/aa-adopt-NAME-qI.json; runs.txt there has each command's exit code,
# seconds and load average (sampled every 5 s). Run it on an otherwise idle machine.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
usage="usage: adopt-trial.sh CHECKOUT NAME OUTDIR [RECORDINGS] [ROUNDS]"
checkout=${1:?$usage} name=${2:?$usage} out=${3:?$usage}
recordings=${4:-3} rounds=${5:-8}
for kind in nochange slower; do
  [ -f "$here/adopt/$name-$kind.patch" ] || {
    echo "adopt-trial: $here/adopt/$name-$kind.patch: no such patch" >&2
    exit 2
  }
done
bt=${BENCHTRACK:-$(command -v benchtrack)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
cd "$checkout"
commit() { git -c user.name=trial -c user.email=trial@localhost commit -qm "$1"; }

timed() {  # timed LOG CMD...: CMD's output in LOG, a line in runs.txt; its exit code kept
  local log=$1 start rc=0 sampler
  shift
  (while :; do cut -d' ' -f1 /proc/loadavg; sleep 5; done) >"$log.load" &
  sampler=$!
  start=$(date +%s)
  nice -n 19 "$@" >"$log" 2>"$log.err" || rc=$?
  kill "$sampler"
  echo "rc=$rc $(($(date +%s) - start)) s load $(sort -n "$log.load" | sed -n '1p;$p' | paste -sd-) : $*" \
    | tee -a "$out/runs.txt"
}

git checkout -q main
"$bt" init --action "${BENCHTRACK_ACTION:-benchtrack/benchtrack@main}"
git add -A && commit "benchtrack init"
for kind in nochange slower; do
  git checkout -q -b "$kind" main
  git apply "$here/adopt/$name-$kind.patch"
  git add -A && commit "$kind"
done
git checkout -q main
timed "$out/bench-local.log" "$bt" bench-local
for kind in nochange slower; do
  timed "$out/$kind.log" "$bt" gate --base main --head "$kind" --json --out "$out/$kind"
done
for i in $(seq "$recordings"); do
  timed "$out/aa-$i.log" "$bt" record-aa --rounds "$rounds" --out "$out/aa-adopt-$name-q$i.json"
done
