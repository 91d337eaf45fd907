"""A PR that changes only paths that cannot affect performance is not measured, and passes.

The real `benchtrack gate` on a real git repository whose one suite cannot build: a head that is
skipped exits 0 with the one-line verdict (and the PR comment says it in one line); a head that is
measured tries to build and fails with exit 3, which is how these tests see the decision was "no"
without running a benchmark.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchtrack.cli import main
from benchtrack.gate import config, skip

# The suite's build fails at once: any measurement attempt ends in exit 3 within a second.
CONFIG = """\
[gate]
rounds = 3
{skip}

[bench.suites.never]
adapter = "perl"
raw = "out.json"
build = "echo cannot build >&2; exit 9"
command = "true"

[bench.suites.never.gate]
timeout = 30
"""
LINE = "skipped: only paths that cannot affect performance changed ({} files)"


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com"}
    env |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env
    ).stdout.strip()


def commit(repo: Path, message: str, files: dict[str, str | None]) -> None:
    for name, text in files.items():
        path = repo / name
        if text is None:
            git(repo, "rm", "-q", name)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        git(repo, "add", name)
    git(repo, "commit", "-q", "-m", message)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    base = {
        "benchtrack.toml": CONFIG.format(skip=""),
        ".gitignore": "/target/\n",
        "bench.pl": "print 1;\n",
        "README.md": "# hello\n",
        "docs/guide.md": "a guide\n",
        "docs/data/input.txt": "read by a benchmark\n",
    }
    commit(repo, "base", base)
    return repo


def branch(repo: Path, name: str, files: dict[str, str | None]) -> None:
    git(repo, "checkout", "-q", "-b", name, "main")
    commit(repo, name, files)
    git(repo, "checkout", "-q", "main")


def gate(repo: Path, head: str, *extra: str) -> tuple[int, str, Path]:
    out = repo / "target" / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "benchtrack.cli", "gate", "--base", "main", "--head", head,
         "--out", str(out), *extra],
        cwd=repo, capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, "NO_COLOR": "1", "COLUMNS": "200"},
    )  # fmt: skip
    return proc.returncode, proc.stdout + proc.stderr, out


def test_docs_only_head_is_skipped_with_a_one_line_verdict_and_comment(repo, tmp_path):
    branch(repo, "docs", {"README.md": "# hi\n", "docs/guide.md": "more\n", "docs/new.rst": "x\n"})
    code, text, out = gate(repo, "docs")
    assert code == 0, text
    assert LINE.format(3) in text
    doc = json.loads((out / "gate.json").read_text())
    assert doc["exit_code"] == 0 and doc["benchmarks"] == []
    assert doc["skipped"] == {"reason": skip.REASON, "files": 3}
    md = (out / "gate.md").read_text().splitlines()
    assert len(md) == 2 and LINE.format(3) in md[1]  # the comment marker, then the one line
    assert not (repo / "target" / "gate" / "cache").exists()  # no side checked out or built

    # pr-comment.yml: every runner size's artifact skipped, said once, in one line.
    artifacts = tmp_path / "artifacts"
    for key in ("ubuntu-latest-1cpu", "ubuntu-latest-2cpu"):
        (artifacts / f"gate-{key}").mkdir(parents=True)
        (artifacts / f"gate-{key}" / "gate.json").write_bytes((out / "gate.json").read_bytes())
    comment = tmp_path / "comment.md"
    assert main(["gate-comment", "--artifacts", str(artifacts), "--out", str(comment)]) == 0
    said = [ln for ln in comment.read_text().splitlines() if "skipped" in ln]
    assert len(said) == 1 and LINE.format(3) in said[0] and "every runner size" in said[0]
    assert "<details" not in comment.read_text()


@pytest.mark.parametrize(
    "files",
    [
        {"README.md": "# hi\n", "bench.pl": "print 2;\n"},  # docs and code
        {"bench.pl": None, "docs/bench.pl": "print 1;\n"},  # code moved into docs/: a change
    ],
    ids=["docs-and-code", "code-renamed-into-docs"],
)
def test_a_head_that_changes_code_is_measured(repo, files):
    branch(repo, "code", files)
    assert skip.unaffected(repo, "main", "code", skip.DEFAULT) == 0
    code, text, out = gate(repo, "code")
    assert code == 3, text  # it tried to build: measured, not skipped
    assert "cannot build" in text
    assert "skipped" not in json.loads((out / "gate.json").read_text())


def test_base_equal_to_head_is_measured_not_skipped(repo):
    code, text, _ = gate(repo, "main")
    assert code == 3, text


def test_skip_paths_from_config_replace_the_default(repo):
    # Data a benchmark reads sits under docs/: taken back out with a negated glob.
    globs = 'skip_paths = ["*.md", "docs/**", "!docs/data/**"]'
    commit(repo, "config", {"benchtrack.toml": CONFIG.format(skip=globs)})
    branch(repo, "data", {"docs/guide.md": "more\n", "docs/data/input.txt": "other\n"})
    code, text, _ = gate(repo, "data")
    assert code == 3, text
    branch(repo, "guide", {"docs/guide.md": "more\n"})
    code, text, _ = gate(repo, "guide")
    assert code == 0 and LINE.format(1).replace("files", "file") in text, text

    commit(repo, "measure all", {"benchtrack.toml": CONFIG.format(skip="skip_paths = []")})
    branch(repo, "readme", {"README.md": "# hi\n"})
    code, text, _ = gate(repo, "readme")
    assert code == 3, text


@pytest.mark.parametrize(
    ("value", "field"),
    [
        ('"docs/**"', "gate.skip_paths"),
        ("[3]", "gate.skip_paths[0]"),
        ('["*.md", ""]', "gate.skip_paths[1]"),
        ('["# a comment"]', "gate.skip_paths[0]"),
        ('[" docs/**"]', "gate.skip_paths[0]"),
        ('["docs/[a"]', "gate.skip_paths[0]"),  # an unclosed bracket: git ignores it
        ("['docs\\']", "gate.skip_paths[0]"),  # a trailing backslash: wildmatch refuses it
    ],
)
def test_bad_skip_paths_are_exit_2_naming_the_file_and_field(repo, value, field):
    (repo / "benchtrack.toml").write_text(CONFIG.format(skip=f"skip_paths = {value}"))
    code, text, out = gate(repo, "main")
    assert code == 2, text
    assert f"benchtrack.toml: {field}: expected" in text and "Traceback" not in text
    assert not out.exists()  # nothing written


def test_the_default_and_this_repositorys_globs_are_valid():
    minimal = {"s": {"adapter": "perl", "command": "x", "raw": "r"}}
    assert config.parse({"bench": {"suites": minimal}}, "t").skip_paths
    ours = config.load(Path(__file__).resolve().parents[2] / config.CONFIG_NAME).skip_paths
    assert set(skip.DEFAULT) <= set(ours)


def test_a_bad_bench_filter_in_the_environment_is_exit_2_naming_it(repo, monkeypatch):
    # BENCH_FILTER is the gate's --filter when no --filter is given (CI's jobs set it)
    monkeypatch.setenv("BENCH_FILTER", "sleep/(gather")
    code, text, out = gate(repo, "main")
    assert code == 2 and "BENCH_FILTER: expected a regular expression" in text, text
    assert "Traceback" not in text and not out.exists()
    code, text, _ = gate(repo, "main", "--filter", "[x")  # --filter wins, and is named
    assert code == 2 and "--filter: expected a regular expression" in text, text
