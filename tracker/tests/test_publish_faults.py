"""Faults in the publish stage, one after another on one origin (publish_faults.py): two
publishes of one commit at once (fault 1), a publish killed mid-push (fault 2), a data.js
corrupted between plan and store (fault 3).

Each fault's history is the next one's start, so the next fault's publish of a new commit is the
publish that must go on after it (recorded after all the rest, `validate-history` passing); after
the last, a publish of a next commit. Each fault's own assertions are as when each started from
the two recorded commits alone: what the fault adds is checked against what was recorded just
before it.
"""

from __future__ import annotations

import publish_faults as pf
import pytest
from test_workflows_local import git, run

pytestmark = pf.needs_engine


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    yield from pf.make_world(tmp_path_factory)


def killed_mid_push(world) -> str:
    """Fault 2: a publish killed mid-push loses nothing; its re-run completes it."""
    # gh-pages moved: the action's first push landed, and it has not heard back
    before, sha, (running,) = pf.held(world, "post-receive", "killed-mid-push")
    killed = running.kill()
    world["hold"].release("post-receive")
    assert killed.returncode != 0 and f"store {pf.KEY}" not in killed.jobs, killed.jobs
    # the bigger-is-better entry landed, nothing after it: the history is whole, one direction
    # of this commit recorded
    assert pf.recorded(world) == {pf.KEY: [*before[pf.KEY], sha], pf.SMALLER: before[pf.SMALLER]}
    pf.assert_valid(world)
    # The commit's publish again (a re-run): it records what the killed one did not, once.
    pf.assert_published(pf.start(world, sha, "killed-again").wait(), store=False)
    pf.assert_whole(world, before, sha)
    return sha


def two_at_once(world) -> str:
    """Fault 1: two publishes of one commit at once record it once."""
    # both planned it unrecorded; both are pushing
    before, sha, runs = pf.held(world, "pre-receive", "two-publishes", runs=2)
    world["hold"].release("pre-receive")
    done = [r.wait() for r in runs]
    for d in done:
        pf.assert_published(d)
    # the race happened: one push was rejected, and the action appended again on the new tip
    assert any("Auto-push failed because the remote gh-pages was updated" in d.log for d in done)
    pf.assert_whole(world, before, sha)
    return sha


def corrupted_before_store(world) -> str:
    """Fault 3: a data.js corrupted between plan and store is not emptied."""
    # validated and planned; the action is pushing
    before, sha, (running,) = pf.held(world, "pre-receive", "corrupt-data-js")
    pages = world["tmp"] / "pages"
    run(world["tmp"], "git", "clone", "-q", "-b", "gh-pages", str(world["origin"]), str(pages))
    data = pages / f"bench/{pf.KEY}/data.js"
    data.write_bytes(data.read_bytes()[:-40])
    git(pages, "-c", "user.name=x", "-c", "user.email=x@x", "commit", "-qam", "a bad hand edit")
    run(pages, "git", "push", "-q", "origin", "gh-pages", env=pf.PushHold.PASS)
    world["hold"].release("pre-receive")
    done = running.wait()
    # the action's retry read the corrupt file and started over from an empty history
    assert "Could not find data.js" in done.log, str(done.log_path)
    pf.assert_published(done)
    pf.assert_whole(world, before, sha)
    return sha


def test_publish_faults_lose_nothing_and_publishing_goes_on_after_each(world):
    start_history = pf.fresh(world)  # the two commits recorded before the faults
    # the killed publish first: each fault after it starts from a history a fault left
    faulted = [killed_mid_push(world)]
    faulted.append(two_at_once(world))  # publishing went on after the kill
    faulted.append(corrupted_before_store(world))  # and after the race
    pf.assert_whole(world, start_history, *faulted)
    pf.assert_publishing_goes_on(world, start_history, *faulted)  # and after the corrupt data.js
