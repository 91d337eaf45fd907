"""Cancel a benchtrack command as CI does (SIGTERM) once it has made a given path: the tests
of what a cancelled gate or recording leaves behind (test_gate_e2e, test_record_aa)."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path


def cancel_at(argv: list[str], cwd: Path, env: dict[str, str], mark: Path) -> int:
    """Run `argv`, send it SIGTERM as soon as `mark` exists, and return its exit status once
    it has exited fully (its cleanup is part of what the callers test)."""
    proc = subprocess.Popen(
        argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 60
        while not mark.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.005)
        assert mark.exists(), f"{argv[3]} never made {mark}"
        proc.send_signal(signal.SIGTERM)
        return proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
