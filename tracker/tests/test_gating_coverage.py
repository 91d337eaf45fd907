"""benchtrack.toml measures every benchmark's wall time (the series that decides it) exactly
once, and each other series at most once: the suites' filters checked on the names of a shipped
whole-suite recording."""

from __future__ import annotations

import json
import re
from pathlib import Path

from benchtrack.gate import config

ROOT = Path(__file__).resolve().parents[2]
RECORDING = ROOT / "tracker" / "bench" / "recordings" / "aa-time-q1.json"


def _selects(suite: config.Suite, name: str) -> bool:
    """Whether the suite measures `name`: its suite prefix, then its BENCH_FILTER (criterion
    matches ids without the `rust/` prefix, the other harnesses the full name)."""
    if not name.startswith(suite.name.split("-")[0] + "/"):  # rust-instructions: rust/...
        return False
    pattern = suite.env.get("BENCH_FILTER")
    if not pattern:
        return True
    target = name.split("/", 1)[1] if name.startswith("rust/") else name
    return re.search(pattern, target) is not None


def test_every_benchmark_has_its_wall_time_measured_once() -> None:
    cfg = config.load(ROOT / config.CONFIG_NAME)
    names = sorted(json.loads(RECORDING.read_text())["benchmarks"])
    assert len(names) == 80
    suites = cfg.select(None)
    counted = 0
    for name in names:
        measuring = [s for s in suites if _selects(s, name)]
        keys = [s.key(name) for s in measuring]
        assert keys.count(name) == 1, (name, [s.name for s in measuring])  # wall time, once
        assert len(set(keys)) == len(keys), (name, keys)  # no other series twice either
        counted += f"{name} (instructions)" in keys
    assert counted >= 30  # the CPU-bound benchmarks keep their quieter second series


def test_no_build_dir_is_shared_between_the_sides() -> None:
    # Both sides of a lockstep or counted suite run at once; cargo names a workspace crate's
    # artifacts by a hash relative to the workspace root, so a target dir shared by the two
    # checkouts holds one side's binaries only, which both would run.
    cfg = config.load(ROOT / config.CONFIG_NAME)
    for suite in cfg.suites.values():
        for key in ("CARGO_TARGET_DIR", "UV_PROJECT_ENVIRONMENT", "VIRTUAL_ENV"):
            value = suite.env.get(key, "")
            assert "GATE_SHARED_CACHE" not in value, (suite.name, key, value)
