#!/usr/bin/env bash
# Every lint gate; runs them all, then fails if any failed (so one run shows every problem).
#   scripts/lint.sh                   every gate, on this repository
#   scripts/lint.sh --actions ROOT    only the workflow and action gates, on the tree at ROOT
#                                     (tracker/tests/test_lint_actions.py runs it on a copy)
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here" || exit 2
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

# The workflows and every composite action (the adopters' action.yml, .github/actions/*):
# actionlint (shellcheck on every run:), the composite actions' steps as workflows
# (scripts/lint_composite.py), and zizmor: workflow security (credential leaks, dangerous
# triggers, template injection such as an input in a run:), offline, so no token is read;
# medium severity and up fails, and every ignore says why.
actions_gates() {
  local root=$1
  # shellcheck disable=SC2016 # the inner script expands its own arguments
  gate "actionlint"    bash -c 'cd "$1" && uv run --project "$2" --frozen actionlint -no-color' _ "$root" "$here"
  gate "actionlint (composite actions)" uv run --frozen python scripts/lint_composite.py "$root"
  local inputs=()
  [ -f "$root/action.yml" ] && inputs+=("$root/action.yml")
  inputs+=("$root/.github/")
  gate "zizmor"        uv run --frozen zizmor --offline --no-progress --color never --persona auditor --min-severity medium "${inputs[@]}"
}
if [ "${1-}" = "--actions" ]; then
  actions_gates "$(cd "${2:?--actions takes the tree to lint}" && pwd)"
  echo
  if [ ${#failed[@]} -gt 0 ]; then echo "lint: FAILED: ${failed[*]}"; exit 1; fi
  echo "lint: workflow and action gates passed"; exit 0
fi

gate "cargo fmt"     cargo fmt --manifest-path rust/Cargo.toml --all -- --check
gate "cargo clippy"  cargo clippy --manifest-path rust/Cargo.toml --workspace --all-targets --locked -- -D warnings
gate "ruff check"    uv run --frozen ruff check .
gate "ruff format"   uv run --frozen ruff format --check .
# uv run puts the locked shellcheck on PATH for actionlint
actions_gates "$here"
mapfile -t scripts < <(shell_files)
gate "shellcheck"    uv run --frozen shellcheck -x "${scripts[@]}"

echo
if [ ${#failed[@]} -gt 0 ]; then echo "lint: FAILED: ${failed[*]}"; exit 1; fi
echo "lint: all gates passed"
