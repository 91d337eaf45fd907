"""The dashboard ships inside the package: `benchtrack site` needs nothing but benchtrack itself.

The chart library is vendored (benchtrack/dashboard/vendor/); its provenance, uplot.json, must
name the version and sha512 integrity that gh-pages/package-lock.json locks, and every vendored
file must equal its file in that very npm tarball (found by its integrity in npm's cache, where
`npm ci` or `npm cache add` puts it: the cache is content-addressed by that digest)."""

from __future__ import annotations

import base64
import hashlib
import io
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import orjson
import pytest

from benchtrack.dashboard.site import default_source

REPO = Path(__file__).resolve().parents[2]
VENDOR = default_source() / "vendor"
MANIFEST = orjson.loads((VENDOR / "uplot.json").read_bytes())


def _npm_cache() -> Path:
    npm = shutil.which("npm")
    if npm is None:
        pytest.fail("npm is needed to check the vendored chart library (apt-get install npm)")
    out = subprocess.run([npm, "config", "get", "cache"], capture_output=True, text=True)
    return Path(out.stdout.strip())


def _tarball(integrity: str) -> bytes:
    """The npm tarball with this sha512 integrity, from npm's content-addressed cache."""
    algorithm, _, digest = integrity.partition("-")
    assert algorithm == "sha512", integrity
    hexdigest = base64.b64decode(digest).hex()
    cache = _npm_cache()
    path = cache / "_cacache/content-v2/sha512" / hexdigest[:2] / hexdigest[2:4] / hexdigest[4:]
    if not path.is_file():  # not fetched on this machine yet: npm's own client fetches it
        spec = f"{MANIFEST['package']}@{MANIFEST['version']}"
        subprocess.run(["npm", "cache", "add", spec], check=True, capture_output=True)
    data = path.read_bytes()
    assert hashlib.sha512(data).hexdigest() == hexdigest, "npm's cache holds another tarball"
    return data


def test_the_vendored_library_is_the_locked_one() -> None:
    lock = orjson.loads((REPO / "gh-pages/package-lock.json").read_bytes())
    locked = lock["packages"][f"node_modules/{MANIFEST['package']}"]
    assert (MANIFEST["version"], MANIFEST["integrity"]) == (locked["version"], locked["integrity"])
    with tarfile.open(fileobj=io.BytesIO(_tarball(locked["integrity"]))) as tar:
        for name, member in MANIFEST["files"].items():
            original = tar.extractfile(member)
            assert original is not None, member
            assert (VENDOR / name).read_bytes() == original.read(), name
    assert sorted(p.name for p in VENDOR.iterdir()) == sorted([*MANIFEST["files"], "uplot.json"])
    banner = (VENDOR / "uPlot.iife.min.js").read_bytes()[:80].decode()
    assert f"(v{MANIFEST['version']})" in banner


def test_site_works_from_a_copy_of_the_package_alone(tmp_path: Path) -> None:
    """benchtrack copied out of this checkout (no gh-pages/, no node_modules) builds a site."""
    from benchtrack.lab import synthetic

    package = Path(__file__).resolve().parents[1] / "src/benchtrack"
    installed = tmp_path / "site-packages"
    shutil.copytree(package, installed / "benchtrack", ignore=shutil.ignore_patterns("__pycache__"))
    history = tmp_path / "history"
    synthetic.history(history, commits=3, benches=4, runners=(2,))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); from benchtrack.cli import main; "
        "sys.exit(main(['site', sys.argv[2], '--out', 'out']))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(installed), str(history)],
        cwd=elsewhere,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    out = elsewhere / "out"
    assert (out / "index.html").is_file()
    for name in MANIFEST["files"]:
        assert (out / "dashboard/vendor" / name).read_bytes() == (VENDOR / name).read_bytes()
    assert not (out / "dashboard/vendor/uplot.json").exists()
    assert sorted(p.name for p in (out / "dashboard/js").iterdir()) == sorted(
        p.name for p in (default_source() / "js").iterdir()
    )
