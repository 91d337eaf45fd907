"""tracker/bench/side_episodes.py: runs of rounds where one side of one benchmark ran apart."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

from benchtrack.gate.model import Meta, Rounds
from benchtrack.lab import aa

SCRIPT = Path(__file__).resolve().parents[1] / "bench" / "side_episodes.py"
spec = importlib.util.spec_from_file_location("side_episodes", SCRIPT)
side_episodes = importlib.util.module_from_spec(spec)
spec.loader.exec_module(side_episodes)


def _recording(tmp_path: Path, slow_base: range = range(0)) -> aa.AAData:
    """21 A/A rounds of `t/a` (1% spread) and `t/b`; t/a's base a quarter slower in `slow_base`."""
    data = Rounds()
    rng = np.random.default_rng(5)
    for rnd in range(21):
        data.orders.append("base,head")
        for bench in ("t/a", "t/b"):
            for side in ("base", "head"):
                x = float(100 * np.exp(rng.normal(0, 0.01)))
                if bench == "t/a" and side == "base" and rnd in slow_base:
                    x *= 0.75
                data.add(side, rnd, bench, [x] * 5, Meta("items/s", "bigger", "t", True))
            data.pair(rnd, bench)
    path = tmp_path / "aa.json"
    path.write_bytes(aa.dump(aa.to_dict(data, {"commit": "0" * 40})))
    return aa.load(path)


def test_a_side_slower_for_ten_rounds_is_named_with_its_rounds(tmp_path: Path) -> None:
    found = side_episodes.episodes(_recording(tmp_path, range(4, 14)), 3, 0.05)
    assert [(name, first, last, slower) for name, first, last, _, slower in found] == [
        ("t/a", 4, 13, "base")
    ]
    assert found[0][3] > np.log(1 / 0.8)  # about a third faster head, against the other rounds


def test_noise_alone_has_no_episode(tmp_path: Path) -> None:
    assert side_episodes.episodes(_recording(tmp_path), 3, 0.05) == []
