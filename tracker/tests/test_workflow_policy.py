"""What the workflow files promise about publishing, read from the files (docs/architecture.md,
"Publishing"): only main publishes; no concurrency group any workflow could join holds the
publish stage (GitHub would cancel all but one pending run of it); every writer to gh-pages pulls
before it pushes, so publishes of several pushes may run at once."""

from __future__ import annotations

from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
WORKFLOWS = REPO / ".github/workflows"


def load(path: Path) -> dict:
    return yaml.safe_load(path.read_text())


def test_only_main_publishes():
    publish = load(WORKFLOWS / "bench.yml")["jobs"]["publish"]
    assert publish["uses"] == "./.github/workflows/publish.yml"
    assert "github.ref == 'refs/heads/main'" in publish["if"]  # a dispatch elsewhere stops here


def test_no_concurrency_group_holds_the_publish_stage():
    bench = load(WORKFLOWS / "bench.yml")
    assert "concurrency" not in bench and "concurrency" not in bench["jobs"]["publish"]
    publish = load(WORKFLOWS / "publish.yml")
    assert "concurrency" not in publish
    assert all("concurrency" not in job for job in publish["jobs"].values())


def test_the_action_pulls_gh_pages_before_each_push():
    action = load(REPO / ".github/actions/store-benchmark/action.yml")
    calls = [s for s in action["runs"]["steps"] if "github-action-benchmark" in s.get("uses", "")]
    assert len(calls) == 2
    for call in calls:  # pull, commit, push; on a rejected push: drop the commit, pull, again
        assert call["with"]["skip-fetch-gh-pages"] is False
        assert call["with"]["auto-push"] is True


def test_a_storing_push_never_fails_or_comments_on_the_actions_own_alert():
    # github-action-benchmark's alert compares one value with the previous one: at 150% it
    # fails every PR of this suite (tracker/GATE.md, "the usual rules"). A comment per alert
    # would be that noise on every push, and it calls the GitHub API: a storing job failed on
    # it in the local engine ("::error::Not Found") when a quick run read 1.62x worse.
    action = load(REPO / ".github/actions/store-benchmark/action.yml")
    calls = [s for s in action["runs"]["steps"] if "github-action-benchmark" in s.get("uses", "")]
    for call in calls:
        assert call["with"]["comment-on-alert"] is False
        assert call["with"]["fail-on-alert"] is False
