"""The diagnosis wired into the real gate: a fixture git repository whose step worker
(fixtures/diagnose/worker.py) gains a 4 ms sleep a call in one commit, gated for real.

Why the verdicts cannot flip: the sleeping benchmark's call goes from ~1 ms of busy loop to that
plus a 4 ms sleep (≥ 5x the time, a loss of ≥ 75% whatever this machine's load, where the gate's
threshold is 5%), and the diagnosis names waiting when the sleep's off-CPU time is at least a
quarter of the run's loss (it is nearly all of it: a busy loop cannot sleep). The unchanged
benchmark does the same work on both sides: a regression of it would be a 5% loss at α = 1%.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_gate_skip import git  # a fixture repository's git, its author fixed

WORKER = Path(__file__).parent / "fixtures" / "diagnose" / "worker.py"

CONFIG = f"""\
[gate]
threshold = 0.05
alpha = 0.01
rounds = 5
looks = []

[bench.suites.diag]
adapter = "pytest"
command = "true"
raw = "target/raw.json"

[bench.suites.diag.gate]
adapter = "lockstep"
cpus = "one"
command = "{sys.executable} worker.py"
pairs = 10
pair_seconds = 0.2
min_pairs = 3
timeout = 120
"""


def commit(repo: Path, message: str, causes: str, comment: str = "") -> None:
    text = WORKER.read_text().replace("CAUSES: set[str] = set()", f"CAUSES: set[str] = {causes}")
    (repo / "worker.py").write_text(text + comment)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "benchtrack.toml").write_text(CONFIG)
    (repo / ".gitignore").write_text("/target/\n__pycache__/\n")
    commit(repo, "base", "set()")
    git(repo, "tag", "c1")
    commit(repo, "sleep 4 ms a call", '{"sleep"}')
    git(repo, "tag", "c2")
    commit(repo, "a comment", '{"sleep"}', "# a comment\n")
    git(repo, "tag", "c3")
    yield repo
    for side in ("base", "head"):  # a gate that failed half-way leaves its worktrees
        path = repo / "target" / "gate" / "worktrees" / side
        if path.exists():
            subprocess.run(["git", "-C", str(repo), "worktree", "remove", "--force", str(path)],
                           check=False, capture_output=True)  # fmt: skip
    shutil.rmtree(repo / "target", ignore_errors=True)


def gate(repo: Path, base: str, head: str) -> tuple[int, dict, str, str]:
    out = repo / "target" / "out"
    done = subprocess.run(
        [sys.executable, "-m", "benchtrack.cli", "gate", "--out", str(out), "--base", base,
         "--head", head, "--filter", "diag/(sleep|work)"],
        cwd=repo, capture_output=True, text=True, timeout=600, check=False,
        env={**os.environ, "NO_COLOR": "1", "COLUMNS": "200"},
    )  # fmt: skip
    doc = json.loads((out / "gate.json").read_text())
    return done.returncode, doc, (out / "gate.md").read_text(), done.stdout + done.stderr


def test_a_regressed_benchmark_is_diagnosed_and_only_it(repo: Path) -> None:
    code, doc, md, log = gate(repo, "c1", "c2")
    assert code == 1, log[-3000:]
    rows = {r["name"]: r for r in doc["benchmarks"]}
    assert rows["diag/sleep"]["verdict"] == "regressed", rows
    diagnosis = rows["diag/sleep"]["diagnosis"]
    assert diagnosis["status"] == "ok", diagnosis
    assert diagnosis["kinds"][0]["kind"] == "waiting", diagnosis
    assert "diagnosis" not in rows["diag/work"]  # unchanged: nothing run, nothing said
    assert 0 < doc["diagnosis_seconds"] < 120
    assert "#### Why it is slower" in md
    assert "- `diag/sleep`: **waiting**: off-CPU time +" in md, md
    assert "diagnosing diag/sleep" in log and "diagnosing diag/work" not in log
    # its wall-time profile diff (py-spy), beside gate.json, named in gate.md
    profile = diagnosis["profile"]
    assert profile["status"] == "ok", profile
    assert "sleep_call (worker.py)" in (repo / "target" / "out" / profile["file"]).read_text()
    assert "wall-time profile diff: `wall-profiles/diag_sleep.txt`" in md, md
    # the worktrees are gone after the diagnosis too
    assert not (repo / "target" / "gate" / "worktrees" / "base").exists()


def test_a_pr_with_no_loss_runs_no_diagnosis(repo: Path) -> None:
    code, doc, md, log = gate(repo, "c2", "c3")
    assert code == 0, log[-3000:]
    assert all("diagnosis" not in r for r in doc["benchmarks"])
    assert "diagnosis_seconds" not in doc
    assert not (repo / "target" / "out" / "wall-profiles").exists()
    assert "Why it is slower" not in md and "diagnosing" not in log
