"""Instruction counts as a companion series in main's history, end to end: result documents made
by the real `ingest callgrind` from counts recorded by the bench job's count pass
(tracker/bench/recordings/aa-history-counts-q1.json: every run of every benchmark), turned into
`<name> (instructions)` documents, appended by the real history store commit after commit, and
read back by change-point detection. Only the order of the recorded runs is drawn; one series
gets a 5% step (5% more instructions per element: a regression)."""

from __future__ import annotations

import random
from pathlib import Path

import orjson
import pytest

from benchtrack import detect
from benchtrack.errors import BadInput
from benchtrack.history import new_entries, open_store
from benchtrack.history.companion import as_companion, split
from benchtrack.ingest import ingest
from benchtrack.ingest.callgrind import IRREGULAR, SCHEMA, count_unit
from benchtrack.result import Commit, ResultDocument, Runner

RECORDING = Path(__file__).parents[1] / "bench/recordings/aa-history-counts-q1.json"
RUNNER = Runner("ubuntu-latest", 2, "AMD EPYC", "Linux", "x86_64")
COMMITS = 24
STEP_AT = 14
STEPPED = "python/fileio/to_thread_gather/tmp (instructions)"  # its runs spread ~1%


def throughput_unit(unit: str) -> str:
    """`instructions/item` -> `items/s`, the harness's unit that ingest turns back into it."""
    thing = unit.removeprefix("instructions/")
    things = {v: k for k, v in IRREGULAR.items()}.get(thing, thing + "s")
    assert count_unit(f"{things}/s") == unit, unit
    return f"{things}/s"


def recorded_runs() -> dict[str, tuple[str, list[list[float]]]]:
    """name -> (throughput unit, every recorded run's per-element counts)."""
    doc = orjson.loads(RECORDING.read_bytes())
    out = {}
    for key, b in doc["benchmarks"].items():
        runs = [run for side in ("base", "head") for run in b[side] if run]
        out[split(key)[0]] = (throughput_unit(b["unit"]), runs)
    return out


def commit(i: int) -> Commit:
    sha = f"{i:04x}" + "cd" * 18
    return Commit(sha, f"change {i}", f"2026-05-{1 + i:02d}T10:00:00Z", "Dev", "d@x", None)


def counts_documents(
    tmp: Path, i: int, runs, rng: random.Random, suites=("rust", "python", "perl")
) -> list[ResultDocument]:
    """One bench job's count pass at commit `i`: per suite a raw `benchtrack.callgrind/1` file of
    one recorded run per benchmark (elements 1: the recorded counts are per element already)."""
    docs = []
    for suite in suites:
        benches = []
        for name, (unit, per_run) in sorted(runs.items()):
            if not name.startswith(f"{suite}/"):
                continue
            factor = 1.05 if f"{name} (instructions)" == STEPPED and i >= STEP_AT else 1.0
            counts = [x * factor for x in rng.choice(per_run)]
            benches.append({"name": name, "elements": 1, "unit": unit, "instructions": counts})
        raw = tmp / f"raw-{i}" / f"{suite}.json"
        raw.parent.mkdir(parents=True, exist_ok=True)
        raw.write_bytes(orjson.dumps({"schema": SCHEMA, "command": [], "benchmarks": benches}))
        doc = ingest("callgrind", raw, commit(i), RUNNER, f"2026-05-{1 + i:02d}T11:00:00Z")
        docs.append(as_companion(doc, raw))
    return docs


@pytest.fixture(scope="module")
def history(tmp_path_factory) -> Path:
    if not RECORDING.is_file():
        pytest.fail(f"{RECORDING} is missing (see tracker/bench/recordings/README.md)")
    tmp = tmp_path_factory.mktemp("companion")
    root = tmp / "history"
    runs = recorded_runs()
    rng = random.Random(16)
    store = open_store(root)
    for i in range(COMMITS):
        docs = counts_documents(tmp, i, runs, rng)
        store.append(new_entries([(f"{d.suite}.json", d) for d in docs]))
    return root


def test_counts_are_stored_as_instructions_series_of_the_smaller_is_better_entry(history):
    assert open_store(history).validate() == []
    text = (history / "bench/ubuntu-latest-2cpu/data.js").read_text()
    assert '"ubuntu-latest-2cpu (smaller is better)"' in text
    assert '"tool": "customSmallerIsBetter"' in text and "customBiggerIsBetter" not in text
    runner = open_store(history).read().runners["ubuntu-latest-2cpu"]
    assert STEPPED in runner.series and len(runner.series[STEPPED]) == COMMITS
    assert all(name.endswith(" (instructions)") for name in runner.series)


def test_a_5_percent_step_in_a_count_series_is_found_at_its_commit_and_nothing_else(history):
    report = detect.analyse(history, now="2026-06-01T00:00:00Z")
    found = [(c.series, c.index, c.regression) for c in report.changes]
    assert found == [(STEPPED, STEP_AT, True)], found
    [change] = report.changes
    assert change.direction == "smaller"
    assert change.change == pytest.approx(0.05, abs=0.015)


def test_a_companion_name_in_a_suite_of_its_own_kind_only(tmp_path):
    runs = {"perl/coro/async/trivial": ("tasks/s", [[100.0, 101.0, 100.5]])}
    [doc] = counts_documents(tmp_path, 0, runs, random.Random(1), suites=("perl",))
    data = orjson.loads(doc.to_json())
    data["suite"] = "perl"  # `<name> (instructions)` outside perl-instructions
    with pytest.raises(BadInput, match=r"benchmarks\[0\]\.name.*suite 'perl/'"):
        ResultDocument.from_dict(data, "doc.json")
    data["suite"], data["benchmarks"][0]["unit"] = "perl-instructions", "tasks/s"
    data["benchmarks"][0].pop("direction")
    with pytest.raises(BadInput, match=r"benchmarks\[0\]\.unit.*instructions/<thing>"):
        ResultDocument.from_dict(data, "doc.json")
