"""Faults in the publish stage, through the workflow engine (act; see workflow_engine.py): what
test_publish_faults.py runs them with (one origin and two engines, the faults one after another).

act runs .github/workflows/publish.yml (plan, the store job with the pinned
github-action-benchmark, the dashboard) against a local bare origin, called by a two-job
workflow of the test's own that first uploads one runner size's result documents, made from the
fixtures for the published commit (no benchmark runs: the faults are in the publishing). Pushes
to gh-pages are held at the origin (workflow_engine.PushHold), so each fault happens at the same
point every time, whatever the machine's speed:

1. Two publishes of one commit at once (a push's run and a dispatch of the same commit): each
   run's first push to gh-pages is held until both arrived, so both plans found the commit
   unrecorded; released together, one push loses the race and github-action-benchmark appends
   again on the winner's tip.
2. A publish killed mid-push: the action's first push is held after gh-pages moved
   (post-receive) and the run is killed there (SIGKILL to act's session): one direction
   recorded, nothing after it ran. Then the same commit's publish again, as a re-run would.
3. A data.js corrupted between plan and store: the action's first push is held before gh-pages
   moves while the test pushes a truncated data.js; the held push then loses the race and the
   action reads the corrupt file on its retry.

The first starts from two commits recorded, each next one from what the fault before left; each
ends with `validate-history` passing, every entry recorded before it still there, in order, and
the faulted commit recorded once per direction; the next fault's publish of a new commit (after
the last, a publish of a next commit) is the publish that must succeed after it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_workflows_local import git, origin_and_clone, run
from workflow_engine import (
    NAME,
    OWNER,
    Engine,
    PushHold,
    Run,
    Running,
    act_binary,
    node24_bin,
    push_event,
)

REPO = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parent / "fixtures"
KEY = "ubuntu-latest-2cpu"
SMALLER = f"{KEY} (smaller is better)"
CALLER = f"""\
# The test's caller of publish.yml: one runner size's result documents, uploaded as bench.yml's
# bench job uploads them, then the publish stage.
name: publish-only
on: push
permissions:
  contents: read
