"""A suite too large for one runner, adopted with `benchtrack init` (issue 44, "init writes
shards"): init writes a plan that deals every benchmark by its name (gate/shards.by_name) and a
workflow of one gate job a shard and a merge job, through the composite action's `shard` input
and `merge` mode. The shards measured and merged end to end: test_gate_e2e.py; the action's
steps for a mode: test_adopt.py."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from benchtrack.adopt import templates
from benchtrack.gate import shards

ACTION = "example/benchtrack@v1"


def cli(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "benchtrack.cli", *args], cwd=cwd, capture_output=True, text=True
    )


def go_module(path: Path, benchmarks: int) -> Path:
    path.mkdir(parents=True)
    (path / "go.mod").write_text("module example.com/big\n\ngo 1.21\n")
    body = [f"func BenchmarkB{i}(b *testing.B) {{ for j := 0; j < b.N; j++ {{ _ = j }} }}"
            for i in range(benchmarks)]  # fmt: skip
    (path / "big_test.go").write_text("\n".join(["package big", 'import "testing"', *body]))
    return path


def test_init_shards_a_suite_one_runner_cannot_hold_and_not_a_small_one(tmp_path: Path) -> None:
    small = go_module(tmp_path / "small", 36)
    done = cli(small, "init", "--action", ACTION)
    assert done.returncode == 0, done.stderr
    assert not (small / templates.SHARD_PLAN).exists()
    assert "strategy" not in (small / templates.WORKFLOW).read_text()

    big = go_module(tmp_path / "big", 400)
    done = cli(big, "init", "--action", ACTION)
    assert done.returncode == 0, done.stderr
    assert "the gate runs as 3 shards" in done.stdout
    n, split = shards.read_plan(big / templates.SHARD_PLAN)
    assert (n, split) == (3, {})  # no names yet: every benchmark dealt by its name
    flow = yaml.safe_load((big / templates.WORKFLOW).read_text())
    gate, merge = flow["jobs"]["gate"], flow["jobs"]["gate-merge"]
    assert gate["strategy"]["matrix"]["shard"] == ["1/3", "2/3", "3/3"]
    assert gate["strategy"]["fail-fast"] is False  # every shard's verdict, whatever one says
    action = next(s for s in gate["steps"] if s["uses"] == ACTION)
    builds = str(templates.BUILDS)  # made once by gate-build, each shard measures them
    assert action["with"] == {"mode": "gate", "shard": "${{ matrix.shard }}", "builds": builds}
    build = flow["jobs"]["gate-build"]
    assert gate["needs"] == "gate-build" and "strategy" not in build
    assert next(s for s in build["steps"] if s["uses"] == ACTION)["with"] == {
        "mode": "build", "builds": builds}  # fmt: skip
    assert build["steps"][-1]["with"]["path"] == builds
    download = next(s for s in gate["steps"] if "download-artifact" in s["uses"])
    assert download["with"]["name"] == build["steps"][-1]["with"]["name"]
    upload = gate["steps"][-1]
    assert upload["if"] == "${{ !cancelled() }}"  # a regression exits 1: its verdict still goes
    assert upload["with"]["path"] == "target/bench/gate/gate.json"
    assert merge["needs"] == "gate" and "!cancelled()" in merge["if"]
    download, last = merge["steps"][1], merge["steps"][-1]
    assert download["with"]["path"] == "target/benchtrack-shards"
    assert last["with"] == {"mode": "merge"}
    # what the action's inputs default to is what the workflow relies on
    inputs = yaml.safe_load((Path(__file__).parents[2] / "action.yml").read_text())["inputs"]
    assert inputs["shard-plan"]["default"] == str(templates.SHARD_PLAN)
    assert inputs["shard-verdicts"]["default"] == download["with"]["path"]
    # each shard's round holds its share: pair_seconds from 134 benchmarks, not 400
    config = (big / "benchtrack.toml").read_text()
    prose = " ".join(line.removeprefix("# ") for line in config.splitlines())
    assert "(400 here, 400 in all, 134 a shard of 3)" in prose
    assert "pair_seconds = 0.35" in config  # 60 s / 134 less Go's warm-up, above the 0.25 floor
    actionlint = shutil.which("actionlint") or str(Path.home() / "go/bin/actionlint")
    if Path(actionlint).is_file():
        done = subprocess.run([actionlint, "-no-color", str(templates.WORKFLOW)], cwd=big,
                              capture_output=True, text=True)  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr


def test_the_merge_of_shards_that_uploaded_nothing_measures_nothing_and_fails(tmp_path) -> None:
    """The merge job's download found no verdict (every shard failed before writing one): the
    merge says every shard's benchmarks were not measured, exit 3, never a pass."""
    plan = tmp_path / "plan.json"
    plan.write_bytes(shards.plan_bytes(shards.plan_doc(3, {})))
    out = tmp_path / "out"
    done = cli(tmp_path, "gate-merge", "--plan", str(plan), "--out", str(out),
               str(tmp_path / "never-downloaded") + "/")  # fmt: skip
    assert done.returncode == 3, done.stdout + done.stderr
    failed = json.loads((out / "gate.json").read_text())["failed"]["head"]
    assert sorted(failed) == [f"shard {k}/3's unplanned benchmarks" for k in (1, 2, 3)]
    # a missing file (not DIR/) is still bad input naming it, nothing written
    again = tmp_path / "again"
    done = cli(tmp_path, "gate-merge", "--plan", str(plan), "--out", str(again),
               str(tmp_path / "missing.json"))  # fmt: skip
    assert done.returncode == 2 and "missing.json" in done.stderr
    assert not (again / "gate.json").exists()


