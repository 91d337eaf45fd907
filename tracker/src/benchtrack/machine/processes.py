"""Running the commands of suites, for the gate and for bench-local alike: each in a process group
of its own (cargo make -> cargo -> the bench binary; bash -> a harness and its workers), its
output in a log, so a timeout or a cancel stops everything it started, not only the shell; and
a Freezer to pause some of them while something needs every CPU."""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

TAIL_LINES = 30
PROGRESS_SECONDS = 0.5


def start(argv: list[str], *, env: dict[str, str], out, cwd: Path | None = None, freezer=None):
    """`argv` in a session of its own (a Freezer's, if given), stdout and stderr to `out`."""
    popen = (
        freezer.popen if freezer else functools.partial(subprocess.Popen, start_new_session=True)
    )
    return popen(
        argv, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
    )


def finish(
    proc: subprocess.Popen,
    timeout: float | None = None,
    progress: Callable[[float], None] | None = None,
) -> int | None:
    """Its exit code; None if `timeout` passed first (then its group is stopped). Whatever
    interrupts the wait (Ctrl-C, a cancel) stops the group before it goes on. With `progress`,
    it is called with the seconds so far between waits of PROGRESS_SECONDS."""
    start_at = time.monotonic()
    try:
        while True:
            elapsed = time.monotonic() - start_at
            left = None if timeout is None else timeout - elapsed
            if left is not None and left <= 0:
                stop_group(proc)
                return None
            if progress is not None:
                progress(elapsed)
                left = PROGRESS_SECONDS if left is None else min(left, PROGRESS_SECONDS)
            with contextlib.suppress(subprocess.TimeoutExpired):
                return proc.wait(timeout=left)
    except BaseException:
        stop_group(proc)
        raise


def shell(
    command: str,
    cwd: Path,
    env: dict[str, str],
    timeout: float | None,
    log: Path,
    freezer: Freezer | None = None,
    progress: Callable[[float], None] | None = None,
) -> tuple[int, str]:
    """Run `command` under bash; its output goes to `log`. Returns (exit code, output tail);
    a timeout is exit 124. With a `freezer`, the command pauses while the freezer is paused;
    `progress(seconds so far)` is called twice a second while it runs (bench-local's spinner)."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("w", encoding="utf-8", errors="replace") as out:
        out.write(f"$ {command}\n(cwd {cwd})\n")
        out.flush()
        proc = start(["bash", "-c", command], env=env, out=out, cwd=cwd, freezer=freezer)
        try:
            code = finish(proc, timeout, progress)
        finally:
            if freezer:
                freezer.forget(proc)
        if code is None:
            out.write(f"\nbenchtrack: timed out after {timeout:g} s\n")
            code = 124
    lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
    return code, "\n".join(lines[-TAIL_LINES:])


def stop_group(proc: subprocess.Popen) -> None:
    """SIGTERM to the process's whole group, then SIGKILL what is left after 5 s (after a
    SIGCONT, so a group paused by a Freezer hears it)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGCONT)
    for sig, wait in ((signal.SIGTERM, 5.0), (signal.SIGKILL, None)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


class Freezer:
    """Process groups that pause (SIGSTOP) while something needs every CPU of the job.

    The instruction counts run beside the one-CPU lockstep suites on the CPU those leave free;
    a full-size lockstep suite steps with every CPU, so while it runs the counts are stopped
    where they stand and continued after (their counts do not depend on when they run). Start
    and pause take one lock, so a count run cannot slip in between the two; one asked to start
    while paused waits for the pause to end (started then stopped, it ran from its exec until
    the SIGSTOP, tens of ms where the starting thread lost its CPU on a busy machine)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._resumed = threading.Condition(self._lock)
        self._groups: set[int] = set()
        self._paused = False

    def popen(self, *args, **kwargs) -> subprocess.Popen:
        """`subprocess.Popen` in a new session, registered; started once no pause is on."""
        with self._resumed:
            while self._paused:
                self._resumed.wait()
            proc = subprocess.Popen(*args, **kwargs, start_new_session=True)
            self._groups.add(proc.pid)
            return proc

    def forget(self, proc: subprocess.Popen) -> None:
        with self._lock:
            self._groups.discard(proc.pid)

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        with self._lock:
            self._paused = True
            for group in self._groups:
                self._signal(group, signal.SIGSTOP)
        try:
            yield
        finally:
            with self._resumed:
                self._paused = False
                for group in self._groups:
                    self._signal(group, signal.SIGCONT)
                self._resumed.notify_all()

    @staticmethod
    def _signal(group: int, sig: signal.Signals) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(group, sig)
