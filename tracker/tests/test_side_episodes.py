"""tracker/bench/side_episodes.py: runs of rounds where one side of one benchmark ran apart."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
from scipy import stats

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


def test_the_t_summary_sets_whole_recording_ts_against_students() -> None:
    # Student's t itself: its sd and tail counts match what the summary expects of it; ts twice
    # as wide (a side's offset kept for whole recordings) stand out on both.
    rng = np.random.default_rng(2)
    df = np.full(2000, 28.0)
    null = side_episodes.t_summary(rng.standard_t(28, 2000), df)
    assert "2000 series, sd of t 1.0" in null and "(expected 1.04)" in null
    expected_beyond_2 = 2000 * 2 * stats.t.sf(2.0, 28)
    assert f"(expected {expected_beyond_2:.1f})" in null
    wide = side_episodes.t_summary(2 * rng.standard_t(28, 2000), df)
    assert "sd of t 2." in wide
    beyond = int(wide.split("|t| > 2.0: ")[1].split()[0])
    assert beyond > 3 * expected_beyond_2


def test_the_t_summary_of_recordings_names_each_and_all(tmp_path: Path, capsys) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    _recording(a)
    _recording(b, range(0, 21))  # t/a's base a quarter slower in every round
    assert side_episodes.main(["--t-summary", str(a / "aa.json"), str(b / "aa.json")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("aa.json: 21 rounds, 2 series, sd of t")
    assert lines[2].startswith("all 2: 4 series, sd of t")
    assert "|t| > 3.0: 1 " in lines[1]  # the kept quarter
