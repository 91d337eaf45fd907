"""What the workflow-engine tests share: a local bare `origin` holding this commit's tree less
what no job reads (test_workflows_local.origin_and_clone; plus one commit that lists two runner
sizes, the tests' own configuration), a developer's clone pushing to it, act's view of a commit,
and a pull request's refs, events and runs.

Each test file makes its own origin and engine (a module fixture), so the files run on separate
pytest-xdist workers at once; nothing here depends on another file's runs.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from test_workflows_local import git, origin_and_clone, run
from workflow_engine import (
    NAME,
    OWNER,
    Engine,
    Run,
    act_binary,
    event_repository,
    node24_bin,
)

REPO = Path(__file__).resolve().parents[2]
KEYS = ["ubuntu-latest-1cpu", "ubuntu-latest-2cpu"]
RUNNERS = """\
# Two sizes on one standard runner: what the engine test runs (its own configuration).
[[runner]]
runs-on = "ubuntu-latest"
cpus = 1
pin = true
enabled = true

[[runner]]
runs-on = "ubuntu-latest"
cpus = 2
pin = true
enabled = true
"""
PYTHON_GATE_FILTER = re.compile(r'(?m)^BENCH_FILTER = "\^python/\(sleep/\|cpu/.*$')
SLOW = "python/sleep/gather"
MARKER = "<!-- benchtrack-gate -->"

needs_engine = pytest.mark.skipif(
    act_binary() is None or node24_bin() is None or shutil.which("cargo-make") is None,
    reason="act, Node 24 and cargo-make are installed by `cargo make setup`",
)


def make_world(tmp_path_factory, sleeps: str = "gather|sequential"):
    """A module fixture's body: origin, the developer's clone, the engine (closed after).
    `sleeps`: the python gate suite's benchmarks, python/sleep/(`sleeps`)."""
    tmp = tmp_path_factory.mktemp("engine")
    origin, dev = origin_and_clone(tmp, "dev")  # dev: where the test's developer commits
    (dev / ".github/bench-runners.toml").write_text(RUNNERS)
    # The python gate suite's harness loads only the benchmarks the PR tests gate: the gate's
    # filter (run_pr_gate's BENCH_FILTER) only skips the rest after their warm-up, every round.
    config = dev / "benchtrack.toml"
    text, n = PYTHON_GATE_FILTER.subn(
        f'BENCH_FILTER = "^python/sleep/({sleeps})$"', config.read_text()
    )
    assert n == 1, "benchtrack.toml: the python gate suite's BENCH_FILTER"
    # A candidate's confirmation in 4 rounds, not up to 16: the sleep doubled is regressed in
    # the screening's 5 rounds (its interval below 0 while its rounds' log-ratios spread with a
    # standard deviation under ~20%; at 3 rounds it would be ~5%, which a busy machine's rounds
    # reach), and what the tests check is the workflows' wiring, not how a noisy candidate is
    # decided (test_gate_confirm.py, test_gate_e2e.py).
    text, n = re.subn(r"(?m)^\[gate\.confirm\]\nrounds = \d+\nlooks = \[[\d, ]*\]$",
                      "[gate.confirm]\nrounds = 4\nlooks = []", text)  # fmt: skip
    assert n == 1, "benchtrack.toml: [gate.confirm]'s rounds and looks"
    config.write_text(text)
    # This repository's own shard plan deals its 80 benchmarks; a test that shards writes its
    # own (test_workflows_engine_shards.py), the others run one job a runner size.
    git(dev, "rm", "-q", "--ignore-unmatch", ".github/gate-shards.json")
    git(
        dev,
        "commit",
        "-qam",
        "engine test: two runner sizes, the python gate suite's sleeps, 4 confirmation rounds",
    )
    git(dev, "push", "-q", "-f", "origin", "main")
    git(origin, "symbolic-ref", "HEAD", "refs/heads/main")
    engine = Engine(tmp, origin)
    yield {"tmp": tmp, "origin": origin, "dev": dev, "engine": engine, "sleeps": sleeps}
    engine.close()


