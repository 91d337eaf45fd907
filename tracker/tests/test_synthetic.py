"""The synthetic history is deterministic, valid and realistic enough to benchmark with."""

from __future__ import annotations

import numpy as np

from benchtrack.history import open_store
from benchtrack.lab import synthetic


def test_same_seed_same_bytes_and_a_valid_history(tmp_path):
    a = synthetic.history(tmp_path / "a", commits=20, benches=50, runners=(1, 4))
    b = synthetic.history(tmp_path / "b", commits=20, benches=50, runners=(1, 4))
    assert [p.read_bytes() for p in a] == [p.read_bytes() for p in b]
    store = open_store(tmp_path / "a")
    assert store.validate() == []
    history = store.read()
    assert sorted(history.runners) == ["ubuntu-latest-1cpu", "ubuntu-latest-4cpu"]
    runner = history.runners["ubuntu-latest-4cpu"]
    assert runner.cpus == 4 and len(runner.commits) == 20 and len(runner.series) == 50
    suites = {s.suite for s in runner.series.values()}
    assert suites == {"rust", "python", "perl"}
    smaller = [s for s in runner.series.values() if s.direction == "smaller"]
    assert smaller and all(s.unit == "KB" for s in smaller)
    assert all(len(s) == 20 for s in runner.series.values())


def test_steps_are_visible_in_the_series():
    stepped = [s for s in synthetic.specs(150) if s.steps]
    assert stepped, "a few benchmarks change level, for change-point detection"
    spec = stepped[0]
    start, factor = spec.steps[0]
    rng = np.random.default_rng(0)
    before = [synthetic.measure(spec, 2, start - 1, rng).value for _ in range(20)]
    after = [synthetic.measure(spec, 2, start, rng).value for _ in range(20)]
    ratio = float(np.median(after) / np.median(before))
    assert abs(ratio - factor) < 0.1 * factor
