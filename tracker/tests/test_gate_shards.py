"""Shards of one runner size (gate/shards.py): the plan, its file, the gate-side filter, and the
commands' bad input. The shards measured and merged end to end: test_gate_e2e.py."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from benchtrack.errors import BadInput
from benchtrack.gate import shards

RECORDING = Path(__file__).resolve().parents[1] / "bench/recordings/aa-all-quiet-q18.json.gz"


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "benchtrack.cli", *args], capture_output=True, text=True, cwd=cwd
    )


def test_a_shard_measures_its_planned_benchmarks_and_its_hash_share_of_the_rest() -> None:
    split = {"rust/streams/a": 1, "rust/streams/b": 2, "python/c": 2}
    first, second = (shards.wanted(split, k, 2) for k in (1, 2))
    # criterion's ids lack the `rust/` prefix: both forms are the planned benchmark's
    assert first("rust/streams/a") and first("streams/a")
    assert not first("rust/streams/b") and not first("streams/b") and not first("python/c")
    assert second("rust/streams/b") and second("python/c") and not second("streams/a")
    # one not named (new since the plan) is exactly one shard's, the same one on every call
    new = [f"rust/new_{i}" for i in range(40)]
    assert all(first(n) != second(n) for n in new)
    assert {shards.by_name(n, 2) for n in new} == {1, 2}  # spread, not all on the first
    assert [shards.by_name(n, 2) for n in new] == [shards.by_name(n, 2) for n in new]
    # a plan that names none (init's, before any seconds are recorded): by name alone
    names = [f"go/Benchmark{i}" for i in range(300)]
    dealt = [[n for n in names if shards.wanted({}, k, 3)(n)] for k in (1, 2, 3)]
    assert sorted(n for d in dealt for n in d) == sorted(names)  # each in exactly one shard
    assert all(70 <= len(d) <= 130 for d in dealt), [len(d) for d in dealt]


def test_shard_plan_deals_a_recordings_benchmarks_by_their_seconds(tmp_path: Path) -> None:
    out = tmp_path / "plan.json"
    done = cli("shard-plan", str(RECORDING), "--shards", "2", "--out", str(out))
    assert done.returncode == 0, done.stderr
    doc = orjson.loads(out.read_bytes())
    # the 75 of its 80 benchmarks stepped in lockstep have seconds; the 5 run whole (RSS) are
    # in no plan, so the first shard measures them
    assert doc["schema"] == shards.SCHEMA and len(doc["benchmarks"]) == 75
    loads = [sum(doc["seconds"][n] for n, k in doc["benchmarks"].items() if k == j) for j in (1, 2)]
    assert max(loads) / min(loads) < 1.05, loads  # 80 benchmarks of a few seconds each
    assert shards.read_plan(out) == (2, doc["benchmarks"])


def test_the_fewest_shards_whose_rounds_fit_the_minutes() -> None:
    seconds = {"a": 10.0, "b": 10.0, "c": 10.0, "d": 10.0}  # 40 s a round, 6 rounds: 4 minutes
    assert shards.fewest(seconds, 6, 4.0) == 1
    assert shards.fewest(seconds, 6, 3.9) == 2  # 20 s a round each
    assert shards.fewest(seconds, 6, 1.0) == 4
    assert shards.fewest(seconds, 6, 0.9) is None  # a benchmark's own 60 s is longer
    # uneven seconds: the count is where LPT's slowest shard first fits, not total / minutes
    assert shards.fewest({"big": 30.0, "s1": 5.0, "s2": 5.0, "s3": 5.0}, 2, 1.0) == 2


def test_shard_plan_fit_writes_the_fewest_shards_that_hold_the_gates_rounds(tmp_path: Path) -> None:
    from benchtrack.gate import config

    repo_config = Path(__file__).resolve().parents[2] / config.CONFIG_NAME
    rounds = config.load(repo_config).even_rounds
    out = tmp_path / "plan.json"
    done = cli("shard-plan", str(RECORDING), "--fit", "10", "--config", str(repo_config),
               "--out", str(out))  # fmt: skip
    assert done.returncode == 0, done.stderr
    doc = orjson.loads(out.read_bytes())
    n = doc["shards"]
    slowest = lambda split, k: max(  # noqa: E731
        sum(doc["seconds"][b] for b, j in split.items() if j == i) for i in range(k)
    )
    assert slowest({b: k - 1 for b, k in doc["benchmarks"].items()}, n) * rounds <= 600
    assert slowest(shards.plan(doc["seconds"], n - 1), n - 1) * rounds > 600  # one fewer: not
    assert f"in {n} shards" in done.stdout and f"{rounds} rounds" in done.stdout
    # a time one runner holds: said, and no plan written
    one = tmp_path / "one.json"
    done = cli("shard-plan", str(RECORDING), "--fit", "1000", "--config", str(repo_config),
               "--out", str(one))  # fmt: skip
    assert done.returncode == 0 and "no plan written" in done.stdout and not one.exists()
    # a time no count of shards holds, or none at all: bad input naming --fit, nothing written
    for minutes in ("0.01", "0", "-3"):
        bad = cli("shard-plan", str(RECORDING), "--fit", minutes, "--config", str(repo_config),
                  "--out", str(one))  # fmt: skip
        assert bad.returncode == 2 and "--fit" in bad.stderr and not one.exists(), bad.stderr
    bad = cli("shard-plan", str(RECORDING), "--fit", "10", "--shards", "2", "--out", str(one))
    assert bad.returncode == 2 and "not allowed with" in bad.stderr and not one.exists()


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("{", None),
        ('{"schema": "x"}', "schema"),
        ('{"schema": "benchtrack.shards/1", "shards": 0, "benchmarks": {}}', "shards"),
        ('{"schema": "benchtrack.shards/1", "shards": 2, "benchmarks": {"a": 3}}', "benchmarks"),
    ],
)
def test_a_bad_plan_is_bad_input_naming_the_field(tmp_path: Path, text: str, field) -> None:
    path = tmp_path / "plan.json"
    path.write_text(text)
    with pytest.raises(BadInput) as e:
        shards.read_plan(path)
    assert e.value.field == field or (field and field in str(e.value))


def test_the_commands_refuse_bad_shards_and_write_nothing(tmp_path: Path) -> None:
    plan = tmp_path / "plan.json"
    shards.write_plan(plan, 2, {"a": 1.0, "b": 1.0})
    bad = cli("shard-plan", str(RECORDING), "--shards", "1", "--out", str(tmp_path / "p1.json"))
    assert bad.returncode == 2 and "--shards" in bad.stderr and not (tmp_path / "p1.json").exists()
    empty = tmp_path / "empty.json"
    empty.write_text("{}")
    bad = cli("shard-plan", str(empty), "--shards", "2", "--out", str(tmp_path / "p2.json"))
    assert bad.returncode == 2 and "bench_seconds" in bad.stderr
    assert not (tmp_path / "p2.json").exists()
    # evaluate's sharded figures have no JSON form: refused, not ignored
    bad = cli("evaluate", str(RECORDING), "--shards", "2", "--json")
    assert bad.returncode == 2 and "--json" in bad.stderr and not bad.stdout.strip()
    bad = cli("gate", "--base", "HEAD", "--shard", "3/2", "--shard-plan", str(plan))
    assert bad.returncode == 2 and "--shard" in bad.stderr
    bad = cli("gate", "--base", "HEAD", "--shard", "1/3", "--shard-plan", str(plan))
    assert bad.returncode == 2 and "the plan has 2 shards" in bad.stderr
    # a gate.json that is no shard of this plan
    verdict = tmp_path / "v" / "gate.json"
    verdict.parent.mkdir()
    verdict.write_bytes(orjson.dumps({"schema": "benchtrack.gate/1", "benchmarks": [],
                                      "only_base": [], "only_head": [], "failed": {},
                                      "suite_failures": [], "alpha": 0.01}))  # fmt: skip
    out = tmp_path / "merged"
    bad = cli("gate-merge", "--plan", str(plan), "--out", str(out), str(verdict))
    assert bad.returncode == 2 and "shard" in bad.stderr and not out.exists()
    # one whose shard is not a pair of counts, or another plan's: named by its field
    for shard in ({"index": "1", "of": 2}, {"index": 1, "of": 3}):
        verdict.write_bytes(orjson.dumps({**orjson.loads(verdict.read_bytes()), "shard": shard}))
        bad = cli("gate-merge", "--plan", str(plan), "--out", str(out), str(verdict))
        assert bad.returncode == 2 and f"{verdict}: " in bad.stderr and "shard" in bad.stderr
        assert "Traceback" not in bad.stderr and not out.exists()
    # a shard's gate.json that is not there (its job never uploaded one): named, not a traceback
    missing = tmp_path / "absent" / "gate.json"
    bad = cli("gate-merge", "--plan", str(plan), "--out", str(out), str(missing))
    assert bad.returncode == 2 and f"{missing}: expected a gate.json file" in bad.stderr
    assert "Traceback" not in bad.stderr and not out.exists()


def test_the_merged_verdict_says_the_slowest_shards_time(tmp_path: Path) -> None:
    """The PR waits for its slowest shard: the merged summary's "took" is that shard's, read
    from the shards' gate.json files as gate-merge reads them (comment.load once dropped the
    durations, so a real sharded run's summary never said it: tracker/bench/engine_1000.py)."""
    from benchtrack.commands import gate_merge
    from benchtrack.gate import comment, render

    def shard(k: int, seconds: float, builds: float | None) -> Path:
        path = tmp_path / str(k) / "gate.json"
        path.parent.mkdir()
        path.write_bytes(orjson.dumps({"schema": "benchtrack.gate/1", "benchmarks": [],
            "only_base": [], "only_head": [], "failed": {}, "suite_failures": [],
            "alpha": 0.005, "shard": {"index": k, "of": 2}, "gate_seconds": seconds,
            "build_seconds": builds, "diagnosis_seconds": 0.0}))  # fmt: skip
        return path

    found = {1: comment.load(shard(1, 300.0, 100.0)), 2: comment.load(shard(2, 420.0, None))}
    merged = gate_merge.merge(found, 2, {})
    assert merged.meta["gate_seconds"] == 420.0 and merged.meta["build_seconds"] == 100.0
    assert render.took(merged.meta) == " · its slowest shard took 7.0 min (builds 1.7 min)"
    with pytest.raises(BadInput, match="gate_seconds"):  # a duration, not any number
        comment.load(shard(3, -1.0, 0.0))


