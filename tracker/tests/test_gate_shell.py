"""Suite commands (the gate's rounds, bench-local) run in their own process group: a timeout
stops all they started."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from benchtrack.machine.processes import shell


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead but still listed until reaped by its parent (init here).
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().split(") ")[-1][:1] != "Z"


@pytest.mark.parametrize("spinner", [False, True], ids=["gate", "bench-local"])
def test_a_timeout_stops_the_commands_children_too(tmp_path: Path, spinner: bool) -> None:
    pidfile = tmp_path / "child.pid"
    started = time.monotonic()
    ticks: list[float] = []
    code, tail = shell(
        f"sleep 300 & echo $! > {pidfile}; wait",
        tmp_path,
        dict(os.environ),
        timeout=1,
        log=tmp_path / "log.txt",
        progress=ticks.append if spinner else None,
    )
    assert bool(ticks) == spinner and ticks == sorted(ticks)
    assert code == 124 and "timed out" in tail
    assert time.monotonic() - started < 30
    child = int(pidfile.read_text())
    for _ in range(50):  # the group got SIGTERM; give the kernel a moment
        if not _alive(child):
            break
        time.sleep(0.1)
    assert not _alive(child), "the command's background child outlived the timeout"


def test_bench_locals_spinner_is_told_the_time_and_the_exit_code_comes_back(tmp_path: Path) -> None:
    """bench-local runs a suite through the gate's runner with a progress callback: called
    while the command runs, with the seconds so far; its exit code and output come back."""
    ticks: list[float] = []
    code, tail = shell(
        "sleep 1.2; echo done; exit 3",
        tmp_path,
        dict(os.environ),
        timeout=None,
        log=tmp_path / "log.txt",
        progress=ticks.append,
    )
    assert code == 3 and tail.endswith("done")
    assert ticks and ticks == sorted(ticks)
