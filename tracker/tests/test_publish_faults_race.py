"""Two publishes of one commit at once record it once (publish_faults.py, fault 1)."""

from __future__ import annotations

import pytest
from publish_faults import (
    assert_published,
    assert_publishing_goes_on,
    assert_whole,
    held,
    make_world,
    needs_engine,
)

pytestmark = needs_engine


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    yield from make_world(tmp_path_factory)


def test_two_publishes_of_one_commit_at_once_record_it_once(world):
    # both planned it unrecorded; both are pushing
    before, sha, runs = held(world, "pre-receive", "two-publishes", runs=2)
    world["hold"].release("pre-receive")
    done = [r.wait() for r in runs]
    for d in done:
        assert_published(d)
    # the race happened: one push was rejected, and the action appended again on the new tip
    assert any("Auto-push failed because the remote gh-pages was updated" in d.log for d in done)
    assert_whole(world, before, sha)
    assert_publishing_goes_on(world, before, sha)
