"""Stopping what a suite started: its commands run in a process group of their own (cargo make ->
cargo -> the bench binary; bash -> a harness and its workers), so a timeout or a cancel stops
them all, not only the shell."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
from collections.abc import Iterator


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
    and pause take one lock, so a count run cannot slip in between the two."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._groups: set[int] = set()
        self._paused = False

    def popen(self, *args, **kwargs) -> subprocess.Popen:
        """`subprocess.Popen` in a new session, registered (and stopped at once if paused)."""
        with self._lock:
            proc = subprocess.Popen(*args, **kwargs, start_new_session=True)
            self._groups.add(proc.pid)
            if self._paused:
                self._signal(proc.pid, signal.SIGSTOP)
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
            with self._lock:
                self._paused = False
                for group in self._groups:
                    self._signal(group, signal.SIGCONT)

    @staticmethod
    def _signal(group: int, sig: signal.Signals) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(group, sig)
