"""The CI publish stage against a real bare "origin": plan, the action's stand-in, the site.

The action step itself cannot run here; `benchtrack append` (the same data.js format, tested
byte-for-byte against Node in test_history_format.py) stands in for it, in the same order as
.github/workflows/publish.yml: plan every size, then per size (one at a time) plan it alone and
store it, then the site.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from benchtrack.cli import main
from benchtrack.errors import BadInput
from benchtrack.history import publish

FIXTURES = Path(__file__).parent / "fixtures"
KEY = "ubuntu-latest-2cpu"


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A checkout whose origin is a bare repo with one commit on main (as actions/checkout)."""
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    work = tmp_path / "work"
    git(tmp_path, "clone", "-q", str(origin), str(work))
    git(work, "config", "user.name", "dev")
    git(work, "config", "user.email", "dev@example.com")
    (work / "README.md").write_text("hello\n")
    git(work, "add", "README.md")
    git(work, "commit", "-q", "-m", "first")
    git(work, "push", "-q", "origin", "main")
    return work


def results(repo: Path, key_dir: Path, cpus: int = 2) -> list[Path]:
    """Real result documents (ingested from real harness output) for the checkout's HEAD."""
    key_dir.mkdir(parents=True, exist_ok=True)
    meta = ["--runner-label", "ubuntu-latest", "--runner-cpus", str(cpus), "--commit", "HEAD"]
    out = []
    for adapter, raw in (("criterion", "criterion"), ("perl", "perl/perl.json")):
        doc = key_dir / f"{adapter}.json"
        code = main(["ingest", adapter, str(FIXTURES / raw), "--out", str(doc), *meta])
        assert code == 0
        out.append(doc)
    return out


def origin_file(repo: Path, path: str) -> bytes:
    return subprocess.run(
        ["git", "show", f"origin/gh-pages:{path}"], cwd=repo, check=True, capture_output=True
    ).stdout


def test_plan_creates_branch_exports_both_directions_and_names_missing_sizes(
    repo, tmp_path, monkeypatch
):
    monkeypatch.chdir(repo)
    artifacts = repo / "target/bench/artifacts"
    results(repo, artifacts / f"results-{KEY}")
    export = repo / "target/bench/export"
    plan = publish.plan(repo, artifacts, export, [KEY, "ubuntu-latest-1cpu"], repo / "target/snap")
    assert plan.sizes == [KEY]
    assert plan.missing == ["ubuntu-latest-1cpu"]
    assert git(repo, "ls-remote", "--heads", "origin", "gh-pages")  # created for the action
    bigger = json.loads((export / f"{KEY}.bigger.json").read_text())
    smaller = json.loads((export / f"{KEY}.smaller.json").read_text())
    assert bigger and all(b["unit"].endswith("/s") for b in bigger)
    assert smaller and all(b["unit"] == "KB" for b in smaller)
    assert plan.outputs() == {"sizes": f'["{KEY}"]', "missing": "ubuntu-latest-1cpu"}


def test_a_lone_artifact_downloaded_without_its_directory_is_planned(repo, monkeypatch):
    """download-artifact writes a lone artifact's files straight into its path, not into
    results-<key>/: the plan job's download when one runner size produced results."""
    monkeypatch.chdir(repo)
    artifacts = repo / "target/bench/artifacts"
    results(repo, artifacts)
    export = repo / "target/bench/export"
    plan = publish.plan(repo, artifacts, export, [KEY, "ubuntu-latest-1cpu"], repo / "target/snap")
    assert plan.sizes == [KEY] and plan.missing == ["ubuntu-latest-1cpu"]
    assert json.loads((export / f"{KEY}.bigger.json").read_text())


