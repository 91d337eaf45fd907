"""The shipped generator of realistic histories (benchtrack.lab.simulate), the dashboard's rule
of change (benchtrack.dashboard.expected) and what `benchtrack site` derives from both: the range
each series' latest run was expected in, and each runner's machines."""

from __future__ import annotations

import numpy as np
import orjson
import pytest

from benchtrack import cli
from benchtrack.dashboard import expected
from benchtrack.errors import BadInput
from benchtrack.history import open_store
from benchtrack.history.companion import split
from benchtrack.history.extra import machine
from benchtrack.lab import simulate


def test_a_run_outside_its_history_is_a_change_inside_it_is_not() -> None:
    rng = np.random.default_rng(3)
    values = list(100 * np.exp(rng.normal(0, 0.01, 40)))
    r = expected.expected(np.array(values), 40)
    assert r is not None and r.runs == expected.WINDOW
    assert r.judge(r.center * 1.01, "bigger") == expected.INSIDE
    assert r.judge(r.center * 0.85, "bigger") == expected.WORSE
    assert r.judge(r.center * 0.85, "smaller") == expected.BETTER  # less memory, fewer counts
    # at least +-2%: a series that repeats exactly still needs a resolution
    flat = expected.expected(np.full(10, 5.0), 10)
    assert flat.hi / flat.center == pytest.approx(1.02)
    # too few runs since the last step: not judged; the window starts at the step
    assert expected.expected(np.array(values), 3) is None
    stepped = np.array(values[:20] + [v * 1.5 for v in values[20:]])
    assert expected.expected(stepped, 23, [20]) is None
    after = expected.expected(stepped, 30, [20])
    assert after.runs == 10 and after.center == pytest.approx(150, rel=0.02)
    # a heavy tail in the window widens the range: one slow run in ten is not an outlier then
    tail = np.array([100.0] * 27 + [90.0, 100.0, 100.0])
    assert expected.expected(tail, 30).judge(89.0, "bigger") == expected.INSIDE


@pytest.fixture(scope="module")
def wall(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("wall")
    return root, simulate.history(root, "wall", merges=60, seed=2)


def test_the_generator_writes_a_valid_history_with_its_known_steps(wall) -> None:
    root, truth = wall
    store = open_store(str(root))
    assert store.validate() == []
    history = store.read()
    assert sorted(history.runners) == [f"{simulate.LABEL}-{n}cpu" for n in simulate.SIZES]
    runner = history.runners[f"{simulate.LABEL}-2cpu"]
    assert len(runner.commits) == 60 and set(runner.series) == set(truth["series"])
    assert len(truth["steps"]) == simulate.STEPS
    assert sum(s["merge"] == 59 for s in truth["steps"]) == len(simulate.LATEST_FACTORS)
    for step in truth["steps"]:
        assert step["commit"] == truth["commits"][step["merge"]]
        wall_time = runner.series[step["benchmark"]].value
        level = np.median(wall_time[max(0, step["merge"] - 10) : step["merge"]])
        after = np.median(wall_time[step["merge"] : step["merge"] + 5])
        assert after / level == pytest.approx(step["factor"], rel=0.06), step
        count = runner.series.get(f"{step['benchmark']} (instructions)")
        if count is not None:  # "wall": only wall time shows the step
            before, now = count.value[step["merge"] - 1], count.value[step["merge"]]
            assert abs(now / before - 1) < 0.05
    # the noise is the recorded one: a recorded benchmark's runs, not a formula
    assert len(set(runner.series["python/sleep/gather"].value.tolist())) > 10


def test_the_generator_is_deterministic_and_refuses_bad_input(tmp_path, wall) -> None:
    root, _ = wall
    again = simulate.history(tmp_path / "again", "wall", merges=60, seed=2)
    for key in (f"{simulate.LABEL}-{n}cpu" for n in simulate.SIZES):
        a, b = (r / "bench" / key / "data.js" for r in (root, tmp_path / "again"))
        assert a.read_bytes() == b.read_bytes()
    assert again["steps"] == orjson.loads((root / "truth.json").read_bytes())["steps"]
    with pytest.raises(BadInput, match="--scenario"):
        simulate.history(tmp_path / "x", "nope")
    with pytest.raises(BadInput, match="--merges"):
        simulate.history(tmp_path / "x", "wall", merges=10)


def test_the_site_carries_each_latest_runs_expected_range_and_the_machines(tmp_path, wall) -> None:
    root, truth = wall
    assert cli.main(["detect", str(root), "--write"]) in (0, 1)
    assert cli.main(["site", str(root), "--out", str(tmp_path / "site")]) == 0
    raw = (tmp_path / "site/dashboard/data/index.js").read_bytes()
    index = orjson.loads(raw.removeprefix(b"window.BENCHTRACK_INDEX=").rstrip().rstrip(b";"))
    changes = orjson.loads((root / "bench/changes.json").read_bytes())["changes"]
    history = open_store(str(root)).read()
    benches = {b["name"]: b for s in index["suites"] for g in s["groups"] for b in g["benches"]}
    for key, runner in history.runners.items():
        for name, series in runner.series.items():
            held = np.array([float(f"{v:.6g}") for v in series.value])
            steps = [c["index"] for c in changes if c["series"] == name and c["runner"] == key]
            want = expected.expected(held, len(held) - 1, steps)
            got = benches[name]["last"][key][5]
            assert [got[0], got[1], got[2], got[3]] == pytest.approx(
                [want.center, want.lo, want.hi, want.runs], rel=1e-5
            ), (name, key)
    machines = {r["key"]: r["machines"] for r in index["runners"]}
    change = truth["cpu_change"]
    at = index["commits"]["id"].index(change["commit"])
    assert [m[1] for m in machines[change["runner"]]] == [change["from"], change["to"]]
    assert machines[change["runner"]][1][0] == at
    assert all(len(m) == 1 for k, m in machines.items() if k != change["runner"])
    extra = orjson.loads(
        (root / "bench" / change["runner"] / "data.js").read_bytes().split(b"=", 1)[1]
    )["entries"]
    first = next(iter(extra.values()))[0]["benches"][0]["extra"]
    assert machine(first) == (simulate.MACHINE[0], simulate.MACHINE[1])
    assert {split(n)[1] for n in truth["series"]} == {None, "instructions"}


def test_a_step_on_one_size_moves_that_size_only(tmp_path) -> None:
    truth = simulate.history(tmp_path, "wall", merges=40, seed=2, only_size=1)
    history = open_store(str(tmp_path)).read()
    step = next(s for s in truth["steps"] if s["merge"] < 30)
    assert step["size"] == 1
    for n in simulate.SIZES:
        value = history.runners[f"{simulate.LABEL}-{n}cpu"].series[step["benchmark"]].value
        before = np.median(value[max(0, step["merge"] - 5) : step["merge"]])
        after = np.median(value[step["merge"] : step["merge"] + 5])
        assert after / before == pytest.approx(step["factor"] if n == 1 else 1.0, rel=0.06), n
    with pytest.raises(BadInput, match="--only-size"):
        simulate.history(tmp_path / "x", "wall", merges=40, only_size=3)
