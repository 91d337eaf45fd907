"""pr-gate.yml and pr-comment.yml run by a workflow engine (act; see engine_world.py): a pull
request that slows a benchmark fails the gate on both runner sizes and uploads the verdict;
pr-comment.yml, on the workflow_run event GitHub would send, downloads it through the REST API
(the loopback stand-in) and posts one sticky comment, updated (not duplicated) when it runs again.
"""

from __future__ import annotations

import pytest
from engine_world import (
    KEYS,
    MARKER,
    SLOW,
    assert_succeeded,
    make_world,
    needs_engine,
    pull_request,
    run_pr_comment,
    run_pr_gate,
    slower,
)
from workflow_engine import NAME, OWNER, TOKEN

pytestmark = needs_engine


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    # the slowed sleep alone: nothing unchanged to screen or confirm (the sharded test gates both)
    yield from make_world(tmp_path_factory, sleeps="gather")


def test_pull_request_gate_fails_on_a_slowdown_and_the_comment_is_posted(world):
    engine = world["engine"]
    made = pull_request(world, "slow-gather", slower)
    gate_run = 900
    done = run_pr_gate(world, made, gate_run)
    assert done.returncode != 0, done.log[-4000:]
    assert done.jobs.get("runner sizes") == "success", done.jobs
    for key in KEYS:
        assert done.jobs.get(f"gate {key}") == "failure", (key, done.jobs, str(done.log_path))
        assert (engine.artifacts / str(gate_run) / f"gate-{key}" / f"gate-{key}.zip").is_file()
    assert "regressed" in done.log and SLOW in done.log

    for attempt in (1, 2):  # the second run updates the one comment
        commented = run_pr_comment(world, made, done, gate_run, attempt)
        assert_succeeded(commented, "comment")
        (comment,) = engine.api.comments[42]
        assert comment.body.startswith(MARKER)
        assert SLOW in comment.body and "regress" in comment.body.lower()
    calls = [(r["method"], r["path"]) for r in engine.api.requests]
    repo = f"/repos/{OWNER}/{NAME}"
    assert ("GET", f"{repo}/actions/runs/{gate_run}/artifacts") in calls
    assert ("GET", f"{repo}/actions/runs/{gate_run}/jobs") in calls
    assert comment.body.splitlines()[1].startswith("## benchtrack: ❌ this PR")  # the jobs' ❌
    assert calls.count(("POST", f"{repo}/issues/42/comments")) == 1
    assert any(m == "PATCH" and p.startswith(f"{repo}/issues/comments/") for m, p in calls)
    pulls = [r for r in engine.api.requests if r["path"] == f"{repo}/pulls"]
    assert pulls and all(r["query"]["head"] == f"{OWNER}:slow-gather" for r in pulls)
    assert all(r["authorization"] == f"token {TOKEN}" for r in engine.api.requests
               if r["path"].startswith(repo))  # fmt: skip
