"""A sharded pull-request gate run by a workflow engine (act; see engine_world.py): the PR brings
a shard plan (.github/gate-shards.json) and one runner size; the size's build job makes its
builds once (builds-<key>), its gate runs from them as one job a shard (each its benchmark, at
alpha / 2), the size's merge job makes the two verdicts one gate-<key> artifact, and
pr-comment.yml posts it.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from engine_world import (
    KEYS,
    RUNNERS,
    SLOW,
    assert_succeeded,
    make_world,
    needs_engine,
    pull_request,
    run_pr_comment,
    run_pr_gate,
    slower,
)

pytestmark = needs_engine


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    yield from make_world(tmp_path_factory)


def sharded_and_slower(checkout: Path) -> None:
    slower(checkout)
    (checkout / ".github/bench-runners.toml").write_text(RUNNERS.split("\n\n[[runner]]")[0])
    plan = {"schema": "benchtrack.shards/1", "shards": 2,
            "benchmarks": {SLOW: 1, "python/sleep/sequential": 2}}  # fmt: skip
    (checkout / ".github/gate-shards.json").write_text(json.dumps(plan))


def test_a_sharded_pull_request_gate_merges_its_shards_into_one_verdict(world):
    engine = world["engine"]
    key = KEYS[0]
    made = pull_request(world, "sharded", sharded_and_slower, number=43)
    gate_run = 901
    done = run_pr_gate(world, made, gate_run)
    assert done.returncode != 0, done.log[-4000:]
    assert done.jobs.get(f"gate {key} shard 1 of 2") == "failure", (done.jobs, str(done.log_path))
    # Shard 2 (python/sleep/sequential, unchanged) passed: its own verdict says so. Not act's job
    # result, one for a whole matrix (act v0.2.89, pkg/runner/job_executor.go, setJobResult:
    # "only one result for a whole matrix build"), so it reads "failure" when shard 1 ends first.
    with zipfile.ZipFile(
        engine.artifacts / str(gate_run) / f"shard-{key}-2" / f"shard-{key}-2.zip"
    ) as z:
        second = json.loads(z.read("gate.json"))
    assert second["exit_code"] == 0 and second["shard"]["benchmarks"] == ["python/sleep/sequential"]
    # from the build job's builds; the python suite (build_once = false) made its venv here
    assert second["prebuilt"]["file"] == "builds.tar", second.get("prebuilt")
    assert second["prebuilt"]["built_here"] == ["python"], second["prebuilt"]
    assert done.jobs.get(f"build {key}") == "success", done.jobs
    assert f"gate {key} shard 2 of 2" in done.jobs, done.jobs
    assert done.jobs.get(f"merge {key}") == "failure", done.jobs  # the shards' one verdict
    artifacts = engine.artifacts / str(gate_run)
    assert sorted(p.name for p in artifacts.iterdir()) == [
        f"builds-{key}", f"gate-{key}", f"shard-{key}-1", f"shard-{key}-2"]  # fmt: skip
    commented = run_pr_comment(world, made, done, gate_run)
    assert_succeeded(commented, "comment")
    (comment,) = engine.api.comments[43]
    # both shards' benchmarks in one verdict, the merge job's ❌ its mark
    assert SLOW in comment.body and "python/sleep/sequential" in comment.body
    assert comment.body.splitlines()[1].startswith("## benchtrack: ❌ this PR")
