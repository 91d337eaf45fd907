"""A data.js corrupted between plan and store is not emptied (publish_faults.py, fault 3)."""

from __future__ import annotations

import pytest
from publish_faults import (
    KEY,
    PushHold,
    assert_published,
    assert_publishing_goes_on,
    assert_whole,
    held,
    make_world,
    needs_engine,
)
from test_workflows_local import git, run

pytestmark = needs_engine


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    yield from make_world(tmp_path_factory)


def test_a_data_js_corrupted_between_plan_and_store_is_not_emptied(world):
    # validated and planned; the action is pushing
    before, sha, (running,) = held(world, "pre-receive", "corrupt-data-js")
    pages = world["tmp"] / "pages"
    run(world["tmp"], "git", "clone", "-q", "-b", "gh-pages", str(world["origin"]), str(pages))
    data = pages / f"bench/{KEY}/data.js"
    data.write_bytes(data.read_bytes()[:-40])
    git(pages, "-c", "user.name=x", "-c", "user.email=x@x", "commit", "-qam", "a bad hand edit")
    run(pages, "git", "push", "-q", "origin", "gh-pages", env=PushHold.PASS)
    world["hold"].release("pre-receive")
    done = running.wait()
    # the action's retry read the corrupt file and started over from an empty history
    assert "Could not find data.js" in done.log, str(done.log_path)
    assert_published(done)
    assert_whole(world, before, sha)
    assert_publishing_goes_on(world, before, sha)
