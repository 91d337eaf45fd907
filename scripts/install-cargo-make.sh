#!/usr/bin/env bash
# Install the pinned cargo-make once per machine (about 4 minutes from source); skip when present.
set -euo pipefail
CARGO_MAKE_VERSION=0.37.24
export PATH="$HOME/.cargo/bin:$PATH"
if cargo make --version 2>/dev/null | grep -qx "cargo-make $CARGO_MAKE_VERSION"; then
  exit 0
fi
echo "installing cargo-make $CARGO_MAKE_VERSION (once per machine)"
cargo install --locked --quiet cargo-make --version "$CARGO_MAKE_VERSION"
