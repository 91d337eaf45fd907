#!/usr/bin/env bash
# The gate's Rust build for one side: `cargo <args>` into this side's $CARGO_TARGET_DIR, which
# starts, when it does not exist yet, as a copy of the base side's (built just before: the gate
# builds base first). The registry crates are then fresh and only the workspace's own crates are
# compiled again: on a fresh runner that halves the two sides' build time (tracker/GATE.md).
#
# The copy's workspace artifacts are the base's, and cargo judges a workspace crate fresh by
# comparing its sources' mtimes with the artifacts' (its dep-info paths are relative to the
# package root, so they point at this side's sources): this side's checkout, made before the
# base was built, would look older and the base's binaries would pass for ours. So every
# package named with -p is cleaned from the copy before the build.
#
# Args: cargo's own (e.g. bench --manifest-path rust/Cargo.toml --locked -p patterns --no-run).
# Env (set by the gate): CARGO_TARGET_DIR, GATE_SIDE, GATE_BASE_CACHE; the copy comes from
# $GATE_BASE_CACHE/<the target dir's name>.
set -euo pipefail
target=${CARGO_TARGET_DIR:?gate-cargo-build: CARGO_TARGET_DIR is not set}
seed=${GATE_BASE_CACHE:+$GATE_BASE_CACHE/$(basename "$target")}
if [ "${GATE_SIDE:-}" != base ] && [ ! -e "$target" ] && [ -n "$seed" ] && [ -d "$seed" ]; then
  echo "gate-cargo-build: $target starts as a copy of $seed"
  mkdir -p "$(dirname "$target")"
  rm -rf "$target.seeding"
  cp -a --reflink=auto "$seed" "$target.seeding"
  # `cargo clean -p` takes the manifest and the packages; the other build flags are not its.
  clean=()
  args=("$@")
  for ((i = 0; i < ${#args[@]}; i++)); do
    case ${args[i]} in
      -p | --package | --manifest-path) clean+=("${args[i]}" "${args[i + 1]}"); i=$((i + 1)) ;;
      --release | --locked | --frozen | --offline) clean+=("${args[i]}") ;;
      bench) clean+=(--release) ;;  # bench builds use the release directory
    esac
  done
  CARGO_TARGET_DIR=$target.seeding cargo clean "${clean[@]}"
  mv "$target.seeding" "$target"  # only a whole, cleaned copy takes the target dir's name
fi
exec cargo "$@"