def test_the_merge_and_the_comment_read_every_name_the_gate_writes(tmp_path: Path) -> None:
    """A harness names its benchmarks `<suite>/<its own name>` with as many segments as it likes
    (result.NAME_RE): a custom lockstep harness's `synth/b0011`, one Go package's
    `go/BenchmarkX`, a Go sub-benchmark's five. The gate measures and writes them, so gate-merge
    and gate-comment read them: the merge once refused a name of two segments (docs/
    conventions.md's three or four for this repository's suites) at the end of a sharded PR
    (tracker/bench/engine_1000.py)."""
    from benchtrack.gate.outcome import Outcome, Row

    names = {1: ["synth/b0011", "synth/g1/b0012"], 2: ["go/BenchmarkX", "go/p/BenchmarkY/n=8/w=2"]}
    plan = tmp_path / "plan.json"
    shards.write_plan(plan, 2, {n: 1.0 for k in names for n in names[k]})
    paths = []
    for k, shard_names in names.items():
        rows = [Row(name=n, suite=n.split("/")[0], unit="calls/s", direction="bigger",
                    base=100.0, head=100.0, change=0.0, lo=-0.01, hi=0.01, verdict="unchanged",
                    threshold=0.05, rounds=5) for n in shard_names]  # fmt: skip
        failed = {"base": {}, "head": {"synth/g2/b0013/x/y": "exit 1"} if k == 1 else {}}
        outcome = Outcome(rows, [], [], failed, [], 0.005, [5], {"shard": {"index": k, "of": 2}})
        path = tmp_path / "shards" / str(k) / "gate.json"
        path.parent.mkdir(parents=True)
        path.write_bytes(orjson.dumps(outcome.to_dict()))  # as the gate writes it
        paths.append(str(path))
    out = tmp_path / "artifacts" / "gate-x"
    merged = cli("gate-merge", "--plan", str(plan), "--out", str(out), *paths)
    assert merged.returncode == 3, merged.stderr  # the step error, not a refused name (2)
    md = (out / "gate.md").read_text()
    assert all(f"`{n}`" in md for k in names for n in names[k]) and "synth/g2/b0013/x/y" in md
    comment_md = tmp_path / "comment.md"
    shown = cli("gate-comment", "--artifacts", str(out.parent), "--out", str(comment_md))
    assert shown.returncode == 0, shown.stderr
    assert "synth/b0011" in comment_md.read_text()
