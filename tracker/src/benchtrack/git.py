"""The one place benchtrack drives git: run a command, read its output, push with retry.

Every git call of the tracker (the gate's worktrees, the history on a remote branch, the publish
job, a result document's commit) goes through `run`, so they share one environment: never a
credential prompt (a CI job would hang on it), no signing, and a committer identity only where the
caller has none. `push_with_retry` is the one loop for a push that may lose a race to a rival
publisher: rebuild on the new tip and push again after an exponential backoff with full jitter,
and stop at once when the remote refused for a reason a retry will not change.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from benchtrack.errors import BadInput, BenchtrackError

IDENTITY = {
    "GIT_AUTHOR_NAME": "benchtrack",
    "GIT_AUTHOR_EMAIL": "benchtrack@users.noreply.github.com",
    "GIT_COMMITTER_NAME": "benchtrack",
    "GIT_COMMITTER_EMAIL": "benchtrack@users.noreply.github.com",
}

# Words git prints when the remote refused for a reason a retry will not change.
PERMANENT = (
    "hook declined",
    "permission",
    "denied",
    "authentication failed",
    "not found",
    "access rights",
)


class GitError(BenchtrackError):
    """git itself failed (not a user mistake we can name a field for): exit 2."""


def env() -> dict[str, str]:
    out = {**IDENTITY, **os.environ}  # the caller's identity wins when it has one
    out["GIT_TERMINAL_PROMPT"] = "0"  # fail instead of asking for credentials
    return out


def run(repo: Path | str, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """`git -C repo args…`; with `check`, a failure is GitError naming the command and repo."""
    argv = ["git", "-C", str(repo), "-c", "commit.gpgsign=false", *args]
    try:
        # A session of its own: git runs helpers of its own (`worktree add` populates the tree
        # in a child `git reset --hard`), and a cancel must stop them too, not leave one writing
        # into a directory the cleanup just removed (test_gate_e2e's cancel at worktrees/head).
        proc = subprocess.Popen(
            argv,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env(),
            stdin=subprocess.DEVNULL,  # `hash-object --stdin` reads nothing, never the caller's
            start_new_session=True,
        )
    except FileNotFoundError:
        raise BadInput("git", None, "git on PATH") from None
    try:
        stdout, stderr = proc.communicate()
    except BaseException:
        _kill_session(proc)
        raise
    done = subprocess.CompletedProcess(argv, proc.returncode, stdout, stderr)
    if check and done.returncode != 0:
        raise GitError(f"git {' '.join(args)} failed in {repo}: {done.stderr.strip()}")
    return done


def _kill_session(proc: subprocess.Popen[str]) -> None:
    """SIGKILL to git's whole session, then wait until none of it is left (a helper git started
    is re-parented when git dies, and reaped by another; 5 s at most)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 5.0
    while time.monotonic() < deadline:
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.01)


def out(repo: Path | str, *args: str) -> str:
    """The standard output of a git command that must succeed."""
    return run(repo, *args).stdout


def raw(repo: Path | str, *args: str) -> subprocess.CompletedProcess[bytes]:
    """A git command whose output is bytes (`git archive`); never raises for its exit code."""
    return subprocess.run(
        ["git", "-C", str(repo), *args],
        capture_output=True,
        check=False,
        env=env(),
        stdin=subprocess.DEVNULL,
    )


def refused_for_good(stderr: str) -> bool:
    """Whether a failed push was refused for a reason a retry will not change."""
    return any(word in stderr.lower() for word in PERMANENT)


def what_the_remote_said(stderr: str) -> str:
    """The remote's own words from a failed push (hook output, "[remote rejected] … (reason)"),
    not git's hints."""
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    said = [ln for ln in lines if ln.startswith(("remote:", "!", "error:", "fatal:"))]
    return " | ".join((said or lines)[-6:]) or "push failed"


def push_with_retry(
    attempt: Callable[[int], str | None],
    fail: Callable[[str, int], Exception],
    *,
    attempts: int = 10,
    backoff: float = 0.5,
    max_backoff: float = 8.0,
) -> int:
    """Call `attempt(i)` (rebuild on the newest tip, commit, push) until it returns None (pushed,
    or nothing to push); it returns the push's stderr when the remote rejected it. A rejection
    for good, or the last attempt's, raises `fail(stderr, attempts made)`. Returns the number of
    pushes lost to a rival."""
    for i in range(max(1, attempts)):
        stderr = attempt(i)
        if stderr is None:
            return i  # each earlier attempt lost its push to a rival
        if refused_for_good(stderr):
            raise fail(stderr, i + 1)
        if i + 1 < attempts:  # full jitter: rivals spread out instead of colliding again
            time.sleep(random.uniform(0, min(max_backoff, backoff * 2**i)))
    raise fail(stderr, max(1, attempts))