def test_rerun_of_a_recorded_commit_does_not_reach_the_action(repo, monkeypatch):
    monkeypatch.chdir(repo)
    artifacts = repo / "target/bench/artifacts"
    docs = results(repo, artifacts / f"results-{KEY}")
    export = repo / "target/bench/export"
    publish.plan(repo, artifacts, export, [KEY], repo / "target/snap")
    # The action's stand-in: the same format, appended to the same branch.
    assert main(["append", f"git:{repo.parent / 'origin.git'}#gh-pages", *map(str, docs)]) == 0
    again = publish.plan(repo, artifacts, export, [KEY], repo / "target/snap")
    assert again.sizes == [] and again.recorded == [KEY]
    assert again.outputs()["sizes"] == "[]"  # the workflow's condition for skipping the store


def test_corrupt_data_js_stops_the_publish_and_is_left_untouched(repo, monkeypatch):
    monkeypatch.chdir(repo)
    artifacts = repo / "target/bench/artifacts"
    docs = results(repo, artifacts / f"results-{KEY}")
    origin = repo.parent / "origin.git"
    assert main(["append", f"git:{origin}#gh-pages", *map(str, docs)]) == 0
    # Someone truncates data.js on the branch.
    pages = repo.parent / "pages"
    git(repo.parent, "clone", "-q", "-b", "gh-pages", str(origin), str(pages))
    data = pages / f"bench/{KEY}/data.js"
    data.write_bytes(data.read_bytes()[:200])
    git(pages, "-c", "user.name=x", "-c", "user.email=x@x", "commit", "-qam", "oops")
    git(pages, "push", "-q", "origin", "gh-pages")
    broken = git(pages, "rev-parse", "HEAD")

    with pytest.raises(BadInput, match=r"every data\.js readable"):
        publish.plan(repo, artifacts, repo / "target/export", [KEY], repo / "target/snap")
    assert git(repo, "ls-remote", "origin", "refs/heads/gh-pages").split()[0] == broken


# --- what github-action-benchmark can leave on gh-pages, and the plan that mends it. The action
# runs in the engine tests (test_publish_faults.py); here its edits are made to data.js as it
# makes them (JSON.parse, push an entry or start from an empty history, JSON.stringify).

ORIGIN_SPEC = "git:{}#gh-pages"


def pages_edit(repo: Path, change, message: str) -> str:
    """Commit `change(data.js bytes) -> bytes` for KEY to origin's gh-pages; the new tip."""
    pages = repo.parent / "pages"
    if not pages.is_dir():
        origin = str(repo.parent / "origin.git")
        git(repo.parent, "clone", "-q", "-b", "gh-pages", origin, str(pages))
    git(pages, "pull", "-q", "--ff-only")
    path = pages / f"bench/{KEY}/data.js"
    path.write_bytes(change(path.read_bytes()))
    git(pages, "-c", "user.name=x", "-c", "user.email=x@x", "commit", "-qam", message)
    git(pages, "push", "-q", "origin", "gh-pages")
    return git(pages, "rev-parse", "HEAD")


def tree(raw: bytes) -> dict:
    return json.loads(raw.split(b"=", 1)[1])


def ids(repo: Path) -> dict[str, list[str]]:
    git(repo, "fetch", "-q", "origin", "gh-pages")
    data = tree(origin_file(repo, f"bench/{KEY}/data.js"))
    return {name: [e["commit"]["id"] for e in es] for name, es in data["entries"].items()}


def valid(repo: Path) -> bool:
    return main(["validate-history", ORIGIN_SPEC.format(repo.parent / "origin.git")]) == 0


def new_run(repo: Path, name: str) -> tuple[str, Path]:
    """A commit on main and its result documents (in a directory of their own)."""
    git(repo, "commit", "-q", "--allow-empty", "-m", name)
    docs = repo.parent / name
    results(repo, docs)
    return git(repo, "rev-parse", "HEAD"), docs


def appended(repo: Path, count: int) -> list[str]:
    """`count` commits on main, each appended to gh-pages as one publish would; their ids."""
    out = []
    for i in range(count):
        sha, docs = new_run(repo, f"push-{len(list(repo.parent.glob('push-*')))}-{i}")
        spec = ORIGIN_SPEC.format(repo.parent / "origin.git")
        assert main(["append", spec, *map(str, sorted(docs.glob("*.json")))]) == 0
        out.append(sha)
    return out


