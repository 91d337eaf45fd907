# Sourced by the task scripts: puts the tools `setup` installs on PATH (uv goes to ~/.local/bin,
# which a fresh login's PATH often lacks).
# shellcheck shell=bash
gobin=$(go env GOBIN 2>/dev/null || true)
[ -n "$gobin" ] || gobin="$(go env GOPATH 2>/dev/null)/bin"
export PATH="$HOME/.local/bin:$HOME/.cargo/bin:$gobin:$PATH"
export UV_PYTHON_DOWNLOADS=never
