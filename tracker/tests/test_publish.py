"""The CI publish job against a real bare "origin": plan, the action's stand-in, the site.

The action step itself cannot run here; `benchtrack append` (the same data.js format, tested
byte-for-byte against Node in test_history_format.py) stands in for it, in the same order.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from benchtrack import publish
from benchtrack.cli import main
from benchtrack.errors import BadInput

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


def results(repo: Path, key_dir: Path) -> list[Path]:
    """Real result documents (ingested from real harness output) for the checkout's HEAD."""
    key_dir.mkdir(parents=True, exist_ok=True)
    meta = ["--runner-label", "ubuntu-latest", "--runner-cpus", "2", "--commit", "HEAD"]
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
    assert plan.slots == [KEY]
    assert plan.missing == ["ubuntu-latest-1cpu"]
    assert git(repo, "ls-remote", "--heads", "origin", "gh-pages")  # created for the action
    bigger = json.loads((export / f"{KEY}.bigger.json").read_text())
    smaller = json.loads((export / f"{KEY}.smaller.json").read_text())
    assert bigger and all(b["unit"].endswith("/s") for b in bigger)
    assert smaller and all(b["unit"] == "KB" for b in smaller)
    assert plan.outputs()["slot1"] == KEY and plan.outputs()["slot2"] == ""


def test_rerun_of_a_recorded_commit_does_not_reach_the_action(repo, monkeypatch):
    monkeypatch.chdir(repo)
    artifacts = repo / "target/bench/artifacts"
    docs = results(repo, artifacts / f"results-{KEY}")
    export = repo / "target/bench/export"
    publish.plan(repo, artifacts, export, [KEY], repo / "target/snap")
    # The action's stand-in: the same format, appended to the same branch.
    assert main(["append", f"git:{repo.parent / 'origin.git'}#gh-pages", *map(str, docs)]) == 0
    again = publish.plan(repo, artifacts, export, [KEY], repo / "target/snap")
    assert again.slots == [] and again.recorded == [KEY]


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
