"""The push workflow of .github/workflows run by a workflow engine (act; see workflow_engine.py).

Against a local bare `origin` holding this commit (plus one commit that lists two runner sizes in
.github/bench-runners.toml, the test's own configuration), with a tiny benchmark filter, two
pushes to main: bench.yml on both sizes, its reusable publish.yml (plan, one store job per size
running the pinned github-action-benchmark, the dashboard); gh-pages then holds both sizes'
data.js with both commits, the change points and the dashboard. The pull-request workflows:
test_workflows_engine_pr.py and _shards.py; the adopters' composite action: _adopter.py. A broken
expression, step output or `needs` in any of these files fails a run there.
"""

from __future__ import annotations

import json

import pytest
from engine_world import KEYS, REPO, assert_succeeded, make_world, needs_engine, workdir
from test_workflows_local import git, run
from workflow_engine import push_event

BENCH_ENV = {
    # one count suite: Perl's counts a run in ~7 s under callgrind, Python's in ~22 s (a push
    # here benchmarks two sizes, twice); the counting itself is test_callgrind's
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
