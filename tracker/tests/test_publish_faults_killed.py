"""A publish killed mid-push loses nothing; its re-run completes it (publish_faults.py, fault 2)."""

from __future__ import annotations

import pytest
from publish_faults import (
    KEY,
    SMALLER,
    assert_published,
    assert_publishing_goes_on,
    assert_valid,
    assert_whole,
    held,
    make_world,
    needs_engine,
    recorded,
    start,
)

pytestmark = needs_engine


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    yield from make_world(tmp_path_factory)


def test_a_publish_killed_mid_push_loses_nothing_and_its_rerun_completes_it(world):
    # gh-pages moved: the action's first push landed, and it has not heard back
    before, sha, (running,) = held(world, "post-receive", "killed-mid-push")
    killed = running.kill()
    world["hold"].release("post-receive")
    assert killed.returncode != 0 and f"store {KEY}" not in killed.jobs, killed.jobs
    # the bigger-is-better entry landed, nothing after it: the history is whole, one direction
    # of this commit recorded
    assert recorded(world) == {KEY: [*before[KEY], sha], SMALLER: before[SMALLER]}
    assert_valid(world)
    # The commit's publish again (a re-run): it records what the killed one did not, once.
    assert_published(start(world, sha, "killed-again").wait(), store=False)
    assert_whole(world, before, sha)
    assert_publishing_goes_on(world, before, sha)
