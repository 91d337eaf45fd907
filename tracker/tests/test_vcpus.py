"""machine/vcpus.py: each CPU's speed at a round's start, carried to the recording, gate.json,
the job summary and the PR comment. What a reading is (its speeds) is a figure of the machine
(tracker/LAB.md); these tests hold what cannot depend on it: a reading for every CPU, in order,
the thread's affinity put back, the summary's arithmetic, and bad values refused."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from benchtrack.commands import gate_merge
from benchtrack.errors import BadInput
from benchtrack.gate import comment, render
from benchtrack.gate.outcome import Outcome, Row
from benchtrack.machine import vcpus

pytestmark = pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="Linux affinity")


def test_a_probe_reads_every_cpu_in_order_and_puts_the_affinity_back() -> None:
    mine = sorted(os.sched_getaffinity(0))
    order = mine[::-1]
    r = vcpus.probe(order)
    assert r is not None and r.cpus == tuple(order)
    assert len(r.wall) == len(r.cpu) == len(order) and all(x > 0 for x in r.wall + r.cpu)
    assert sorted(os.sched_getaffinity(0)) == mine
    assert r.to_dict() == {"cpus": order, "wall": list(r.wall), "cpu": list(r.cpu)}


def test_a_probe_in_one_thread_leaves_the_others_where_they_were() -> None:
    """The gate probes from its main thread while the counts' thread waits on its processes:
    only the probing thread is moved."""
    mine = os.sched_getaffinity(0)
    seen: dict[str, set[int]] = {}
    moved, done = threading.Event(), threading.Event()

    def other() -> None:
        moved.wait(5)
        seen["other"] = os.sched_getaffinity(0)
        done.set()

    t = threading.Thread(target=other)
    t.start()
    os.sched_setaffinity(0, {min(mine)})
    try:
        moved.set()
        done.wait(5)
    finally:
        os.sched_setaffinity(0, mine)
    t.join()
    assert seen["other"] == mine  # setaffinity(0) is the calling thread's, as probe relies on
    assert vcpus.probe(sorted(mine)) is not None and os.sched_getaffinity(0) == mine


def test_a_cpu_that_is_not_ours_gives_no_reading_and_the_affinity_back() -> None:
    mine = os.sched_getaffinity(0)
    assert vcpus.probe([max(mine), 4095]) is None
    assert os.sched_getaffinity(0) == mine
    assert vcpus.probe([]) is None


def test_the_summary_is_the_rounds_median_spread_by_each_clock() -> None:
    rounds = [
        {"cpus": [0, 1], "wall": [2.0, 3.0], "cpu": [2.0, 2.0]},
        {"cpus": [0, 1], "wall": [2.0, 3.2], "cpu": [2.0, 2.1]},
        {"cpus": [0, 1], "wall": [4.0, 2.0], "cpu": [2.0, 2.0]},  # CPU 0 the slower one
    ]
    s = vcpus.summary(rounds)
    assert s == {"wall_apart": 1.6, "cpu_apart": 1.0, "wall_apart_max": 2.0, "rounds": 3}
    assert "vCPUs uneven: a pinned loop 1.60x apart by wall time, 1.00x by CPU time" in (
        vcpus.describe(s)
    )
    even = vcpus.summary([{"cpus": [0, 1], "wall": [2.0, 2.1], "cpu": [2.0, 2.1]}])
    assert even is not None and vcpus.describe(even).startswith("vCPUs even: ")
    assert "(median of 1 round)" in vcpus.describe(even)
    assert vcpus.summary([{"cpus": [0], "wall": [2.0], "cpu": [2.0]}]) is None
    assert vcpus.summary([]) is None


def _outcome(meta: dict) -> Outcome:
    row = Row(
        name="python/sleep/gather", suite="python", unit="sleeps/s", direction="bigger",
        base=70.0, head=70.0, change=0.0, lo=-0.01, hi=0.01, verdict="unchanged",
        threshold=0.05, rounds=8,
    )  # fmt: skip
    o = Outcome([row], [], [], {"base": {}, "head": {}}, [], 0.01, [8])
    o.meta = {
        "base": {"ref": "0123abcd", "sha": "0123abcd" * 5},
        "head": {"ref": "HEAD", "sha": "89abcdef" * 5},
        "rounds": 8, "seconds": 61.2, "threshold": 0.05, "n_looks": 1, **meta,
    }  # fmt: skip
    return o


UNEVEN = {"wall_apart": 1.52, "cpu_apart": 1.01, "wall_apart_max": 1.6, "rounds": 8}


def test_the_job_summary_and_the_comment_say_how_far_apart_the_vcpus_ran(tmp_path: Path) -> None:
    o = _outcome({"vcpus": UNEVEN})
    assert "vCPUs uneven: a pinned loop 1.52x apart by wall time" in render.method_line(o)
    assert "vCPUs" not in render.method_line(_outcome({}))  # one CPU, or a gate.json from before
    path = tmp_path / "gate-ubuntu-latest-2cpu" / "gate.json"
    path.parent.mkdir()
    path.write_text(json.dumps(o.to_dict()))
    assert comment.load(path).meta["vcpus"] == UNEVEN
    body, _ = comment.comment(tmp_path)
    assert "1.52x apart by wall time, 1.01x by CPU time (median of 8 rounds)" in body


@pytest.mark.parametrize(
    ("value", "field"),
    [
        ("fast", "vcpus"),
        ({**UNEVEN, "wall_apart": 0.5}, "vcpus.wall_apart"),
        ({**UNEVEN, "cpu_apart": "1.0"}, "vcpus.cpu_apart"),
        ({**UNEVEN, "wall_apart_max": None}, "vcpus.wall_apart_max"),
        ({**UNEVEN, "rounds": 1.5}, "vcpus.rounds"),
    ],
)
def test_a_bad_vcpus_summary_is_refused_naming_its_field(tmp_path: Path, value, field) -> None:
    path = tmp_path / "gate.json"
    doc = _outcome({}).to_dict()
    doc["vcpus"] = value
    path.write_text(json.dumps(doc))
    with pytest.raises(BadInput, match=field.replace(".", r"\.")):
        comment.load(path)


def test_merged_shards_keep_the_most_uneven_jobs_reading() -> None:
    even = {"wall_apart": 1.02, "cpu_apart": 1.01, "wall_apart_max": 1.05, "rounds": 29}
    found = {1: _outcome({"vcpus": even}), 2: _outcome({"vcpus": UNEVEN}), 3: _outcome({})}
    merged = gate_merge.merge(found, 3, {})
    assert merged.meta["vcpus"] == UNEVEN