jobs:
  results:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/upload-artifact@b7c566a772e6b6bfb58ed0dc250532a479d7789f # v6.0.0
        with:
          name: results-{KEY}
          path: ${{{{ env.RESULTS_DIR }}}}/*.json
  publish:
    needs: results
    permissions:
      contents: write
    uses: ./.github/workflows/publish.yml
    with:
      keys: '["{KEY}"]'
"""

needs_engine = pytest.mark.skipif(
    act_binary() is None or node24_bin() is None or shutil.which("cargo-make") is None,
    reason="act, Node 24 and cargo-make are installed by `cargo make setup`",
)


def benchtrack(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """This tree's benchtrack (the tests' interpreter), as a command."""
    return run(cwd, sys.executable, "-m", "benchtrack", *args, check=check)


def make_world(tmp_path_factory):
    """A module fixture's body: origin (this commit on main), a developer's clone, two engines
    (for two runs at once) and the hold on origin's gh-pages; gh-pages holds two commits'
    results."""
    tmp = tmp_path_factory.mktemp("faults")
    origin, dev = origin_and_clone(tmp, "dev")
    engines = []
    for name in ("a", "b"):
        (tmp / name).mkdir()
        engines.append(Engine(tmp / name, origin))
    world = {"tmp": tmp, "origin": origin, "dev": dev, "engines": engines}
    world["hold"] = PushHold(origin)
    for i in (1, 2):  # the history every test starts from, appended as the action would
        sha = new_commit(world, f"recorded before the faults ({i})")
        docs = sorted(str(p) for p in results(world, sha).glob("*.json"))
        benchtrack(dev, "append", f"git:{origin}#gh-pages", *docs)
    world["start"] = git(origin, "rev-parse", "gh-pages")
    yield world
    world["hold"].clear()
    for engine in engines:
        engine.close()


def new_commit(world, message: str) -> str:
    dev = world["dev"]
    git(dev, "commit", "-q", "--allow-empty", "-m", message)
    git(dev, "push", "-q", "origin", "main")
    return git(dev, "rev-parse", "HEAD")


def results(world, sha: str, cpus: int = 2) -> Path:
    """Result documents of runner size ubuntu-latest-<cpus>cpu (KEY by default) for `sha` (from
    the fixtures' harness output; no benchmark runs)."""
    out = world["tmp"] / f"results-{cpus}cpu-{sha[:12]}"
    if not out.is_dir():
        out.mkdir()
        meta = ["--runner-label", "ubuntu-latest", "--runner-cpus", str(cpus), "--commit", sha]
        for harness, raw in (("criterion", "criterion"), ("perl", "perl/perl.json")):
            benchtrack(world["dev"], "ingest", harness, str(FIXTURES / raw),
                       "--out", str(out / f"{harness}.json"), *meta)  # fmt: skip
    return out


def start(world, sha: str, name: str, engine: int = 0) -> Running:
    """The test's caller of publish.yml on a push of `sha` to main, started."""
    where = world["tmp"] / name
    run(world["tmp"], "git", "clone", "-q", str(world["origin"]), str(where))
    git(where, "checkout", "-q", "--detach", sha)
    git(where, "remote", "set-url", "origin", f"https://github.com/{OWNER}/{NAME}")
    (where / ".github/workflows/publish-only.yml").write_text(CALLER)
    event = push_event(world["dev"], sha)
    env = {"RESULTS_DIR": str(results(world, sha))}
    return world["engines"][engine].start(
        where, ".github/workflows/publish-only.yml", "push", event, env=env
    )


def held(world, stage: str, name: str, runs: int = 1):
    """From the history gh-pages holds (the start's, or what the fault before left), a new
    commit (named `name`) whose publish (`runs` of them at once, each by an engine of its own) is
    held at `stage` of its first push to gh-pages; (what was recorded before, the commit, the
    runs under way)."""
    world["hold"].clear()
    before = recorded(world)
    sha = new_commit(world, name)
    world["hold"].hold(stage)
    running = [start(world, sha, f"{name}-{i}", engine=i) for i in range(runs)]
    world["hold"].wait_for(stage, runs, running)
    return before, sha, running


def assert_published(done: Run, store: bool = True) -> None:
    assert done.returncode == 0, (done.log[-6000:], str(done.log_path))
    jobs = ["results", "plan", "dashboard"] + ([f"store {KEY}"] if store else [])
    for job in jobs:
        assert done.jobs.get(job) == "success", (job, done.jobs, str(done.log_path))


def recorded(world) -> dict[str, list[str]]:
    """Entry name -> the commit ids gh-pages records under it, in order."""
    text = git(world["origin"], "show", f"gh-pages:bench/{KEY}/data.js")
    data = json.loads(text.split("=", 1)[1])
    return {name: [e["commit"]["id"] for e in es] for name, es in data["entries"].items()}


def fresh(world) -> dict[str, list[str]]:
    """gh-pages set back to the history every test starts from; what it records."""
    world["hold"].clear()
    git(world["origin"], "update-ref", "refs/heads/gh-pages", world["start"])
    before = recorded(world)
    assert set(before) == {KEY, SMALLER} and all(len(ids) == 2 for ids in before.values())
    return before


def assert_valid(world) -> None:
    checked = benchtrack(world["dev"], "validate-history", f"git:{world['origin']}#gh-pages",
                         check=False)  # fmt: skip
    assert checked.returncode == 0, checked.stderr


def assert_whole(world, before: dict[str, list[str]], *new: str) -> None:
    """validate-history passes; each entry list is what it held before, in order, then `new`."""
    assert_valid(world)
    assert recorded(world) == {name: [*ids, *new] for name, ids in before.items()}


def assert_publishing_goes_on(world, before: dict[str, list[str]], *faulted: str) -> None:
    """A publish of a new commit succeeds and is recorded after all the rest."""
    sha = new_commit(world, "the next push to main")
    assert_published(start(world, sha, f"next-{sha[:8]}").wait())
    assert_whole(world, before, *faulted, sha)
