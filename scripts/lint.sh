#!/usr/bin/env bash
# Every lint gate; runs them all, then fails if any failed (so one run shows every problem).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
# shellcheck source=scripts/tools.sh
. scripts/tools.sh

failed=()
gate() {
  local name=$1; shift
  printf '\n== lint: %s\n' "$name"
  if "$@"; then printf 'ok: %s\n' "$name"; else printf 'FAILED: %s\n' "$name"; failed+=("$name"); fi
}
shell_files() {
  git ls-files -co --exclude-standard -- '*.sh' '.ci/run' | while IFS= read -r f; do [ -f "$f" ] && echo "$f"; done
}

gate "cargo fmt"     cargo fmt --manifest-path rust/Cargo.toml --all -- --check
gate "cargo clippy"  cargo clippy --manifest-path rust/Cargo.toml --workspace --all-targets --locked -- -D warnings
gate "ruff check"    uv run --frozen ruff check .
gate "ruff format"   uv run --frozen ruff format --check .
# actionlint runs shellcheck on every run: step; uv run puts the locked shellcheck on PATH.
gate "actionlint"    uv run --frozen actionlint -no-color
# zizmor: workflow security (credential leaks, dangerous triggers, injection); offline, so no
# token is read; medium severity and up fails, and every ignore in .github/ says why.
gate "zizmor"        uv run --frozen zizmor --offline --no-progress --color never --persona auditor --min-severity medium .github/
mapfile -t scripts < <(shell_files)
gate "shellcheck"    uv run --frozen shellcheck -x "${scripts[@]}"

echo
if [ ${#failed[@]} -gt 0 ]; then echo "lint: FAILED: ${failed[*]}"; exit 1; fi
echo "lint: all gates passed"
