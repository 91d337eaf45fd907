"""scripts/setup.sh installs uv where the system Python is externally managed (PEP 668), as on
GitHub's ubuntu-24.04 image, where `python3 -m pip install` refuses: into a virtual environment
of its own, linked into ~/.local/bin. Run with Debian's /usr/bin/python3 (marked
EXTERNALLY-MANAGED), no uv on PATH and an empty HOME; uv comes from PyPI. A task run after
setup then finds uv though ~/.local/bin is not on that PATH (CI's fresh machine had it so)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SYSTEM_PYTHON = Path("/usr/bin/python3")


def externally_managed() -> bool:
    if not SYSTEM_PYTHON.is_file():
        return False
    stdlib = subprocess.run(
        [str(SYSTEM_PYTHON), "-c", "import sysconfig; print(sysconfig.get_path('stdlib'))"],
        capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    return (Path(stdlib) / "EXTERNALLY-MANAGED").is_file()


@pytest.mark.skipif(not externally_managed(), reason="needs an externally managed /usr/bin/python3")
def test_setup_installs_uv_beside_an_externally_managed_python(tmp_path):
    version = re.search(r"^UV_VERSION=(\S+)", (REPO / "scripts/setup.sh").read_text(), re.M)[1]
    home = tmp_path / "home"
    home.mkdir()
    keep = ("SSL_CERT_FILE", "SSL_CERT_DIR", "PIP_CERT", "REQUESTS_CA_BUNDLE", "UV_CACHE_DIR",
            "PIP_INDEX_URL", "PIP_FIND_LINKS", "HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY")  # fmt: skip
    env = {k: os.environ[k] for k in keep if k in os.environ}
    env |= {"HOME": str(home), "PATH": "/usr/bin:/bin", "UV_PYTHON_DOWNLOADS": "never"}
    env.setdefault("UV_CACHE_DIR", str(Path.home() / ".cache/uv"))
    assert subprocess.run(["sh", "-c", "command -v uv"], env=env).returncode != 0
    refused = subprocess.run(
        [str(SYSTEM_PYTHON), "-m", "pip", "install", f"uv=={version}"],
        env=env, capture_output=True, text=True,
    )  # fmt: skip
    assert refused.returncode != 0 and "externally-managed-environment" in refused.stderr

    done = subprocess.run(
        ["bash", "scripts/setup.sh", "--parts", "python"], cwd=REPO, env=env,
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"installing uv {version} from PyPI into" in done.stdout
    uv = home / ".local/bin/uv"
    got = subprocess.run([str(uv), "--version"], capture_output=True, text=True).stdout
    assert got.split()[:2] == ["uv", version]

    # cargo-make's [env] puts ~/.local/bin on PATH: a task that runs `uv` finds it.
    cargo_make = shutil.which("cargo-make")
    if cargo_make is None:
        pytest.skip("cargo-make is not installed")
    out = tmp_path / "github-output"
    task = subprocess.run(
        [cargo_make, "make", "ci-matrix"], cwd=REPO, env=env | {"GITHUB_OUTPUT": str(out)},
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert task.returncode == 0, task.stdout + task.stderr
    assert out.read_text().startswith("matrix=")