def plan_for(repo: Path, docs: Path | None = None) -> publish.Plan:
    """The store job's plan of KEY, with `docs` as its downloaded results (None: none)."""
    artifacts = repo / "target/bench/artifacts"
    shutil.rmtree(artifacts, ignore_errors=True)
    artifacts.mkdir(parents=True)
    if docs is not None:
        shutil.copytree(docs, artifacts / f"results-{KEY}")
    return publish.plan(repo, artifacts, repo / "target/export", [KEY], repo / "target/snap")


def test_a_commit_recorded_twice_is_repaired_by_the_next_plan_not_refused(repo, monkeypatch):
    """Two publishes of one commit whose store jobs overlapped: each plan found it unrecorded,
    and the action whose push lost the race pulled and appended it again. The next plan keeps
    the first entry, removes the later copy (saying so, in its notes and the commit), pushes,
    and plans the next commit; before, it refused the history, and so did every later one."""
    monkeypatch.chdir(repo)
    appended(repo, 2)
    before = ids(repo)

    def again(raw: bytes) -> bytes:  # the action's append of a second run of the last commit
        data = tree(raw)
        for runs in data["entries"].values():
            copy = json.loads(json.dumps(runs[-1]))
            copy["date"] += 1000
            copy["benches"][0]["value"] *= 2  # another run's measurement
            runs.append(copy)
        return b"window.BENCHMARK_DATA = " + json.dumps(data, indent=2).encode()

    twice = before[KEY][-1]
    pages_edit(repo, again, f"add {KEY} benchmark result for {twice}")
    assert not valid(repo)
    git(repo, "fetch", "-q", "origin", "gh-pages")
    first, copy = tree(origin_file(repo, f"bench/{KEY}/data.js"))["entries"][KEY][-2:]
    assert first["commit"] == copy["commit"] and first != copy

    _, docs = new_run(repo, "the-next-push")
    plan = plan_for(repo, docs)
    assert plan.sizes == [KEY]  # the next commit goes to the action
    assert ids(repo) == before and valid(repo)
    assert tree(origin_file(repo, f"bench/{KEY}/data.js"))["entries"][KEY][-1] == first
    said = [note for note in plan.repaired if "recorded twice" in note]
    assert len(said) == 2 and all(twice in note for note in said), plan.repaired
    message = git(repo, "log", "-1", "--format=%B", "origin/gh-pages")
    assert message.startswith("benchtrack: repair the history") and twice in message


def test_entries_lost_since_the_validated_tip_are_put_back(repo, monkeypatch):
    """A data.js that did not read was pushed after the store job's plan; the action's retry
    read it as an empty history, appended this run's commit and pushed that. The plan after the
    store (the same checkout: it kept the tip it validated) puts back every entry lost, another
    publish's since that tip too, before this run's, and names the version that did not read."""
    monkeypatch.chdir(repo)
    appended(repo, 2)
    sha, docs = new_run(repo, "this-run")
    assert plan_for(repo, docs).sizes == [KEY]  # validated; the checkout keeps that tip
    appended(repo, 1)  # another push's publish, meanwhile
    before = ids(repo)
    broken = pages_edit(repo, lambda raw: raw[:-40], "a bad hand edit")
    alone = repo.parent / "alone"  # what the action makes of it: this run's entries alone
    assert main(["append", str(alone), *map(str, sorted(docs.glob("*.json")))]) == 0
    reset = pages_edit(
        repo, lambda _: (alone / f"bench/{KEY}/data.js").read_bytes(), "the action's push"
    )
    assert ids(repo) == {name: [sha] for name in before} and valid(repo)  # valid, and short

    plan = plan_for(repo, docs)
    assert plan.sizes == [] and plan.recorded == [KEY]
    assert ids(repo) == {name: [*held, sha] for name, held in before.items()} and valid(repo)
    notes = "\n".join(plan.repaired)
    assert "3 entries the tip had lost put back" in notes and f"at {broken[:12]} did not" in notes
    assert git(repo, "rev-parse", "origin/gh-pages~1") == reset  # one commit on top: no force


