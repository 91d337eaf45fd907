"""`benchtrack record-aa` on a real fixture repository: one commit as both sides, each side in a
worktree of its own (both sides of a counted suite run at once and write their raw output in
their checkout, so a shared checkout would race), every round kept."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cancel import cancel_at

from benchtrack.errors import EXIT_TERMINATED

CONFIG = """\
[gate]
rounds = 3

[bench.suites.counted]
adapter = "perl"
raw = "out/perl.json"
command = "bash bench.sh"

[bench.suites.counted.gate]
# Runs both sides at once (a non-time series), each writing its raw output in its checkout.
series = "instructions"
timeout = 60
"""

# Writes the Perl runner's JSON after a pause long enough for the other side to be running too,
# and leaves the checkout it ran in where the test can see it.
BENCH = """\
set -euo pipefail
echo "$GATE_CHECKOUT" > "$SEEN/$GATE_SIDE-$$"
echo "$GATE_CACHE" > "$SEEN/cache-$GATE_SIDE"
echo "$GATE_BASE_CACHE" > "$SEEN/seed-$GATE_SIDE"
sleep 0.3
mkdir -p out
printf '%s' '{"schema": "benchtrack.perl/1", "created": "2026-01-01T00:00:00Z", "env": {},
 "benchmarks": [{"name": "perl/fixture/work", "unit": "calls/s", "samples": [5, 5, 5, 5, 5]}],
 "errors": []}' > out/perl.json
"""


def run(cmd: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, check=False)


def fixture_repo(tmp_path: Path, config: str) -> tuple[Path, Path, dict[str, str]]:
    """A committed repository with `config` as its benchtrack.toml and BENCH as bench.sh; the
    directory BENCH writes what it saw into; the environment to run in it."""
    repo, seen = tmp_path / "repo", tmp_path / "seen"
    repo.mkdir()
    seen.mkdir()
    (repo / "benchtrack.toml").write_text(config)
    (repo / "bench.sh").write_text(BENCH)
    (repo / ".gitignore").write_text("target/\nout/\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        SEEN=str(seen),
        GIT_AUTHOR_NAME="t",
        GIT_AUTHOR_EMAIL="t@example.com",
        GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@example.com",
    )
    for cmd in (["git", "init", "-q"], ["git", "add", "."], ["git", "commit", "-qm", "fixture"]):
        assert run(cmd, repo, env).returncode == 0
    return repo, seen, env


def test_record_aa_gives_each_side_its_own_checkout(tmp_path: Path) -> None:
    repo, seen, env = fixture_repo(tmp_path, CONFIG)
    out = tmp_path / "aa.json"
    done = run(
        [sys.executable, "-m", "benchtrack", "record-aa", "--rounds", "3", "--out", str(out)],
        repo,
        env,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    doc = json.loads(out.read_text())
    bench = doc["benchmarks"]["perl/fixture/work (instructions)"]
    assert len(bench["base"]) == len(bench["head"]) == 3
    assert doc["counts_wait_from"] == 3  # the gate's first look ([gate] rounds = 3), as it waits
    # each round's vCPU speeds at its start (machine/vcpus.py): a reading for every CPU
    cpus = len(os.sched_getaffinity(0))
    assert [len(r["cpus"]) for r in doc["vcpus"]] == [cpus] * 3
    assert (doc["vcpus_summary"] or {}).get("rounds") == (3 if cpus > 1 else None)
    places = {
        side: {p.read_text().strip() for p in seen.glob(f"{side}-*")} for side in ("base", "head")
    }
    assert len(places["base"]) == len(places["head"]) == 1, places
    assert places["base"] != places["head"]
    # A head's build starts from this recording's base cache (gate-cargo-build.sh seeds from
    # it), which record-aa names after its suites: not the gate's cache/base.
    caches = {side: (seen / f"cache-{side}").read_text().strip() for side in ("base", "head")}
    assert caches["base"] != caches["head"] and Path(caches["base"]).name != "base"
    assert (seen / "seed-head").read_text().strip() == caches["base"]
    # The worktrees are removed afterwards (no --keep-worktree).
    assert not any(Path(p).exists() for side in places.values() for p in side)


def test_a_suite_that_failed_is_kept_in_the_recording_and_evaluate_refuses_it(
    tmp_path: Path,
) -> None:
    # A recording missing a suite (here one whose command fails, as a missing tool does) has
    # shorter rounds and fewer series than the gate: it says so, and evaluate will not draw
    # figures from it.
    broken = (
        '\n[bench.suites.broken]\nadapter = "perl"\nraw = "out/broken.json"\ncommand = "false"\n'
    )
    repo, _, env = fixture_repo(tmp_path, CONFIG + broken)
    out = tmp_path / "aa.json"
    record = [sys.executable, "-m", "benchtrack", "record-aa", "--rounds", "3", "--out", str(out)]
    done = run(record, repo, env)
    assert done.returncode == 3, done.stdout + done.stderr  # a benchmark failed to run
    doc = json.loads(out.read_text())
    assert {f["suite"] for f in doc["failures"]} == {"broken"}
    assert "perl/fixture/work (instructions)" in doc["benchmarks"]  # what ran is kept
    evaluated = run([sys.executable, "-m", "benchtrack", "evaluate", str(out)], repo, env)
    assert evaluated.returncode == 2, evaluated.stdout + evaluated.stderr
    assert f"{out}: failures: expected none" in evaluated.stderr
    assert "broken failed to run (base)" in evaluated.stderr


@pytest.mark.parametrize(
    "when",
    [
        "worktrees/aa-counted-head",  # as git adds the second side's worktree
        "logs-aa-counted",  # once rounds run
    ],
)
def test_a_cancelled_recording_removes_its_worktrees(tmp_path: Path, when: str) -> None:
    # CI (or a person at the terminal) cancels with SIGTERM: no worktree, and no record of one
    # in git, may be left, wherever the cancel lands. The checkouts were once made outside the
    # cleanup's reach: a cancel while the head side's was made left both behind.
    repo, _, env = fixture_repo(tmp_path, CONFIG)
    argv = [sys.executable, "-m", "benchtrack", "record-aa", "--rounds", "30"]
    argv += ["--out", str(tmp_path / "aa.json")]
    assert cancel_at(argv, repo, env, repo / "target" / "gate" / when) == EXIT_TERMINATED
    worktrees = repo / "target" / "gate" / "worktrees"
    assert not any(worktrees.iterdir()) if worktrees.exists() else True
    listed = run(["git", "worktree", "list", "--porcelain"], repo, env).stdout
    assert "target/gate" not in listed, listed