@pytest.mark.parametrize("n", [2, 5])
def test_init_shards_are_enough_for_each_round_to_fit(n: int) -> None:
    """shards_needed: the fewest shards whose round of their share, at the shortest
    pair_seconds, fits the 60 s round init plans for."""
    from benchtrack.adopt.harnesses import Found, Lockstep
    from benchtrack.suites import Suite

    per = 1.0 - templates.PAIR_SECONDS[0]  # 1 s a benchmark at the shortest pairs
    fits = int(templates.ROUND_SECONDS)  # a shard's most: 60
    gate = Lockstep("b", "c", fits * n, per)
    suite = Found(Suite(name="s", command="c", adapter="gotest", raw="r"), gate)
    assert templates.shards_needed([suite]) == n
    bigger = Found(suite.suite, Lockstep("b", "c", fits * n + 1, per))
    assert templates.shards_needed([bigger]) == n + 1


def test_a_sharded_pytest_suite_makes_its_venv_in_each_shard(tmp_path: Path) -> None:
    """Nothing to carry: a pytest suite's build is its venv (absolute paths, its packages'
    weight), made by each shard (build_once = false), so the workflow has no gate-build job."""
    repo = tmp_path / "py"
    (repo / "tests").mkdir(parents=True)
    (repo / "pyproject.toml").write_text(
        '[project]\nname = "bigpy"\nversion = "0.1"\ndependencies = []\n'
        '[dependency-groups]\nbench = ["pytest-benchmark"]\n'
    )
    body = [f"def test_b{i}(benchmark):\n    benchmark(lambda: None)\n" for i in range(400)]
    (repo / "tests" / "test_bench.py").write_text("\n".join(body))
    done = cli(repo, "init", "--action", ACTION)
    assert done.returncode == 0 and "the gate runs as 2 shards" in done.stdout, done.stderr
    assert "\nbuild_once = false\n" in (repo / "benchtrack.toml").read_text()
    flow = yaml.safe_load((repo / templates.WORKFLOW).read_text())
    assert "gate-build" not in flow["jobs"] and "needs" not in flow["jobs"]["gate"]
    action = next(s for s in flow["jobs"]["gate"]["steps"] if s["uses"] == ACTION)
    assert action["with"] == {"mode": "gate", "shard": "${{ matrix.shard }}"}
