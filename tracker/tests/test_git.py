"""benchtrack.git: the one module that runs git, and its push-with-retry loop (the gitstore and
publish tests drive it against real bare remotes with rivals and refusing hooks)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from benchtrack import git

SRC = Path(__file__).resolve().parents[1] / "src" / "benchtrack"
REJECTED = " ! [rejected]        HEAD -> gh-pages (fetch first)\nerror: failed to push some refs"
DECLINED = (
    "remote: no pushes today\n ! [remote rejected] HEAD -> gh-pages (pre-receive hook declined)"
)


class Refused(Exception):
    pass


def _fail(stderr: str, attempts: int) -> Refused:
    return Refused(f"{attempts}: {git.what_the_remote_said(stderr)}")


def test_a_lost_race_is_retried_until_the_push_lands() -> None:
    said = [REJECTED, REJECTED, None]
    calls: list[int] = []

    def attempt(i: int) -> str | None:
        calls.append(i)
        return said[i]

    assert git.push_with_retry(attempt, _fail, attempts=5, backoff=0.001) == 2
    assert calls == [0, 1, 2]


def test_a_refusal_for_good_stops_at_once_with_the_remotes_words() -> None:
    calls: list[int] = []

    def attempt(i: int) -> str | None:
        calls.append(i)
        return DECLINED

    with pytest.raises(Refused, match=r"^1: remote: no pushes today \| ! \[remote rejected\]"):
        git.push_with_retry(attempt, _fail, attempts=5, backoff=0.001)
    assert calls == [0]


def test_running_out_of_attempts_fails_with_the_count() -> None:
    with pytest.raises(Refused, match=r"^3: "):
        git.push_with_retry(lambda i: REJECTED, _fail, attempts=3, backoff=0.001)


def test_run_names_the_failed_command_and_never_prompts(tmp_path: Path) -> None:
    with pytest.raises(git.GitError, match=r"git rev-parse --verify nope failed in "):
        git.run(tmp_path, "rev-parse", "--verify", "nope")
    assert git.env()["GIT_TERMINAL_PROMPT"] == "0"
    done = git.run(tmp_path, "rev-parse", "--verify", "nope", check=False)
    assert done.returncode != 0


def test_hash_object_stdin_reads_nothing_of_the_callers(tmp_path: Path) -> None:
    git.run(tmp_path, "init", "-q")
    empty = git.out(tmp_path, "hash-object", "-t", "tree", "-w", "--stdin").strip()
    assert (
        empty
        == subprocess.run(
            ["git", "hash-object", "-t", "tree", "--stdin"],
            input="",
            capture_output=True,
            text=True,
        ).stdout.strip()
    )


def test_no_other_module_runs_git_itself() -> None:
    offenders = [
        str(p.relative_to(SRC))
        for p in SRC.rglob("*.py")
        if p.name != "git.py" and '["git"' in p.read_text(encoding="utf-8")
    ]
    assert offenders == []


# A git whose work goes on in a helper process of its own (an alias's shell here; `worktree add`'s
# `git reset --hard` in the gate): interrupted, nothing it started may write afterwards.
INTERRUPTED = """
import signal, sys
from pathlib import Path
from benchtrack import git

def stop(*_):
    raise SystemExit(143)  # what the gate's SIGTERM handler raises

signal.signal(signal.SIGALRM, stop)
signal.setitimer(signal.ITIMER_REAL, 0.3)
marker = Path(sys.argv[2])
try:
    git.run(sys.argv[1], "-c", f"alias.late=!sleep 1; touch {marker}", "late")
except SystemExit:
    print("interrupted")
"""


def test_an_interrupted_git_leaves_no_helper_running(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path / "r")], check=True)
    marker = tmp_path / "written-late"
    done = subprocess.run(
        [sys.executable, "-c", INTERRUPTED, str(tmp_path / "r"), str(marker)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.stdout.strip() == "interrupted", done.stderr
    # The helper would touch the marker 1 s after it started; it is given 2 s to (it may not).
    time.sleep(2.0)
    assert not marker.exists()
