"""The GitHub workflows' steps, run by hand: the same cargo-make tasks in the same order, against a
local bare repository as `origin`, with the environment GitHub would give, for the cases the
workflow-engine tests (test_workflows_engine.py: the workflow files themselves, run by act, for
a push on two runner sizes onto a recorded history, and a PR that slows a benchmark) leave out: a
first publish that creates gh-pages, a docs-only PR that is skipped, a corrupt data.js, eight
publishers at once.

The github-action-benchmark step is stood in for by `benchtrack append` (the same data.js format,
checked against Node byte for byte in test_history_format.py, and against the pinned action
itself in the engine tests). To keep this to minutes, the runs use the Python and Perl suites with
a tiny filter (`BENCH_SUITES`, `BENCH_FILTER`), wall time only (the engine test's pushes count
instructions, with real valgrind).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SIZES = [("ubuntu-latest-1cpu", 1, "0"), ("ubuntu-latest-2cpu", 2, "0-1")]
FILTER = r"sleep/gather|coro/async/trivial"

pytestmark = pytest.mark.skipif(
    shutil.which("cargo-make") is None and shutil.which("cargo") is None, reason="needs cargo-make"
)


def run(cwd: Path, *args: str, env: dict[str, str] | None = None, check: bool = True):
    done = subprocess.run(
        list(args),
        cwd=cwd,
        # each checkout gets its own locked environment, as on a runner
        env={k: v for k, v in {**os.environ, **(env or {})}.items() if k != "VIRTUAL_ENV"},
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=900,
    )
    if check and done.returncode != 0:
        raise AssertionError(
            f"{' '.join(args)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
        )
    return done


def git(cwd: Path, *args: str) -> str:
    return run(cwd, "git", *args).stdout.strip()


def gh_env(tmp: Path, name: str, **extra: str) -> dict[str, str]:
    """What a GitHub runner sets for a step (files the step appends to start empty)."""
    files = {}
    for var in ("GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY"):
        path = tmp / f"{name}.{var.lower()}"
        path.write_text("")
        files[var] = str(path)
    return {
        "CI": "true",
        "GITHUB_REPOSITORY": "octo/benchtrack",
        "NO_COLOR": "1",
        **files,
        **extra,
    }


def outputs(env: dict[str, str]) -> dict[str, str]:
    lines = Path(env["GITHUB_OUTPUT"]).read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if "=" in line)


def branch_file(checkout: Path, path: str) -> str:
    git(checkout, "fetch", "-q", "origin", "gh-pages")
    return git(checkout, "show", f"origin/gh-pages:{path}")


def entries(checkout: Path, key: str) -> dict[str, list[str]]:
    text = branch_file(checkout, f"bench/{key}/data.js")
    data = json.loads(text.split("=", 1)[1])
    return {name: [e["commit"]["id"] for e in es] for name, es in data["entries"].items()}


# What no job or test reads from the origin's tree (the A/A recordings, ~11 MB; the vendored
# actions' packs, ~8 MB, which the engine unpacks from this repository): left out, a clone with
# `--no-local` (as a job's checkout fetches) took 0.06 user + 0.02 sys s, not 0.29 + 0.15.
UNREAD = ("tracker/bench/recordings", "tracker/tests/engine/actions")


def origin_and_clone(tmp: Path, name: str = "checkout") -> tuple[Path, Path]:
    """`tmp/origin.git` (bare, its main this repository's HEAD's tree less UNREAD, as one root
    commit) and a clone of it, `tmp/name`, whose commits are the developer's.

    One commit, not this repository's history: every job's checkout (`fetch-depth: 0` fetches all
    of it) and clone fetches a pack of one tree, not of every commit's. Nothing here reads the
    history before HEAD. The commit is made in the origin, which borrows this repository's
    objects only until `repack` has copied the ones it needs."""
    origin = tmp / "origin.git"
    run(tmp, "git", "init", "-q", "--bare", str(origin))
    common = Path(git(REPO, "rev-parse", "--path-format=absolute", "--git-common-dir"))
    alternates = origin / "objects/info/alternates"
    alternates.write_text(f"{common / 'objects'}\n")
    head = git(REPO, "rev-parse", "HEAD")
    index = {"GIT_INDEX_FILE": str(tmp / "origin.index")}  # the tree less UNREAD, built here
    run(origin, "git", "read-tree", f"{head}^{{tree}}", env=index)
    run(origin, "git", "--work-tree", str(tmp / "no-work-tree"), "rm", "-r", "-q", "--cached",
        *UNREAD, env=index)  # fmt: skip
    tree = run(origin, "git", "write-tree", env=index).stdout.strip()
    Path(index["GIT_INDEX_FILE"]).unlink()
    who = ["-c", "user.name=dev", "-c", "user.email=dev@example.com"]
    root = git(origin, *who, "commit-tree", tree, "-m", f"{head}'s tree less {', '.join(UNREAD)}")
    git(origin, "update-ref", "refs/heads/main", root)
    git(origin, "symbolic-ref", "HEAD", "refs/heads/main")
    git(origin, "repack", "-a", "-d", "-q")  # the objects main needs, into origin's own pack
    alternates.unlink()
    checkout = tmp / name
    run(tmp, "git", "clone", "-q", "-b", "main", str(origin), str(checkout))
    git(checkout, "config", "user.name", "dev")
    git(checkout, "config", "user.email", "dev@example.com")
    return origin, checkout


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """origin (bare, holding this repository's HEAD as its main) and a runner's checkout of it."""
    tmp = tmp_path_factory.mktemp("workflows")
    origin, checkout = origin_and_clone(tmp)
    return {"tmp": tmp, "origin": origin, "checkout": checkout}


def bench_and_publish(world, name: str) -> None:
    """bench.yml on one push: the bench job per size, then the one publish job."""
    tmp, checkout = world["tmp"], world["checkout"]
    artifacts = checkout / "target/bench/artifacts"
    shutil.rmtree(artifacts, ignore_errors=True)
    for key, cpus, taskset in SIZES:
        run(checkout, "cargo", "make", "setup", env={"SETUP_PARTS": "rust,python,perl"})
        env = gh_env(
            tmp,
            f"{name}-bench-{key}",
            BENCHTRACK_RUNNER_LABEL="ubuntu-latest",
            BENCHTRACK_RUNNER_CPUS=str(cpus),
            BENCH_TASKSET=taskset,
            # no count suite: the bench job with one is the engine test's (its pushes count
            # Perl's), the counting itself test_callgrind's
            BENCH_SUITES="python,perl",
            BENCH_FILTER=FILTER,
        )
        run(checkout, "cargo", "make", "bench-ci", env=env)
        assert "sleep/gather" in Path(env["GITHUB_STEP_SUMMARY"]).read_text()
        # upload-artifact / download-artifact
        shutil.copytree(checkout / "target/bench/results", artifacts / f"results-{key}")
    # publish.yml: the plan job, the store matrix one size at a time, the dashboard job.
    run(checkout, "cargo", "make", "setup", env={"SETUP_PARTS": "python"})
    keys = json.dumps([key for key, _, _ in SIZES])
    plan_env = gh_env(tmp, f"{name}-plan", EXPECTED_KEYS=keys)
    run(checkout, "cargo", "make", "publish-plan", env=plan_env)
    sizes = json.loads(outputs(plan_env)["sizes"])
    assert sizes == [key for key, _, _ in SIZES]
    for key in sizes:  # plan this size alone, then the action (benchtrack append stands in)
        store_env = gh_env(tmp, f"{name}-store-{key}", EXPECTED_KEYS=json.dumps([key]))
        run(checkout, "cargo", "make", "publish-plan", env=store_env)
        assert json.loads(outputs(store_env)["sizes"]) == [key]
        docs = sorted(str(p) for p in (artifacts / f"results-{key}").glob("*.json"))
        run(checkout, "uv", "run", "--frozen", "benchtrack", "append",
            f"git:{world['origin']}#gh-pages", *docs)  # fmt: skip
    run(checkout, "cargo", "make", "publish-site", env=gh_env(tmp, f"{name}-site"))


@pytest.fixture(scope="module")
def published(world) -> str:
    """main's first push benchmarked on every size and published; its commit."""
    git(world["checkout"], "checkout", "-q", "main")
    first = git(world["checkout"], "rev-parse", "HEAD")
    bench_and_publish(world, "push1")
    return first


def pr(world, name: str, change) -> tuple[Path, str]:
    """A PR branch on top of main with one commit, checked out as pull_request does: in a clone of
    its own, so the gate's worktrees and build caches are this test's alone."""
    checkout = world["tmp"] / name
    run(world["tmp"], "git", "clone", "-q", "-b", "main", str(world["origin"]), str(checkout))
    git(checkout, "config", "user.name", "dev")
    git(checkout, "config", "user.email", "dev@example.com")
    git(checkout, "checkout", "-q", "-b", name)
    change(checkout)
    git(checkout, "commit", "-qam", name)
    return checkout, git(checkout, "rev-parse", "origin/main")


def run_gate(world, checkout: Path, name: str, base: str):
    tmp = world["tmp"]
    event = tmp / f"{name}-event.json"
    event.write_text(json.dumps({"pull_request": {"number": 42, "base": {"sha": base}}}))
    env = gh_env(tmp, name, BASE_SHA=base, GITHUB_EVENT_PATH=str(event), BENCH_TASKSET="0-1")
    args = ["--suite", "python", "--filter", r"sleep/(gather|sequential)", "--rounds", "8"]
    done = run(checkout, "cargo", "make", "gate-ci", "--", *args, env=env, check=False)
    verdict = checkout / "target/gate/comment/gate.json"
    assert verdict.is_file(), done.stdout + done.stderr
    return done, env, json.loads(verdict.read_text())


def test_pr_changing_only_docs_is_skipped_and_passes_with_one_line(world):
    def docs(checkout: Path) -> None:
        readme = checkout / "README.md"
        readme.write_text(readme.read_text() + "\nA docs-only change.\n")
        guide = checkout / "docs/conventions.md"
        guide.write_text(guide.read_text() + "\n<!-- a docs-only change -->\n")

    checkout, base = pr(world, "docs-only", docs)
    done, env, verdict = run_gate(world, checkout, "gate-docs", base)
    assert done.returncode == 0, done.stdout + done.stderr
    assert verdict["exit_code"] == 0 and verdict["benchmarks"] == []
    assert verdict["skipped"]["files"] == 2
    line = "skipped: only paths that cannot affect performance changed (2 files)"
    assert line in Path(env["GITHUB_STEP_SUMMARY"]).read_text()
    assert not (checkout / "target/gate/cache").exists()  # no side was checked out or built

    # pr-comment.yml renders it as one line.
    artifacts = checkout / "target/gate/artifacts"
    shutil.rmtree(artifacts, ignore_errors=True)
    shutil.copytree(checkout / "target/gate/comment", artifacts / "gate-ubuntu-latest-2cpu")
    run(checkout, "cargo", "make", "gate-comment", env=gh_env(world["tmp"], "comment-docs"))
    comment = (checkout / "target/gate/comment.md").read_text()
    said = [ln for ln in comment.splitlines() if "skipped" in ln]
    assert len(said) == 1 and line in said[0]
    assert "<details" not in comment and "| benchmark |" not in comment


def test_corrupt_data_js_fails_publish_and_leaves_history(world, published):
    tmp, origin = world["tmp"], world["origin"]
    pages = tmp / "pages"
    run(tmp, "git", "clone", "-q", "-b", "gh-pages", str(origin), str(pages))
    key = SIZES[0][0]
    data = pages / f"bench/{key}/data.js"
    data.write_text(data.read_text()[:-40])
    git(pages, "-c", "user.name=x", "-c", "user.email=x@x", "commit", "-qam", "a hand edit")
    git(pages, "push", "-q", "origin", "gh-pages")
    broken = git(pages, "rev-parse", "HEAD")

    checkout = world["checkout"]
    git(checkout, "checkout", "-q", "main")
    env = gh_env(tmp, "corrupt-plan", EXPECTED_KEYS=json.dumps([key]))
    done = run(checkout, "cargo", "make", "publish-plan", env=env, check=False)
    assert done.returncode != 0
    assert "data.js" in done.stderr
    assert git(checkout, "ls-remote", "origin", "refs/heads/gh-pages").split()[0] == broken
    # Put the history back for any later test.
    git(pages, "-c", "user.name=x", "-c", "user.email=x@x", "revert", "--no-edit", "HEAD")
    git(pages, "push", "-q", "origin", "gh-pages")


def test_eight_publishers_at_once_lose_and_duplicate_nothing(world, published):
    tmp, checkout, origin = world["tmp"], world["checkout"], world["origin"]
    git(checkout, "checkout", "-q", "main")
    raw = checkout / "target/bench/raw/perl/perl.json"
    assert raw.is_file()
    docs = []
    for i in range(8):
        git(checkout, "commit", "-q", "--allow-empty", "-m", f"merge {i}")
        doc = tmp / f"race-{i}.json"
        run(checkout, "uv", "run", "--frozen", "benchtrack", "ingest", "perl", str(raw),
            "--out", str(doc), "--runner-label", "race", "--runner-cpus", "2",
            "--commit", "HEAD")  # fmt: skip
        docs.append((git(checkout, "rev-parse", "HEAD"), doc))
    spec = f"git:{origin}#gh-pages"
    append = ["uv", "run", "--frozen", "benchtrack", "append", spec]
    with ThreadPoolExecutor(8) as pool:
        done = list(pool.map(lambda d: run(checkout, *append, str(d[1]), check=False), docs))
    assert [d.returncode for d in done] == [0] * 8, [d.stderr for d in done]
    found = entries(checkout, "race-2cpu")["race-2cpu"]
    assert sorted(found) == sorted(sha for sha, _ in docs)
