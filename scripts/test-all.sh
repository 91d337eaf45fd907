#!/usr/bin/env bash
# `cargo make test`: every part's tests (and the lint gates), one summary, non-zero if any failed.
# A part is a cargo-make task named test-<part>, defined in that part's tasks.toml.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/tools.sh
. scripts/tools.sh

parts=(lint rust python perl tracker dashboard)
passed=(); failed=(); times=()
for part in "${parts[@]}"; do
  task="test-$part"; [ "$part" = lint ] && task=lint
  printf '\n======== %s (cargo make %s)\n' "$part" "$task"
  start=$SECONDS
  if cargo make "$task" </dev/null; then passed+=("$part"); status=ok
  else failed+=("$part"); status=FAILED; fi
  times+=("$(printf '%-10s %-7s %4ds' "$part" "$status" $((SECONDS - start)))")
done

printf '\n======== summary\n'
printf '%s\n' "${times[@]}"
[ ${#failed[@]} -eq 0 ] || printf 'failed parts: %s\n' "${failed[*]}"
echo "parts: ${#passed[@]} passed, ${#failed[@]} failed"
[ ${#failed[@]} -eq 0 ]