def test_a_commit_recorded_in_one_direction_is_completed_by_its_next_publish(repo, monkeypatch):
    """A publish killed between the action's two pushes recorded one direction. A re-run of its
    workflow plans it as recorded; the plan first adds the other direction from the run's
    results, as `benchtrack append` would (before, it was never recorded)."""
    monkeypatch.chdir(repo)
    appended(repo, 1)
    sha, docs = new_run(repo, "killed")
    smaller = f"{KEY} (smaller is better)"

    def bigger_only(raw: bytes) -> bytes:
        alone = repo.parent / "bigger-only"
        shutil.rmtree(alone, ignore_errors=True)
        shutil.copytree(repo.parent / "pages", alone, ignore=shutil.ignore_patterns(".git"))
        (alone / "bench/changes.json").unlink(missing_ok=True)
        assert main(["append", str(alone), str(docs / "criterion.json")]) == 0  # bigger only
        return (alone / f"bench/{KEY}/data.js").read_bytes()

    pages_edit(repo, bigger_only, "the action's first push, then the kill")
    before = ids(repo)
    assert before[KEY][-1] == sha and sha not in before[smaller]
    plan = plan_for(repo, docs)
    assert plan.sizes == [] and plan.recorded == [KEY]
    assert ids(repo) == {KEY: before[KEY], smaller: [*before[smaller], sha]} and valid(repo)
    assert any("a publish cut short" in note for note in plan.repaired)


def test_mend_puts_back_what_the_tip_lost_not_what_a_prune_archived(repo, monkeypatch):
    """history.mend on bytes: the entries an earlier version held come back before the tip's,
    in recording order, unless the tip's archive.js holds them (a prune since is not undone)."""
    from benchtrack.history import format as fmt
    from benchtrack.history.mend import mend

    monkeypatch.chdir(repo)
    a, b, c = appended(repo, 3)
    git(repo, "fetch", "-q", "origin", "gh-pages")
    full = origin_file(repo, f"bench/{KEY}/data.js")

    def keep(raw: bytes, wanted: list[str]) -> bytes:
        data = tree(raw)
        for name, runs in data["entries"].items():
            data["entries"][name] = [r for r in runs if r["commit"]["id"] in wanted]
        return fmt.dumps(data)

    tip, archive = keep(full, [c]), keep(full, [a])
    put_back = mend("d", tip, None, [("base", full)])
    assert [r["commit"]["id"] for r in tree(put_back.data)["entries"][KEY]] == [a, b, c]
    assert put_back.data == full  # byte for byte: the action's own layout and entries
    pruned = mend("d", tip, archive, [("base", full)])
    assert [r["commit"]["id"] for r in tree(pruned.data)["entries"][KEY]] == [b, c]
    assert mend("d", keep(full, [b, c]), archive, [("base", full)]) is None  # nothing lost


def test_publish_site_commits_dashboard_and_changes_beside_untouched_data_js(repo, monkeypatch):
    monkeypatch.chdir(repo)
    docs = results(repo, repo / "target/bench/artifacts" / f"results-{KEY}")
    origin = repo.parent / "origin.git"
    assert main(["append", f"git:{origin}#gh-pages", *map(str, docs)]) == 0
    git(repo, "fetch", "-q", "origin", "gh-pages")
    before = origin_file(repo, f"bench/{KEY}/data.js")
    summary = repo.parent / "summary.md"

    assert main(["publish-site", "--summary", str(summary)]) == 0
    git(repo, "fetch", "-q", "origin", "gh-pages")
    assert origin_file(repo, f"bench/{KEY}/data.js") == before
    assert b"<html" in origin_file(repo, "index.html").lower()
    changes = json.loads(origin_file(repo, "bench/changes.json"))
    assert changes["schema"] == "benchtrack.changes/1"
    # A second publish with nothing new commits nothing.
    head = git(repo, "rev-parse", "origin/gh-pages")
    assert main(["publish-site", "--summary", str(summary)]) == 0
    git(repo, "fetch", "-q", "origin", "gh-pages")
    assert git(repo, "rev-parse", "origin/gh-pages") == head


