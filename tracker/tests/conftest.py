"""The tracker's tests: the longest files first.

`cargo make test` runs these on pytest-xdist workers a file at a time (--dist loadfile), each
file handed to the next free worker in collection order. Collected alphabetically, the longest
files (the workflow engine's) came last and one worker ran them alone at the end; longest first,
the others fill in around them. The list is by the durations `test-tracker` prints; a file not
named keeps its place after them.
"""

from __future__ import annotations

import pytest

LONGEST_FIRST = (
    "test_workflows_engine.py",
    "test_lockstep_rust.py",
    "test_adopt_lockstep.py",
    "test_lockstep_harnesses.py",
    "test_workflows_engine_pr.py",
    "test_workflows_local.py",
    "test_workflows_engine_shards.py",
    "test_publish_faults_corrupt.py",
    "test_publish_faults_race.py",
    "test_publish_faults_killed.py",
    "test_lockstep.py",
    "test_stepworkers.py",
    "test_workflows_engine_adopter.py",
    "test_callgrind.py",
    "test_setup_uv.py",
    "test_adopt.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(LONGEST_FIRST)))  # stable
