"""tracker/bench/uneven_hog.pl, record-condition.sh's `uneven` stand-in for a slower vCPU:
it takes no more than its share of the CPU, and bad arguments exit 2 with nothing started."""

from __future__ import annotations

import os
import resource
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HOG = ROOT / "tracker/bench/uneven_hog.pl"
RECORD = ROOT / "tracker/bench/record-condition.sh"


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def test_the_hog_takes_at_most_its_share() -> None:
    # Unprivileged and unpinned here: what is checked is the ceiling (busy SHARE of each
    # period, then asleep), which holds however the scheduler treats it; the floor would not.
    share, wall = 0.2, 1.0
    before = _children_cpu()
    start = time.monotonic()
    hog = subprocess.Popen(["perl", str(HOG), "0.001", str(share)])
    time.sleep(wall)
    hog.terminate()
    hog.wait(timeout=10)
    elapsed = time.monotonic() - start
    used = _children_cpu() - before
    assert 0 < used <= share * elapsed + 0.05  # + perl's start


def test_bad_arguments_exit_2() -> None:
    for args in ([], ["0.001"], ["0", "0.4"], ["0.001", "0.95"], ["0.001", "-1"]):
        done = subprocess.run(["perl", str(HOG), *args], capture_output=True, text=True, timeout=30)
        assert done.returncode == 2, args
        assert "expected PERIOD (seconds > 0) and SHARE (0 < SHARE < 0.95)" in done.stderr


def test_record_condition_names_its_conditions(tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    done = subprocess.run(
        ["bash", str(RECORD), "steal", str(out)], capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 2
    assert "expected quiet, cotenant or uneven, got steal" in done.stderr
    assert not out.exists()
    bad = [
        ("UNEVEN_SHARE", v, "a share of the CPU above 0 and below 0.95") for v in ("2", "0", "abc")
    ]
    bad += [
        ("UNEVEN_PERIOD", v, "seconds from 0.0001 to 0.1") for v in ("0", "1", "0.00001", "1ms")
    ]
    for name, value, expected in bad:
        done = subprocess.run(
            ["bash", str(RECORD), "uneven", str(out)],
            capture_output=True,
            text=True,
            timeout=30,
            env={**os.environ, name: value},
        )
        assert done.returncode == 2, (name, value)
        assert f"{name}: expected {expected}, got {value}" in done.stderr
        assert not out.exists()
