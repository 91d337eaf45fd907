"""The workflows of .github/workflows run by a workflow engine (act; see workflow_engine.py).

Against a local bare `origin` holding this commit (plus one commit that lists two runner sizes in
.github/bench-runners.toml, the test's own configuration), with a tiny benchmark filter:
- two pushes to main: bench.yml on both sizes, its reusable publish.yml (plan, one store job per
  size running the pinned github-action-benchmark, the dashboard); gh-pages then holds both
  sizes' data.js with both commits, the change points and the dashboard;
- a pull request that slows a benchmark: pr-gate.yml fails on both sizes and uploads the verdict;
  pr-comment.yml, on the workflow_run event GitHub would send, downloads it through the REST API
  (the loopback stand-in) and posts one sticky comment, updated (not duplicated) when it runs again.
A broken expression, step output or `needs` in any of these files fails a run here.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from test_workflows_local import git, run
from workflow_engine import (
    NAME,
    OWNER,
    TOKEN,
    Engine,
    act_binary,
    event_repository,
    head_commit,
    node24_bin,
    push_event,
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
BENCH_ENV = {
    # one count suite: Perl's counts a run in ~7 s under callgrind, Python's in ~22 s (a push
    # here benchmarks two sizes, twice); the counting itself is test_callgrind's
    "BENCH_SUITES": "python,perl,perl-instructions",
    "BENCH_FILTER": r"sleep/gather|coro/async/trivial",
}
GATE_ENV = {"BENCH_SUITES": "python", "BENCH_FILTER": r"sleep/(gather|sequential)"}
SLOW = "python/sleep/gather"
MARKER = "<!-- benchtrack-gate -->"

pytestmark = pytest.mark.skipif(
    act_binary() is None or node24_bin() is None or shutil.which("cargo-make") is None,
    reason="act, Node 24 and cargo-make are installed by `cargo make setup`",
)


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("engine")
    origin = tmp / "origin.git"
    run(tmp, "git", "clone", "-q", "--bare", "--no-local", str(REPO), str(origin))
    dev = tmp / "dev"  # where the test's developer commits, pushing to origin
    run(tmp, "git", "clone", "-q", str(origin), str(dev))
    git(dev, "config", "user.name", "dev")
    git(dev, "config", "user.email", "dev@example.com")
    git(dev, "checkout", "-q", "-B", "main", git(REPO, "rev-parse", "HEAD"))
    (dev / ".github/bench-runners.toml").write_text(RUNNERS)
    git(dev, "commit", "-qam", "engine test: two runner sizes")
    git(dev, "push", "-q", "-f", "origin", "main")
    git(origin, "symbolic-ref", "HEAD", "refs/heads/main")
    engine = Engine(tmp, origin)
    yield {"tmp": tmp, "origin": origin, "dev": dev, "engine": engine}
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


def push(world, name: str) -> tuple[str, object]:
    """bench.yml on a push of origin's main; (the pushed commit, the engine's run)."""
    dev = world["dev"]
    sha = git(dev, "rev-parse", "HEAD")
    where = workdir(world, name, sha)
    event = push_event(dev, sha)
    done = world["engine"].run(where, ".github/workflows/bench.yml", "push", event, env=BENCH_ENV)
    return sha, done


def gh_pages(world, path: str) -> str:
    return git(world["origin"], "show", f"gh-pages:{path}")


def entries(world, key: str) -> dict[str, list[dict]]:
    return json.loads(gh_pages(world, f"bench/{key}/data.js").split("=", 1)[1])["entries"]


def assert_succeeded(done, *jobs: str) -> None:
    assert done.returncode == 0, done.log[-6000:]
    for job in jobs:
        assert done.jobs.get(job) == "success", (job, done.jobs, str(done.log_path))


@pytest.fixture(scope="module")
def pushed(world):
    """Two pushes to main, each benchmarked on both sizes and published; their commits."""
    first, done = push(world, "push1")
    assert_succeeded(done, "runner sizes", *(f"bench {k}" for k in KEYS), "plan", "dashboard")
    assert [j for j in done.jobs if j.startswith("store")] == [f"store {k}" for k in KEYS]
    assert "gate self-test" not in done.jobs  # nightly only: its `if:` held it back
    dev = world["dev"]
    conventions = dev / "docs/conventions.md"
    conventions.write_text(conventions.read_text() + "\n<!-- a second push -->\n")
    git(dev, "commit", "-qam", "docs: a second push to main")
    git(dev, "push", "-q", "origin", "main")
    second, done = push(world, "push2")
    assert_succeeded(done, *(f"store {k}" for k in KEYS), "dashboard")
    return first, second


def test_two_pushes_publish_both_sizes_with_the_pinned_action(world, pushed):
    first, second = pushed
    for key in KEYS:
        found = entries(world, key)
        assert [e["commit"]["id"] for e in found[key]] == [first, second]
        smaller = found[f"{key} (smaller is better)"]
        assert [e["commit"]["id"] for e in smaller] == [first, second]
        assert {b["name"] for b in smaller[-1]["benches"]} == {
            "perl/coro/async/trivial (instructions)",
        }
        # what github-action-benchmark v1.22.0 stored, in the key order benchtrack writes
        assert all(
            list(b) == ["name", "value", "range", "unit", "extra"] for b in smaller[-1]["benches"]
        )
        assert found[key][-1]["commit"]["message"] == "docs: a second push to main"
    tree = git(world["origin"], "ls-tree", "-r", "--name-only", "gh-pages").split()
    assert "index.html" in tree and "bench/changes.json" in tree
    assert json.loads(gh_pages(world, "bench/changes.json"))["schema"] == "benchtrack.changes/1"
    run(REPO, "uv", "run", "--frozen", "benchtrack", "validate-history",
        f"git:{world['origin']}#gh-pages")  # fmt: skip


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
    return {"pr": pr, "merge": merge}


def slower(checkout: Path) -> None:
    sleep = checkout / "python/src/asyncio_patterns/sleep.py"
    text = sleep.read_text()
    old = "    await asyncio.sleep(period)\n    return period"
    assert old in text
    sleep.write_text(
        text.replace(
            old, "    await asyncio.sleep(2 * period)  # twice the work\n    return period"
        )
    )


def test_pull_request_gate_fails_on_a_slowdown_and_the_comment_is_posted(world, pushed):
    engine = world["engine"]
    made = pull_request(world, "slow-gather", slower)
    pr = made["pr"]
    where = workdir(world, "pr-gate", made["merge"])
    event = {"action": "synchronize", "number": 42, "pull_request": pr,
             "repository": event_repository()}  # fmt: skip
    gate_run = 900
    done = engine.run(where, ".github/workflows/pr-gate.yml", "pull_request", event,
                      env=GATE_ENV, run_id=gate_run)  # fmt: skip
    assert done.returncode != 0, done.log[-4000:]
    assert done.jobs.get("runner sizes") == "success", done.jobs
    for key in KEYS:
        assert done.jobs.get(f"gate {key}") == "failure", (key, done.jobs, str(done.log_path))
        assert (engine.artifacts / str(gate_run) / f"gate-{key}" / f"gate-{key}.zip").is_file()
    assert "regressed" in done.log and SLOW in done.log

    # pr-comment.yml on the default branch's commit, as GitHub runs it after pr-gate; the gate
    # jobs' own conclusions are what the engine ran (its job list, as GitHub's API gives it).
    engine.api.pulls = [pr]
    engine.api.jobs[gate_run] = [{"name": n, "conclusion": c} for n, c in done.jobs.items()]
    main = git(world["dev"], "rev-parse", "main")
    workflow_run = {
        "id": gate_run,
        "name": "pr-gate",
        "event": "pull_request",
        "status": "completed",
        "conclusion": "failure",
        "html_url": f"https://github.com/{OWNER}/{NAME}/actions/runs/{gate_run}",
        "head_branch": "slow-gather",
        "head_sha": pr["head"]["sha"],
        "head_repository": event_repository(),
        "pull_requests": [],
    }
    event = {"action": "completed", "workflow_run": workflow_run,
             "repository": event_repository()}  # fmt: skip
    for attempt in (1, 2):  # the second run updates the one comment
        where = workdir(world, f"pr-comment-{attempt}", main)
        done = engine.run(where, ".github/workflows/pr-comment.yml", "workflow_run", event)
        assert_succeeded(done, "comment")
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


def test_a_sharded_pull_request_gate_merges_its_shards_into_one_verdict(world, pushed):
    # The PR brings a shard plan (.github/gate-shards.json) and one runner size: its gate runs
    # as one job a shard (each its benchmark, at alpha / 2), and the size's merge job makes the
    # two verdicts one gate-<key> artifact, which pr-comment.yml posts.
    engine = world["engine"]
    key = KEYS[0]

    def sharded_and_slower(checkout: Path) -> None:
        slower(checkout)
        (checkout / ".github/bench-runners.toml").write_text(RUNNERS.split("\n\n[[runner]]")[0])
        plan = {"schema": "benchtrack.shards/1", "shards": 2,
                "benchmarks": {SLOW: 1, "python/sleep/sequential": 2}}  # fmt: skip
        (checkout / ".github/gate-shards.json").write_text(json.dumps(plan))

    made = pull_request(world, "sharded", sharded_and_slower, number=43)
    pr = made["pr"]
    where = workdir(world, "pr-gate-sharded", made["merge"])
    event = {"action": "synchronize", "number": 43, "pull_request": pr,
             "repository": event_repository()}  # fmt: skip
    gate_run = 901
    done = engine.run(where, ".github/workflows/pr-gate.yml", "pull_request", event,
                      env=GATE_ENV, run_id=gate_run)  # fmt: skip
    assert done.returncode != 0, done.log[-4000:]
    assert done.jobs.get(f"gate {key} shard 1 of 2") == "failure", (done.jobs, str(done.log_path))
    assert done.jobs.get(f"gate {key} shard 2 of 2") == "success", (
        done.jobs
    )  # sequential: unchanged
    assert done.jobs.get(f"merge {key}") == "failure", done.jobs  # the shards' one verdict
    artifacts = engine.artifacts / str(gate_run)
    assert sorted(p.name for p in artifacts.iterdir()) == [f"gate-{key}", f"shard-{key}-1",
                                                            f"shard-{key}-2"]  # fmt: skip
    engine.api.pulls = [pr]
    engine.api.jobs[gate_run] = [{"name": n, "conclusion": c} for n, c in done.jobs.items()]
    workflow_run = {
        "id": gate_run, "name": "pr-gate", "event": "pull_request", "status": "completed",
        "conclusion": "failure", "html_url": f"https://github.com/{OWNER}/{NAME}/actions/runs/901",
        "head_branch": "sharded", "head_sha": pr["head"]["sha"],
        "head_repository": event_repository(), "pull_requests": [],
    }  # fmt: skip
    event = {"action": "completed", "workflow_run": workflow_run,
             "repository": event_repository()}  # fmt: skip
    main = git(world["dev"], "rev-parse", "main")
    done = engine.run(workdir(world, "pr-comment-sharded", main),
                      ".github/workflows/pr-comment.yml", "workflow_run", event)  # fmt: skip
    assert_succeeded(done, "comment")
    (comment,) = engine.api.comments[43]
    # both shards' benchmarks in one verdict, the merge job's ❌ its mark
    assert SLOW in comment.body and "python/sleep/sequential" in comment.body
    assert comment.body.splitlines()[1].startswith("## benchtrack: ❌ this PR")


# --- the adopters' composite action (action.yml), as docs/adopting.md's example workflow uses it

ACTION = "OWNER/benchtrack@COMMIT"  # what `benchtrack init --action` is given in the docs
SPY = (
    "env > {out}/env-$GITHUB_RUN_ID.txt; "
    "git config --list --show-origin > {out}/git-$GITHUB_RUN_ID.txt; "
)


@pytest.fixture(scope="module")
def adopter(tmp_path_factory):
    """A Go module that ran `benchtrack init`, with its own origin and engine; the workflow's
    `uses: OWNER/benchtrack@COMMIT` is this commit of this repository (a clean clone)."""
    from test_adopt import SLOWER_GO, example_repo

    tmp = tmp_path_factory.mktemp("adopter")
    action = tmp / "benchtrack-action"
    run(tmp, "git", "clone", "-q", "--no-local", str(REPO), str(action))
    dev = example_repo(tmp / "dev")
    run(dev, "uv", "run", "--frozen", "--project", str(REPO), "benchtrack", "init",
        "--action", ACTION)  # fmt: skip
    # The new inputs: the config elsewhere, another history branch. And the suite's command
    # first records what it can see (the environment, git's config): no token may be there.
    spied = tmp / "spied"
    spied.mkdir()
    config = (dev / "benchtrack.toml").read_text()
    config = config.replace('command = "', 'command = "' + SPY.format(out=spied), 1)
    config = config.replace("-count 5", "-count 5 -benchtime 100ms")
    (dev / "ci").mkdir()
    # init writes a [gate] of its own (a budget for a real runner): fewer rounds here
    config, n = re.subn(
        r"(?m)^rounds = \d+\nlooks = \[[\d, ]*\]$", "rounds = 4\nlooks = [4]", config
    )
    assert n == 1, config
    (dev / "ci/benchtrack.toml").write_text(config)
    (dev / "benchtrack.toml").unlink()
    workflow = dev / ".github/workflows/benchtrack.yml"
    text = workflow.read_text()
    new = "{mode: bench, config: ci/benchtrack.toml, gh-pages-branch: bench-history}"
    text = text.replace("with: {mode: bench}", f"with: {new}")
    text = text.replace("with: {mode: gate}", "with: {mode: gate, config: ci/benchtrack.toml}")
    workflow.write_text(text)
    git(dev, "add", "-A")
    git(dev, "commit", "-q", "-m", "track the benchmarks with benchtrack")
    origin = tmp / "origin.git"
    run(tmp, "git", "clone", "-q", "--bare", str(dev), str(origin))
    engine = Engine(tmp, origin, token_url=False)  # no token in the runner's own git config
    yield {"tmp": tmp, "origin": origin, "dev": dev, "engine": engine, "spied": spied,
           "action": {ACTION: action}, "slower": SLOWER_GO}  # fmt: skip
    engine.close()


def test_the_adopters_example_workflow_runs_with_the_new_inputs(adopter):
    engine, dev, origin = adopter["engine"], adopter["dev"], adopter["origin"]
    sha = git(dev, "rev-parse", "HEAD")
    where = workdir(adopter, "push", sha)
    event = {"ref": "refs/heads/main", "before": "0" * 40, "after": sha, "deleted": False,
             "repository": event_repository(), "head_commit": head_commit(dev, sha)}  # fmt: skip
    done = engine.run(where, ".github/workflows/benchtrack.yml", "push", event, run_id=301,
                      local_actions=adopter["action"])  # fmt: skip
    assert_succeeded(done, "bench")
    assert "gate" not in done.jobs  # its `if:` held it back on a push
    branches = git(origin, "for-each-ref", "--format=%(refname)", "refs/heads/").split()
    assert "refs/heads/bench-history" in branches and "refs/heads/gh-pages" not in branches
    tree = git(origin, "ls-tree", "-r", "--name-only", "bench-history").split()
    assert "index.html" in tree
    (data,) = [p for p in tree if p.startswith("bench/") and p.endswith("/data.js")]
    entries = json.loads(git(origin, "show", f"bench-history:{data}").split("=", 1)[1])["entries"]
    (entry,) = [e for name, es in entries.items() for e in es]
    assert entry["commit"]["id"] == sha
    assert any(b["name"].startswith("go/BenchmarkSum") for b in entry["benches"])
    # The suites ran without the token: not in their environment, not in git's config. (act
    # also gives a composite action's steps its inputs as INPUT_* variables, nektos/act#2874;
    # GitHub's runner does not, actions/runner#665: those lines are act's, left out here.)
    env_seen = (adopter["spied"] / "env-301.txt").read_text().splitlines()
    seen = "\n".join(line for line in env_seen if not line.startswith("INPUT_"))
    seen += (adopter["spied"] / "git-301.txt").read_text()
    assert TOKEN not in seen and "extraheader" not in seen.lower()

    # A pull request that makes BenchmarkSum slower: the gate job fails, naming it.
    git(dev, "checkout", "-q", "-b", "slower")
    (dev / "sum_test.go").write_text(adopter["slower"])
    git(dev, "commit", "-q", "-am", "sum: three times the work")
    head = git(dev, "rev-parse", "HEAD")
    git(dev, "checkout", "-q", "--detach", "main")
    git(dev, "merge", "-q", "--no-ff", "-m", "Merge slower", head)
    merge = git(dev, "rev-parse", "HEAD")
    git(dev, "push", "-q", str(origin), f"{head}:refs/heads/slower",
        f"{head}:refs/pull/7/head", f"{merge}:refs/pull/7/merge")  # fmt: skip
    pr = {"number": 7, "head": {"sha": head, "ref": "slower", "repo": event_repository()},
          "base": {"sha": sha, "ref": "main", "repo": event_repository()}}  # fmt: skip
    where = workdir(adopter, "pr", merge)
    event = {"action": "opened", "number": 7, "pull_request": pr,
             "repository": event_repository()}  # fmt: skip
    done = engine.run(where, ".github/workflows/benchtrack.yml", "pull_request", event,
                      run_id=302, local_actions=adopter["action"])  # fmt: skip
    assert done.jobs.get("gate") == "failure", (done.jobs, str(done.log_path))
    assert "bench" not in done.jobs
    summary = [line for line in done.log.splitlines() if "go/BenchmarkSum" in line]
    assert any("regressed" in line for line in summary), str(done.log_path)
