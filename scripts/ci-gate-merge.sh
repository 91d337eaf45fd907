#!/usr/bin/env bash
# CI merge job of a sharded PR gate: this runner size's shard verdicts (downloaded into
# target/gate/shards/, one directory a shard, or the files themselves when one shard uploaded)
# made one gate.json and gate.md in target/gate/comment/ for pr-comment.yml, the Markdown to
# the job summary; exits as the gate does (1 on a regression, 3 when a shard gave no verdict).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/tools.sh
. scripts/tools.sh

out=target/gate/comment
rm -rf "$out" && mkdir -p "$out"
mapfile -t found < <(find target/gate/shards -name gate.json 2>/dev/null | sort)
summary=()
[ -n "${GITHUB_STEP_SUMMARY:-}" ] && summary=(--summary "$GITHUB_STEP_SUMMARY")
if [ "${#found[@]}" -eq 0 ]; then
  echo "gate-merge: no shard of this runner size gave a verdict (see the gate jobs)" >&2
  exit 3
fi
# the shards' wall-time profile diffs (their diagnoses' files, which the merged gate.json names)
# beside the merged gate.json: regular files only, as the shards' gates wrote them
mkdir -p "$out/wall-profiles"
find target/gate/shards -path '*/wall-profiles/*' -type f \( -name '*.txt' -o -name '*.json' \) \
  -exec cp -t "$out/wall-profiles/" {} +
uv run --frozen benchtrack gate-merge --plan .github/gate-shards.json --out "$out" \
  "${summary[@]}" "${found[@]}"