def workdir(world, name: str, sha: str) -> Path:
    """The repository act reads the workflows and the event's commit from (a runner's view)."""
    path = world["tmp"] / name
    if path.exists():
        shutil.rmtree(path)
    run(world["tmp"], "git", "clone", "-q", str(world["origin"]), str(path))
    git(path, "checkout", "-q", "--detach", sha)
    git(path, "remote", "set-url", "origin", f"https://github.com/{OWNER}/{NAME}")
    return path


def assert_succeeded(done: Run, *jobs: str) -> None:
    assert done.returncode == 0, done.log[-6000:]
    for job in jobs:
        assert done.jobs.get(job) == "success", (job, done.jobs, str(done.log_path))


def pull_request(world, branch: str, change, number: int = 42) -> dict:
    """A PR branch on main with one commit, and the refs GitHub makes for it: refs/pull/N/head
    and refs/pull/N/merge (the merge of head into main that pull_request runs check out)."""
    dev = world["dev"]
    git(dev, "checkout", "-q", "-B", branch, "main")
    change(dev)
    git(dev, "add", "-A")
    git(dev, "commit", "-qm", branch)
    head = git(dev, "rev-parse", "HEAD")
    base = git(dev, "rev-parse", "main")
    git(dev, "checkout", "-q", "--detach", "main")
    git(dev, "merge", "-q", "--no-ff", "-m", f"Merge {head} into {base}", head)
    merge = git(dev, "rev-parse", "HEAD")
    git(dev, "push", "-q", "origin", f"{head}:refs/heads/{branch}",
        f"{head}:refs/pull/{number}/head", f"{merge}:refs/pull/{number}/merge")  # fmt: skip
    git(dev, "checkout", "-q", "main")
    pr = {
        "number": number,
        "state": "open",
        "head": {"sha": head, "ref": branch, "repo": event_repository(), "user": {"login": OWNER}},
        "base": {"sha": base, "ref": "main", "repo": event_repository()},
    }
    return {"pr": pr, "merge": merge, "branch": branch}


def slower(checkout: Path) -> None:
    """Twice the sleep in python/sleep/gather: a loss no machine's noise can hide."""
    sleep = checkout / "python/src/asyncio_patterns/sleep.py"
    text = sleep.read_text()
    old = "    await asyncio.sleep(period)\n    return period"
    assert old in text
    sleep.write_text(
        text.replace(
            old, "    await asyncio.sleep(2 * period)  # twice the work\n    return period"
        )
    )


def run_pr_gate(world, made: dict, run_id: int) -> Run:
    """pr-gate.yml on the PR's `synchronize` event, checked out at its merge commit."""
    pr = made["pr"]
    where = workdir(world, f"pr-gate-{pr['number']}", made["merge"])
    event = {"action": "synchronize", "number": pr["number"], "pull_request": pr,
             "repository": event_repository()}  # fmt: skip
    env = {"BENCH_SUITES": "python", "BENCH_FILTER": f"sleep/({world['sleeps']})"}
    return world["engine"].run(where, ".github/workflows/pr-gate.yml", "pull_request", event,
                               env=env, run_id=run_id)  # fmt: skip


def run_pr_comment(world, made: dict, gate: Run, run_id: int, attempt: int = 1) -> Run:
    """pr-comment.yml on the default branch's commit, on the workflow_run event GitHub sends
    after pr-gate; the gate jobs' conclusions are what the engine ran (its job list, as
    GitHub's API gives it)."""
    engine, pr = world["engine"], made["pr"]
    engine.api.pulls = [pr]
    engine.api.jobs[run_id] = [{"name": n, "conclusion": c} for n, c in gate.jobs.items()]
    workflow_run = {
        "id": run_id, "name": "pr-gate", "event": "pull_request", "status": "completed",
        "conclusion": "failure",
        "html_url": f"https://github.com/{OWNER}/{NAME}/actions/runs/{run_id}",
        "head_branch": made["branch"], "head_sha": pr["head"]["sha"],
        "head_repository": event_repository(), "pull_requests": [],
    }  # fmt: skip
    event = {"action": "completed", "workflow_run": workflow_run,
             "repository": event_repository()}  # fmt: skip
    main = git(world["dev"], "rev-parse", "main")
    where = workdir(world, f"pr-comment-{pr['number']}-{attempt}", main)
    return engine.run(where, ".github/workflows/pr-comment.yml", "workflow_run", event)
