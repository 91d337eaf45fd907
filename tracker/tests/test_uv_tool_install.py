"""The install command docs/adopting.md gives, run as written against a clone of this repository:
`uv tool install PATH/TO/benchtrack/tracker` into a scratch tool directory, then the installed
`benchtrack` (its --help, and `init --dry-run` in a Go module, the doc's next command). The
checkout's root is a virtual uv workspace, which `uv tool install` cannot install (issue 48).
Dependencies come from PyPI or uv's cache (the tracker pins each in its pyproject.toml)."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs/adopting.md"
PLACEHOLDER = "PATH/TO/benchtrack"  # the doc's name for a checkout of this repository


def documented_install() -> list[str]:
    """The one `uv tool install` command line of the doc's shell blocks."""
    blocks = re.findall(r"^```sh\n(.*?)^```$", DOC.read_text(), re.MULTILINE | re.DOTALL)
    lines = [x for b in blocks for x in b.splitlines() if x.startswith("uv tool install ")]
    assert len(lines) == 1, f"one `uv tool install` line in a ```sh block of {DOC.name}: {lines}"
    return shlex.split(lines[0])


def run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"{shlex.join(args)}:\n{done.stdout}\n{done.stderr}"
    return done


def test_the_documented_install_command_installs_a_working_benchtrack(tmp_path):
    command = documented_install()
    assert any(PLACEHOLDER in arg for arg in command), command
    clone = tmp_path / "benchtrack"
    # a checkout as a user has one: this commit, no ignored files (no .venv, no build output)
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True, timeout=300)
    tools, bin_dir = tmp_path / "tools", tmp_path / "bin"
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    env |= {"UV_TOOL_DIR": str(tools), "UV_TOOL_BIN_DIR": str(bin_dir), "NO_COLOR": "1"}
    run([arg.replace(PLACEHOLDER, str(clone)) for arg in command], tmp_path, env)

    benchtrack = bin_dir / "benchtrack"
    assert benchtrack.is_file()
    assert run([str(benchtrack), "--help"], tmp_path, env).stdout.startswith("usage: benchtrack")
    module = tmp_path / "module"  # the doc's example: a Go module with one benchmark
    module.mkdir()
    (module / "go.mod").write_text("module example.com/sum\n\ngo 1.21\n")
    (module / "sum_test.go").write_text(
        'package sum\n\nimport "testing"\n\nfunc BenchmarkSum(b *testing.B) {}\n'
    )
    init = [str(benchtrack), "init", "--dry-run", "--action", "OWNER/benchtrack@COMMIT"]
    out = run(init, module, env).stdout
    assert "# --- benchtrack.toml\n" in out and "[bench.suites.go]" in out
