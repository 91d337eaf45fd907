"""The adopters' composite action (action.yml) run by a workflow engine (act; see
workflow_engine.py), as docs/adopting.md's example workflow uses it: a Go module that ran
`benchtrack init`, with its own origin and engine; a push benchmarks and publishes to the
configured history branch without the token reaching the suites, and a pull request that slows
BenchmarkSum fails the gate job, naming it.
"""

from __future__ import annotations

import json

import pytest
from engine_world import REPO, assert_succeeded, needs_engine, workdir
from test_workflows_local import git, run
from workflow_engine import TOKEN, Engine, event_repository, head_commit

pytestmark = needs_engine

ACTION = "OWNER/benchtrack@COMMIT"  # what `benchtrack init --action` is given in the docs
SPY = (
    "env > {out}/env-$GITHUB_RUN_ID.txt; "
    "git config --list --show-origin > {out}/git-$GITHUB_RUN_ID.txt; "
)


@pytest.fixture(scope="module")
def adopter(tmp_path_factory):
    """A Go module that ran `benchtrack init`, with its own origin and engine; the workflow's
    `uses: OWNER/benchtrack@COMMIT` is this commit of this repository (a clean clone)."""
    from test_adopt import SLOWER_GO, example_repo, one_stage

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
    # init writes a [gate] of its own (a budget for a real runner): one stage, fewer rounds here
    config = one_stage(config, 4, "[4]")
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
