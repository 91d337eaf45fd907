#!/usr/bin/env bash
# A no-change PR's gate as its CI job runs it, with the caches pr-gate.yml restores, under a
# stated condition, for tracker/GATE.md's no-change figure (recordings/README.md lists each):
#
#   bash tracker/bench/nochange-gate.sh quiet|cotenant OUT.gate.json [OLDER]
#
# 1. Primes target/gate/cache/base/cargo with the Rust build of OLDER (default HEAD~3): the
#    cache's restore-keys restore an earlier base's target dir, whose workspace crates cargo
#    compiles again (a fresh checkout's sources are newer than them) and whose registry crates
#    it keeps. (A three-round gate of `rust` that measures nothing builds it.)
# 2. Removes the gate's other caches: CI restores only the base's target dir, ~/.cargo's
#    registry and uv's cache (both warm here), not the head's target dir or the venvs.
# 3. Runs the whole gate of HEAD against a no-change head (HEAD plus one comment line in a
#    Python module, a commit of its own), as CI does: OUT's `seconds` is the no-change PR's
#    time from its first build to its verdict, `rounds.build_seconds` its builds' (`evaluate
#    --build-seconds` replays the recordings with them).
# cotenant: a busy loop (one core, unpinned) runs beside steps 2-3, as record-condition.sh's.
set -euo pipefail
cd "$(dirname "$0")/../.."
usage="usage: nochange-gate.sh quiet|cotenant OUT.gate.json [OLDER]"
condition=${1:?$usage}
out=${2:?$usage}
older=${3:-HEAD~3}
case $condition in
  quiet | cotenant) ;;
  *) echo "nochange-gate: expected quiet or cotenant, got $condition" >&2; exit 2 ;;
esac
base=$(git rev-parse HEAD)
older=$(git rev-parse "$older")
tmp=$(mktemp -d)
loop=
# One cleanup for every exit: the co-tenant loop (when started), the head's worktree, the temp dir.
cleanup() {
  [ -z "$loop" ] || kill "$loop" 2>/dev/null || true
  git worktree remove --force "$tmp/head" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
git worktree add -q --detach "$tmp/head" "$base"
echo "# a no-change PR: one comment line" >> "$tmp/head/python/src/asyncio_patterns/params.py"
git -C "$tmp/head" -c user.name=nochange-gate -c user.email=nochange-gate@localhost \
  commit -q -am "no-change head: one comment line"
head=$(git -C "$tmp/head" rev-parse HEAD)
rm -rf target/gate/cache/base target/gate/cache/head target/gate/cache/shared
echo "nochange-gate: priming the base's target dir with $older's builds" >&2
uv run --frozen benchtrack gate --base "$older" --head "$older" --suite rust --rounds 3 \
  --filter '^nothing$' --out "$tmp/prime" >/dev/null 2>&1 || true
[ -d target/gate/cache/base/cargo ] || { echo "nochange-gate: priming built no target dir" >&2; exit 3; }
find target/gate/cache/base -mindepth 1 -maxdepth 1 ! -name cargo -exec rm -rf {} +
rm -rf target/gate/cache/head target/gate/cache/shared
if [ "$condition" = cotenant ]; then
  python3 -c 'while True: pass' &
  loop=$!
fi
# The gate's exit code is part of the figure (0: the no-change PR passed), so it is printed.
rc=0
uv run --frozen benchtrack gate --base "$base" --head "$head" --out "$tmp/gate" || rc=$?
cp "$tmp/gate/gate.json" "$out"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print("exit", sys.argv[2], "seconds", round(d["seconds"], 1), "build_seconds", d["rounds"]["build_seconds"])' "$out" "$rc"
