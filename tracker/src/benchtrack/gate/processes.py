"""Stopping what a suite started: its commands run in a process group of their own (cargo make ->
cargo -> the bench binary; bash -> a harness and its workers), so a timeout or a cancel stops
them all, not only the shell."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess


def stop_group(proc: subprocess.Popen) -> None:
    """SIGTERM to the process's whole group, then SIGKILL what is left after 5 s."""
    for sig, wait in ((signal.SIGTERM, 5.0), (signal.SIGKILL, None)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue
