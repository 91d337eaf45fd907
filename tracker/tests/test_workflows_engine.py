"""The push workflow of .github/workflows run by a workflow engine (act; see workflow_engine.py).

Against a local bare `origin` holding this commit (plus one commit that lists two runner sizes in
.github/bench-runners.toml, the test's own configuration) whose gh-pages already records that
commit on both sizes (appended by `benchtrack append` from the fixtures' harness output, as a
publish appends: no benchmark runs), with a tiny benchmark filter, a second push to main: bench.yml
on both sizes, its reusable publish.yml (plan, one store job per size running the pinned
github-action-benchmark, the dashboard); gh-pages then holds both sizes' data.js with both
commits, the change points and the dashboard. (The plan creating a missing gh-pages is
test_workflows_local's first publish and test_publish's.) The pull-request workflows:
test_workflows_engine_pr.py and _shards.py; the adopters' composite action: _adopter.py. A broken
expression, step output or `needs` in any of these files fails a run there.
"""

from __future__ import annotations

import json
import re

import pytest
from engine_world import KEYS, REPO, assert_succeeded, make_world, needs_engine, slower, workdir
from publish_faults import benchtrack, results
from test_workflows_local import git, run
from workflow_engine import NAME, OWNER, event_repository, push_event

from benchtrack.detect import events
from benchtrack.detect.publish import SCHEMA as CHANGES_SCHEMA

BENCH_ENV = {
    # one count suite: Perl's counts a run in ~7 s under callgrind, Python's in ~22 s (a push
    # here benchmarks two sizes); the counting itself is test_callgrind's
    "BENCH_SUITES": "python,perl,perl-instructions",
    "BENCH_FILTER": r"sleep/gather|coro/async/trivial",
}

pytestmark = needs_engine


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    yield from make_world(tmp_path_factory)


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


def recorded_first(world) -> str:
    """main's first commit recorded on a new gh-pages for both sizes, as a publish appends its
    result documents (the fixtures' harness output: no benchmark runs, no workflow); the
    commit."""
    dev = world["dev"]
    first = git(dev, "rev-parse", "HEAD")
    docs = [str(p) for cpus in (1, 2) for p in sorted(results(world, first, cpus).glob("*.json"))]
    benchtrack(dev, "append", f"git:{world['origin']}#gh-pages", *docs)
    return first


@pytest.fixture(scope="module")
def pushed(world):
    """main's first commit recorded on both sizes, then a second push benchmarked on both sizes
    and published through the workflows; their commits."""
    first = recorded_first(world)
    dev = world["dev"]
    conventions = dev / "docs/conventions.md"
    conventions.write_text(conventions.read_text() + "\n<!-- a second push -->\n")
    git(dev, "commit", "-qam", "docs: a second push to main")
    git(dev, "push", "-q", "origin", "main")
    second, done = push(world, "push2")
    assert_succeeded(done, "runner sizes", *(f"bench {k}" for k in KEYS), "plan", "dashboard")
    assert_succeeded(done, *(f"store {k}" for k in KEYS))
    assert [j for j in done.jobs if j.startswith("store")] == [f"store {k}" for k in KEYS]
    assert "gate self-test" not in done.jobs  # nightly only: its `if:` held it back
    return first, second


def test_a_push_publishes_both_sizes_after_the_recorded_one_with_the_pinned_action(world, pushed):
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


def test_the_scheduled_confirmation_confirms_a_step_and_refutes_a_blip(world, pushed):
    """confirm.yml on workflow_dispatch (the nightly schedule's job, on demand) after the two
    pushes: main gets a merge that doubles python/sleep/gather's sleep (a loss no machine's noise
    hides) and one that adds a comment; gh-pages' changes.json names the step on the 2-vCPU size
    and a blip of python/sleep/sequential at the comment's merge on the 1-vCPU size. Each size's
    job runs the gate's lockstep A/B of its event, before vs after, and appends the outcome to
    gh-pages' confirmations.json (one push a size): the step confirmed at its merge and
    PR, the blip noise, the bench data untouched."""
    dev, origin = world["dev"], world["origin"]
    config = dev / "benchtrack.toml"  # the test's own: confirm's gates measure python only
    text, n = re.subn(
        r"(?m)^suites = \[\n(?:    .*\n)+\]$", 'suites = ["python"]', config.read_text()
    )
    assert n == 1, "benchtrack.toml: [gate].suites"
    config.write_text(text)
    git(dev, "commit", "-qam", "engine test: the gate's suites, python only")
    base = git(dev, "rev-parse", "HEAD")
    slower(dev)
    git(dev, "commit", "-qam", "sleep: twice the wait (#51)")
    step = git(dev, "rev-parse", "HEAD")
    sleep = dev / "python/src/asyncio_patterns/sleep.py"
    sleep.write_text(sleep.read_text() + "# a comment, nothing else\n")
    git(dev, "commit", "-qam", "sleep: a comment (#52)")
    blip = git(dev, "rev-parse", "HEAD")
    git(dev, "push", "-q", "origin", "main")
    changes = [
        confirm_change("python/sleep/gather", KEYS[1], step, base),
        confirm_change("python/sleep/sequential", KEYS[0], blip, step),
    ]
    doc = {"schema": CHANGES_SCHEMA, "changes": changes}
    doc["events"] = events.group(changes, {step: 0, blip: 1})
    pages = world["tmp"] / "pages-confirm"
    run(world["tmp"], "git", "clone", "-q", "-b", "gh-pages", str(origin), str(pages))
    (pages / "bench/changes.json").write_text(json.dumps(doc))
    git(pages, "commit", "-qam", "changes.json: a step and a blip")
    git(pages, "push", "-q", "origin", "gh-pages")
    before = git(pages, "rev-parse", "HEAD")
    data_js = {k: git(origin, "rev-parse", f"gh-pages:bench/{k}/data.js") for k in KEYS}
    run_id = 4700
    event = {"ref": "refs/heads/main", "inputs": {}, "repository": event_repository(),
             "sender": {"login": "dev"}}  # fmt: skip
    done = world["engine"].run(
        workdir(world, "confirm", blip), ".github/workflows/confirm.yml", "workflow_dispatch",
        event, run_id=run_id,
    )  # fmt: skip
    assert_succeeded(done, "runner sizes", *(f"confirm {k}" for k in KEYS))
    checks = json.loads(gh_pages(world, "bench/confirmations.json"))["checks"]
    by = {c["benchmark"]: c for c in checks}
    assert len(checks) == 2 and set(by) == {"python/sleep/gather", "python/sleep/sequential"}
    gather, sequential = by["python/sleep/gather"], by["python/sleep/sequential"]
    assert (gather["runner"], gather["base"], gather["head"]) == (KEYS[1], base, step)
    assert gather["outcome"] == "regression" and gather["confirmed"]
    assert gather["rows"][0]["verdict"] == "regressed" and gather["rows"][0]["change"] < -0.2
    assert (gather["culprit"]["commit"], gather["culprit"]["pr"]) == (step, 51)
    assert gather["run"] == f"https://github.com/{OWNER}/{NAME}/actions/runs/{run_id}"
    assert (sequential["runner"], sequential["base"], sequential["head"]) == (KEYS[0], step, blip)
    assert sequential["outcome"] == "noise" and not sequential["confirmed"]
    # one commit a size on the tip it found, each adding its check; the bench data as it was (the
    # dashboard lists no event here: the two merges were never benchmarked on gh-pages, and its
    # statuses are test_confirm's)
    assert len(git(origin, "rev-list", f"{before}..gh-pages").split()) == 2
    changed = git(origin, "diff", "--name-only", before, "gh-pages").split()
    assert "bench/confirmations.json" in changed and "bench/changes.json" not in changed
    assert {k: git(origin, "rev-parse", f"gh-pages:bench/{k}/data.js") for k in KEYS} == data_js


def confirm_change(series: str, runner: str, commit: str, base: str) -> dict:
    """A change point as detect writes one into changes.json: a 20% loss at `commit`."""
    return {
        "series": series, "runner": runner, "commit": commit, "base": base, "change": -0.2,
        "before": 100.0, "after": 80.0, "unit": "items/s", "regression": True,
        "first_seen": "2026-04-01T00:00:00Z",
    }  # fmt: skip