NINE = 9


def step(argv: list[str], tmp: Path, monkeypatch) -> dict[str, str]:
    """One workflow step through the CLI, with the $GITHUB_OUTPUT file GitHub gives a step."""
    out = tmp / f"output-{len(list(tmp.glob('output-*')))}"
    out.write_text("")
    monkeypatch.setenv("GITHUB_OUTPUT", str(out))
    assert main(argv) == 0
    return dict(line.split("=", 1) for line in out.read_text().splitlines())


def publish_stage(repo: Path, artifacts: Path, keys: list[str], monkeypatch) -> dict[str, str]:
    """publish.yml's jobs in their order, each step through the CLI; the plan job's outputs."""
    tmp = repo.parent / "steps"
    tmp.mkdir(exist_ok=True)
    expected = ["publish-plan", "--github-output", "--artifacts", str(artifacts)]
    plan = step([*expected, "--expected-keys", json.dumps(keys)], tmp, monkeypatch)
    origin = repo.parent / "origin.git"
    for key in json.loads(plan["sizes"]):  # the store matrix, max-parallel 1
        # The store job downloads only its own size's artifact.
        own = repo.parent / "store-artifacts"
        shutil.rmtree(own, ignore_errors=True)
        shutil.copytree(artifacts / f"results-{key}", own / f"results-{key}")
        alone = [*expected[:2], "--artifacts", str(own), "--expected-keys", json.dumps([key])]
        if json.loads(step(alone, tmp, monkeypatch)["sizes"]) == [key]:
            docs = sorted(str(p) for p in (own / f"results-{key}").glob("*.json"))
            assert main(["append", f"git:{origin}#gh-pages", *docs]) == 0  # the action
    assert main(["publish-site", "--summary", str(tmp / "summary.md")]) == 0
    return plan


def test_nine_runner_sizes_are_all_stored_over_two_pushes_and_a_rerun(repo, tmp_path, monkeypatch):
    # Nine sizes in the runner-size file: the matrix job's keys are the publish stage's input.
    config = tmp_path / "runners.toml"
    config.write_text(
        "".join(f'[[runner]]\nruns-on = "ubuntu-latest"\ncpus = {n}\n' for n in range(1, 10))
    )
    keys = json.loads(step(["matrix", "--config", str(config), "--github-output"], tmp_path,
                           monkeypatch)["keys"])  # fmt: skip
    assert len(keys) == NINE
    missing = "ubuntu-latest-16cpu"  # a tenth size whose bench job failed
    monkeypatch.chdir(repo)
    origin = repo.parent / "origin.git"
    commits = []
    for push in range(2):
        if push:
            git(repo, "commit", "-q", "--allow-empty", "-m", "second push")
        commits.append(git(repo, "rev-parse", "HEAD"))
        artifacts = tmp_path / f"artifacts-{push}"
        for n, key in enumerate(keys, 1):
            results(repo, artifacts / f"results-{key}", cpus=n)
        plan = publish_stage(repo, artifacts, [*keys, missing], monkeypatch)
        assert json.loads(plan["sizes"]) == keys
        assert plan["missing"] == missing

    git(repo, "fetch", "-q", "origin", "gh-pages")
    for key in keys:  # every size, both directions, both pushes, in order
        data = json.loads(origin_file(repo, f"bench/{key}/data.js").split(b"=", 1)[1])
        found = {name: [e["commit"]["id"] for e in es] for name, es in data["entries"].items()}
        assert found == {key: commits, f"{key} (smaller is better)": commits}
    assert b"<html" in origin_file(repo, "index.html").lower()
    assert main(["validate-history", f"git:{origin}#gh-pages"]) == 0

    # A re-run of the second push's workflow: nothing to store, nothing changed.
    before = {k: origin_file(repo, f"bench/{k}/data.js") for k in keys}
    again = publish_stage(repo, tmp_path / "artifacts-1", [*keys, missing], monkeypatch)
    assert again["sizes"] == "[]"
    git(repo, "fetch", "-q", "origin", "gh-pages")
    assert {k: origin_file(repo, f"bench/{k}/data.js") for k in keys} == before


