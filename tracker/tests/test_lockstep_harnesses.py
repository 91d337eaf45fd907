"""The repository's own Python (pytest) and Perl (CoroBench) harnesses in step mode, driven by
the gate's lockstep.

Apart from test_lockstep.py (whose scripted workers and helpers these use) so that pytest-xdist
runs them on a worker of their own: each spends a minute or more starting real harnesses.
"""

from __future__ import annotations

import math
import shutil
import subprocess
from pathlib import Path

import pytest
from test_lockstep import _harness, by_name


def test_python_harness_in_step_mode(tmp_path: Path) -> None:
    out = _harness(
        tmp_path,
        "bash scripts/bench-python-step.sh",
        {"BENCH_PROFILE": "round", "BENCH_FILTER": "^python/sleep/"},
    )
    assert out.exit_codes == {"base": 0, "head": 0}, (tmp_path / "head.log").read_text()[-2000:]
    assert out.errors == {"base": [], "head": []}
    got = by_name(out)
    assert sorted(got) == ["python/sleep/awaited", "python/sleep/gather", "python/sleep/sequential"]
    for b in got.values():
        assert b.unit == "sleeps/s"
        assert [len(b.samples[s]) for s in ("base", "head")] == [5, 5]
    # The round profile sleeps 3 x 20 ms per call: one after another at most 50 sleeps/s,
    # gathered at most three times as many. Only these bounds: a busier machine can make a
    # sleep longer, never shorter (gathered read below twice the sequential's rate at load ~10:
    # 41.6 against 49.7 sleeps/s, the event loop late to wake).
    for name, most in (("python/sleep/sequential", 50), ("python/sleep/gather", 150)):
        samples = got[name].samples["base"] + got[name].samples["head"]
        assert all(0 < x <= most for x in samples), (name, samples)


def test_python_harness_times_steps_by_cpu_time_when_asked(tmp_path: Path) -> None:
    """A sleeping benchmark's CPU time is a small part of its wall time: the throughput per
    CPU-second is far above what the sleeps allow per wall-second."""
    env = {"BENCH_PROFILE": "round", "BENCH_FILTER": "^python/sleep/sequential$"}
    # Steps of ~1 ms of CPU: a call takes ~60 ms of wall time and a small part of that of CPU,
    # so the usual 10 ms of CPU a step would be ~100 calls, 6 s of sleeps each.
    out = _harness(
        tmp_path,
        "bash scripts/bench-python-step.sh",
        {**env, "BENCH_STEP_CLOCK": "cpu"},
        "cpu",
        step=0.001,
    )
    assert out.exit_codes == {"base": 0, "head": 0}, (tmp_path / "head.log").read_text()[-2000:]
    (b,) = out.benchmarks
    assert b.name == "python/sleep/sequential" and len(b.samples["base"]) == 5
    assert min(b.samples["base"] + b.samples["head"]) > 200  # at most 50 sleeps/s by the wall clock


def _perl_has_coro() -> bool:
    if shutil.which("perl") is None:
        return False
    return subprocess.run(["perl", "-MCoro", "-e1"], capture_output=True).returncode == 0


@pytest.mark.skipif(not _perl_has_coro(), reason="perl with Coro is not installed")
def test_perl_harness_in_step_mode(tmp_path: Path) -> None:
    out = _harness(tmp_path, "perl perl/bin/bench", {"BENCH_FILTER": "pool_chan/sleep$"})
    assert out.exit_codes == {"base": 0, "head": 0}, (tmp_path / "head.log").read_text()[-2000:]
    assert out.errors == {"base": [], "head": []}
    assert [b.name for b in out.benchmarks] == ["perl/coro/pool_chan/sleep"]
    b = out.benchmarks[0]
    assert b.unit == "tasks/s"
    assert [len(b.samples[s]) for s in ("base", "head")] == [5, 5]
    assert all(x > 0 and math.isfinite(x) for s in b.samples.values() for x in s)
