"""The gate's suite commands run in their own process group: a timeout stops all they started."""

from __future__ import annotations

import os
import time
from pathlib import Path

from benchtrack.machine.processes import shell


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead but still listed until reaped by its parent (init here).
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().split(") ")[-1][:1] != "Z"


def test_a_timeout_stops_the_commands_children_too(tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    started = time.monotonic()
    code, tail = shell(
        f"sleep 300 & echo $! > {pidfile}; wait",
        tmp_path,
        dict(os.environ),
        timeout=1,
        log=tmp_path / "log.txt",
    )
    assert code == 124 and "timed out" in tail
    assert time.monotonic() - started < 30
    child = int(pidfile.read_text())
    for _ in range(50):  # the group got SIGTERM; give the kernel a moment
        if not _alive(child):
            break
        time.sleep(0.1)
    assert not _alive(child), "the command's background child outlived the timeout"
