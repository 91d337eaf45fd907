"""`[gate.confirm] uneven_rounds`: a screening whose rounds read the vCPUs apart in speed
(machine/vcpus.py) gives the confirmation more rounds; `evaluate` replays the same rule on each
pseudo-PR's screening rounds. The readings here are given, not measured: what this machine reads
is a figure (tracker/LAB.md), these tests hold the rule, its config, its replay and its report."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import orjson
import pytest
from test_gate_evaluate import _recording

from benchtrack.errors import BadInput
from benchtrack.gate import config, render, stages
from benchtrack.gate.config import Confirm, GateConfig
from benchtrack.lab import aa, shard_replay
from benchtrack.lab import evaluate as ev
from benchtrack.lab.replay import Costs, two_stages
from benchtrack.lab.stages import Stages

EVEN = {"cpus": [0, 1], "wall": [2.0, 2.1], "cpu": [2.0, 2.1]}  # 1.05x apart
UNEVEN = {"cpus": [0, 1], "wall": [2.0, 3.4], "cpu": [2.0, 2.1]}  # 1.70x by wall time
ONE_CPU = {"cpus": [0], "wall": [2.0], "cpu": [2.0]}


def _parse(confirm: dict) -> GateConfig:
    bench = {"x": {"adapter": "perl", "command": "c", "raw": "r", "gate": {"adapter": "lockstep"}}}
    return config.parse(
        {"bench": {"suites": bench}, "gate": {"rounds": 5, "confirm": confirm}}, "t"
    )


def test_uneven_rounds_is_read_checked_and_counted_in_the_most_rounds() -> None:
    cfg = _parse({"rounds": 24, "looks": [], "uneven_rounds": 32})
    assert cfg.confirm == Confirm(24, (), 24, 32)
    assert cfg.all_rounds == 5 + 32  # what a recording needs, what a shard plan fits
    left_out = _parse({"rounds": 24, "looks": []})
    assert left_out.confirm.uneven_rounds is None and left_out.all_rounds == 5 + 24
    for bad in (16, True, "32", 2.5):
        with pytest.raises(BadInput, match=r"gate\.confirm\.uneven_rounds.*integer >= 24"):
            _parse({"rounds": 24, "uneven_rounds": bad})


def test_the_confirmation_takes_the_uneven_rounds_after_an_uneven_screening() -> None:
    cfg = GateConfig("t", confirm=Confirm(24, (), 24, 32))
    for readings, rounds, uneven in (
        ([EVEN] * 5, 24, False),
        ([UNEVEN] * 3 + [EVEN] * 2, 32, True),  # the median of the rounds' spreads
        ([UNEVEN] * 2 + [EVEN] * 3, 24, False),
        ([ONE_CPU] * 5, 24, False),  # one CPU: nothing to be apart
        ([], 24, False),  # no reading (not Linux): the even state's
    ):
        staged, said = stages.for_screening(cfg, readings)
        assert (staged.confirm.rounds, said) == (rounds, uneven)
        assert staged.confirm.look_schedule() == [rounds]
    # left out, every state confirms in `rounds`
    plain = GateConfig("t", confirm=Confirm(24, (), 24))
    assert stages.for_screening(plain, [UNEVEN] * 5)[0].confirm.rounds == 24
    # a look the even state drops (at or past its rounds) is the uneven state's: its split too
    looked = Confirm(16, (20,), 24, 32)
    assert looked.look_schedule() == [16] and looked.for_state(True).look_schedule() == [20, 32]


def test_the_method_line_says_the_confirmation_had_the_uneven_rounds() -> None:
    from test_vcpus import _outcome

    second = {"candidates": ["a"], "open": [], "rounds": 30, "most_rounds": 32}
    said = render.method_line(_outcome({"confirm": {**second, "vcpus_uneven": True}}))
    assert (
        "1 candidate(s) confirmed in 30 rounds of their own (up to 32: the screening read " in said
    )
    even = render.method_line(_outcome({"confirm": {**second, "vcpus_uneven": False}}))
    assert "confirmed in 30 rounds of their own, at half" in even and "up to" not in even


def _draws(prs: int, m: int, n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).normal(0.0, 0.03, (prs, m, n))


def test_the_replay_confirms_each_pr_in_its_states_rounds() -> None:
    # Stages over PRs of both states is each state's two_stages on its own PRs, put together.
    prs, m = 60, 4
    g1, g2 = _draws(prs, m, 5, 1), _draws(prs, m, 12, 2) - 0.04  # a loss: candidates to confirm
    plan = Confirm(6, (), 4, 12)
    costs = Costs(np.ones(m), np.zeros(m, dtype=int), np.zeros(1))
    times = np.full((prs, 5), 10.0)
    state = np.arange(prs) % 3 == 0
    args = (np.full(m, 0.05), 0.01, [5])
    exact = np.zeros(m, dtype=bool)
    got = Stages(g2, plan, times, 0.0, None, costs, None, state).decide(g1 - 0.04, g2, *args, exact)

    def alone(p: Confirm, at: np.ndarray):
        return two_stages(g1[at] - 0.04, g2[at], *args, p, exact, times[at], 0.0, None, costs)

    even, uneven = alone(plan, ~state), alone(plan.for_state(True), state)
    assert np.array_equal(got.regressed[~state], even.regressed)
    assert np.array_equal(got.regressed[state], uneven.regressed)
    assert np.array_equal(got.confirm_rounds[state], uneven.confirm_rounds)
    assert np.max(got.confirm_rounds[~state]) <= 6 < np.max(got.confirm_rounds[state]) <= 12


def _with_vcpus(path: Path, readings: list[dict]) -> Path:
    doc = orjson.loads(path.read_bytes())
    doc["vcpus"] = readings
    path.write_bytes(aa.dump(doc))
    return path


def _replay(path: Path, plan: Confirm) -> ev.Evaluation:
    parts = aa.load_parts(path)
    return ev.evaluate(
        parts, thresholds=np.full(3, 0.05), alpha=0.01, looks=[5], prs=200, seed=3,
        budget=None, confirm=plan, coin="round",
    )  # fmt: skip


def test_evaluate_reads_each_prs_screening_as_the_gate_does(tmp_path: Path) -> None:
    plain, adaptive = Confirm(8, (), 5), Confirm(8, (), 5, 14)
    # no reading kept (a recording from before them), or even ones: the even state's gate,
    # draw for draw
    for name, readings in (("none.json", None), ("even.json", [EVEN] * 21)):
        path = _recording(tmp_path, name, 0.03, rounds=21)
        if readings is not None:
            _with_vcpus(path, readings)
        a, b = _replay(path, plain), _replay(path, adaptive)
        assert (a.gate.false_fail, a.gate.detect[0.05].tolist()) == (
            b.gate.false_fail,
            b.gate.detect[0.05].tolist(),
        )
        assert "read the vCPUs uneven" in b.stages and "read the vCPUs uneven" not in a.stages
        assert "0% of PRs read the vCPUs uneven" in b.stages
    # every round uneven: the gate of 14 confirmation rounds (one look: the same rounds, in
    # another order)
    path = _with_vcpus(_recording(tmp_path, "uneven.json", 0.03, rounds=21), [UNEVEN] * 21)
    a, b = _replay(path, Confirm(14, (), 5)), _replay(path, adaptive)
    assert a.gate.false_fail == b.gate.false_fail
    assert a.gate.detect[0.05].tolist() == b.gate.detect[0.05].tolist()
    assert "100% of PRs read the vCPUs uneven" in b.stages and "up to 14 rounds" in b.stages
    # a recording too short for the uneven state's rounds: replayed on what it holds, and said
    short = _with_vcpus(_recording(tmp_path, "short.json", 0.03, rounds=15), [UNEVEN] * 15)
    assert "up to 10 rounds (the recording holds 10, not 14)" in _replay(short, adaptive).stages
    # the shards of a PR read its screening alike
    sharded = shard_replay.replay(
        aa.load_parts(path), 2, lambda n: 0.05, 0.01, looks=[5], prs=50, seed=3, jobs=1,
        budget=None, confirm=adaptive,
    )  # fmt: skip
    assert all("100% of PRs read the vCPUs uneven" in e.stages for e in sharded.evaluations)
    assert (
        "The vCPUs: 100% of PRs read the vCPUs uneven in their screening and confirm in up to "
        "14 rounds." in shard_replay.markdown(sharded, (0.05, 0.10))
    )


@pytest.mark.parametrize(
    ("readings", "field"),
    [
        ("fast", r"vcpus\b"),
        ([EVEN, {"cpus": [0, 1], "wall": [2.0]}], r"vcpus\[1\]"),
        ([{**EVEN, "cpu": [2.0, -1.0]}], r"vcpus\[0\]"),
        ([{**EVEN, "wall": [2.0, True]}], r"vcpus\[0\]"),
        ([[2.0, 3.0]], r"vcpus\[0\]"),
    ],
)
def test_a_recording_with_a_bad_reading_is_refused_naming_it(tmp_path: Path, readings, field):
    path = _with_vcpus(_recording(tmp_path, "bad.json", 0.03), readings)
    with pytest.raises(BadInput, match=rf"bad\.json.*{field}"):
        aa.load_parts(path)


def test_the_repositorys_gate_confirms_in_32_rounds_when_uneven() -> None:
    root = Path(__file__).resolve().parents[2]
    cfg = config.load(root / config.CONFIG_NAME)
    assert cfg.confirm is not None
    assert replace(cfg.confirm, uneven_rounds=None).for_state(True).rounds == cfg.confirm.rounds
    assert cfg.confirm.for_state(True).rounds == cfg.confirm.uneven_rounds > cfg.confirm.rounds
