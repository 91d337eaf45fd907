#!/usr/bin/env bash
# The Rust suite's bench binaries, built once (`cargo bench --no-run`): a line "NAME PATH" each,
# read from cargo's JSON messages. Used by bench-rust-count.sh and tracker/bench/count-cost.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo bench --manifest-path rust/Cargo.toml --locked -p patterns --no-run --message-format=json \
  | python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and "bench" in m["target"]["kind"]:
        print(m["target"]["name"], m["executable"])
'
