# Sourced by scripts/bench-<suite>-count.sh: the arguments and places every count script shares.
# Sets `iters` (--iters K, default 3), `benchtrack` (an array: $BENCHTRACK, which the gate sets to
# its own tracker, else the locked one) and `out` (target/bench/raw/<suite>-instructions, emptied).
# shellcheck shell=bash
# shellcheck disable=SC2034  # iters, benchtrack, out: for the script that sources this
count_args() {
  local suite=$1; shift
  if [ "${1-}" = "--" ]; then shift; fi
  iters=3
  if [ "${1-}" = "--iters" ]; then iters=${2:?--iters takes a number}; shift 2; fi
  [ $# -eq 0 ] || { echo "bench-$suite-count: unexpected argument $1 (expected --iters K)" >&2; exit 2; }
  read -r -a benchtrack <<< "${BENCHTRACK:-uv run --frozen benchtrack}"
  out=target/bench/raw/$suite-instructions
  rm -rf "$out"
  mkdir -p "$out"
}
