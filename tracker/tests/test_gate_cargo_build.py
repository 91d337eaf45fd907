"""scripts/gate-cargo-build.sh: a head's Rust build that starts from a copy of the base's target
dir builds the head's code, with real cargo on a tiny crate in a real git repository whose two
worktrees are made before either build (as the gate makes them)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "gate-cargo-build.sh"
ARGS = ["build", "--release", "--locked", "-p", "tiny"]

pytestmark = pytest.mark.skipif(shutil.which("cargo") is None, reason="needs cargo")


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=t@example.invalid", "-c", "user.name=t", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def sides(tmp_path: Path) -> dict[str, Path]:
    """Worktrees `base` (prints "base") and `head` (prints "head"), both checked out first."""
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / "Cargo.toml").write_text(
        '[package]\nname = "tiny"\nversion = "0.1.0"\nedition = "2021"\n'
    )
    (repo / "Cargo.lock").write_text(
        'version = 4\n\n[[package]]\nname = "tiny"\nversion = "0.1.0"\n'
    )
    (repo / "src" / "main.rs").write_text('fn main() { println!("base"); }\n')
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "base")
    (repo / "src" / "main.rs").write_text('fn main() { println!("head"); }\n')
    _git(repo, "commit", "-qam", "head")
    for side, ref in (("base", "HEAD~1"), ("head", "HEAD")):
        _git(repo, "worktree", "add", "-q", "--detach", str(tmp_path / side), ref)
    return {"base": tmp_path / "base", "head": tmp_path / "head", "cache": tmp_path / "cache"}


def _build(sides: dict[str, Path], side: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "GATE_SIDE": side,
        "GATE_BASE_CACHE": str(sides["cache"] / "base"),
        "CARGO_TARGET_DIR": str(sides["cache"] / side / "cargo"),
    }
    return subprocess.run(
        ["bash", str(SCRIPT), *ARGS],
        cwd=sides[side],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )


def _runs(target: Path) -> str:
    return subprocess.run(
        [str(target / "release" / "tiny")], capture_output=True, text=True, check=True
    ).stdout.strip()


def test_a_head_seeded_from_the_base_builds_the_heads_code(sides: dict[str, Path]) -> None:
    assert "copy" not in _build(sides, "base").stdout  # the base never copies
    seeded = _build(sides, "head")
    assert "starts as a copy of" in seeded.stdout
    assert _runs(sides["cache"] / "base" / "cargo") == "base"
    assert _runs(sides["cache"] / "head" / "cargo") == "head"
    assert not (sides["cache"] / "head" / "cargo.seeding").exists()
    # A target dir that exists is the side's own: never replaced by another copy.
    assert "copy" not in _build(sides, "head").stdout
    assert _runs(sides["cache"] / "head" / "cargo") == "head"


def test_without_the_clean_cargo_takes_the_copied_binary_for_the_heads(
    sides: dict[str, Path],
) -> None:
    """Why the script cleans: a plain copy makes cargo keep the base's binary for the head."""
    _build(sides, "base")
    plain = sides["cache"] / "plain"
    shutil.copytree(sides["cache"] / "base" / "cargo", plain, symlinks=True)
    subprocess.run(
        ["cargo", *ARGS, "-q"],
        cwd=sides["head"],
        env={**os.environ, "CARGO_TARGET_DIR": str(plain)},
        check=True,
    )
    assert _runs(plain) == "base"
