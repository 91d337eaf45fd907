"""tracker/bench/spread_by_condition.py: each lockstep series' round-to-round sd under several
conditions (LAB.md, "How fast each vCPU runs"), on recordings whose spread is known."""

from __future__ import annotations

import gzip
import json
import math
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "bench" / "spread_by_condition.py"


def recording(path: Path, logs: list[float]) -> Path:
    """A recording of one paired series whose rounds' median log-ratios are `logs`."""
    rounds = [([100.0, 100.0, 100.0], [100.0 * math.exp(x)] * 3) for x in logs]
    series = {"suite": "perl", "unit": "ops/s", "direction": "bigger", "paired": True}
    series |= {"base": [b for b, _ in rounds], "head": [h for _, h in rounds]}
    counts = {"suite": "perl-instructions", "base": [], "head": []}
    doc = {
        "schema": "benchtrack.aa/1",
        "benchmarks": {"perl/x": series, "perl/x (instructions)": counts},
    }
    path.write_bytes(gzip.compress(json.dumps(doc).encode()))
    return path


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=60
    )


def test_each_conditions_rounds_are_pooled_and_compared_with_the_first(tmp_path: Path) -> None:
    a1 = recording(tmp_path / "a1.json.gz", [0.10, 0.0])
    a2 = recording(tmp_path / "a2.json.gz", [-0.10])
    b = recording(tmp_path / "b.json.gz", [0.05, 0.0, -0.05])
    done = run(f"wide={a1},{a2}", f"narrow={b}", "--markdown")
    assert done.returncode == 0, done.stderr
    assert "| series | wide (3 rounds) | narrow (3 rounds) |" in done.stdout
    assert "| `perl/x` | 10.0 | 5.0 |" in done.stdout  # sd of (10, 0, -10)% and (5, 0, -5)%
    assert "(instructions)" not in done.stdout  # counts are not stepped in lockstep
    assert "Median sd: wide 10.00%, narrow 5.00%" in done.stdout
    assert "narrow spreads less than wide: 1 of 1 series" in done.stdout


def test_bad_arguments_exit_2_naming_them(tmp_path: Path) -> None:
    done = run(f"wide={tmp_path / 'missing.json.gz'}")
    assert done.returncode == 2 and "missing.json.gz" in done.stderr
    assert "expected an A/A recording" in done.stderr
    cut = tmp_path / "cut.json"
    cut.write_bytes(gzip.decompress(recording(tmp_path / "whole.json.gz", [0.1]).read_bytes())[:40])
    done = run(f"wide={cut}")
    assert done.returncode == 2 and "cut.json: expected valid JSON (truncated" in done.stderr
    assert "Traceback" not in done.stderr
    done = run("no-equals-sign")
    assert done.returncode == 2 and "NAME=RECORDING[,RECORDING...]" in done.stderr