def test_publish_site_archives_by_the_retention_in_the_same_commit(repo, monkeypatch):
    """With [history.retention] in the checkout's benchtrack.toml, the site job moves what the
    retention no longer keeps from each data.js to archive.js, in the dashboard's commit; the
    next publish finds nothing due and commits nothing."""
    from benchtrack.history import format as fmt
    from benchtrack.lab import synthetic

    monkeypatch.chdir(repo)
    monkeypatch.setenv("BENCHTRACK_CACHE", "off")
    pages = repo.parent / "pages"
    synthetic.history(pages, commits=200, benches=10, runners=(1, 2), every_ms=86_400_000)
    git(pages, "init", "-q", "-b", "gh-pages")
    git(pages, "add", "-A")
    git(pages, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "h")
    git(pages, "push", "-q", str(repo.parent / "origin.git"), "gh-pages")
    (repo / "benchtrack.toml").write_text(
        '[history.retention]\nkeep_all_days = 60\nkeep_one_per = "month"\n'
    )
    summary = repo.parent / "summary.md"
    assert main(["publish-site", "--summary", str(summary)]) == 0
    git(repo, "fetch", "-q", "origin", "gh-pages")
    message = git(repo, "log", "-1", "--format=%s", "origin/gh-pages")
    assert message.startswith("benchtrack: dashboard and change points; ")
    assert "entries archived" in message
    for cpus in (1, 2):
        key = f"ubuntu-latest-{cpus}cpu"
        data = fmt.parse(origin_file(repo, f"bench/{key}/data.js"), "d").data["entries"][key]
        archive = fmt.parse(origin_file(repo, f"bench/{key}/archive.js"), "a").data["entries"]
        assert len(data) + len(archive[key]) == 200
        assert len(data) < 80  # 60 days, then one a month
    assert b"<html" in origin_file(repo, "index.html").lower()
    assert main(["validate-history", f"git:{repo.parent / 'origin.git'}#gh-pages"]) == 0
    head = git(repo, "rev-parse", "origin/gh-pages")
    assert main(["publish-site", "--summary", str(summary)]) == 0
    git(repo, "fetch", "-q", "origin", "gh-pages")
    assert git(repo, "rev-parse", "origin/gh-pages") == head


def test_publish_site_refuses_a_bad_retention_before_any_git_work(repo, monkeypatch, capsys):
    monkeypatch.chdir(repo)
    (repo / "benchtrack.toml").write_text('[history.retention]\nkeep_one_per = "year"\n')
    assert main(["publish-site"]) == 2
    assert "benchtrack.toml: history.retention.keep_all_days" in capsys.readouterr().err
    assert not git(repo, "ls-remote", "--heads", "origin", "gh-pages")


@pytest.mark.parametrize("name", ["data.js", "archive.js"])
def test_a_site_build_that_writes_a_history_file_is_refused(repo, monkeypatch, name):
    monkeypatch.chdir(repo)
    docs = results(repo, repo / "target/bench/artifacts" / f"results-{KEY}")
    origin = repo.parent / "origin.git"
    assert main(["append", f"git:{origin}#gh-pages", *map(str, docs)]) == 0
    head = git(repo, "ls-remote", "origin", "refs/heads/gh-pages").split()[0]

    def build(history: Path) -> None:
        (history / "bench" / KEY / name).write_text("window.BENCHMARK_DATA = {}")

    with pytest.raises(publish.PublishError, match=f"changed bench/{KEY}/{name}"):
        publish.publish_site(repo, repo.parent / "site-work", build)
    assert git(repo, "ls-remote", "origin", "refs/heads/gh-pages").split()[0] == head
