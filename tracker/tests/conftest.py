"""The tracker's tests: the longest files first.

`cargo make test` runs these on pytest-xdist workers a file at a time (--dist loadfile), each
file handed to the next free worker in collection order. That order is this list's only with
`--no-loadscope-reorder` (tracker/tasks.toml): by default xdist 3 sorts the files by how many tests
they hold, which put the one-test workflow-engine files last, where one worker ran them alone
at the end. The list is by the wall spans in the "CPU seconds by file" summary (the root
conftest.py) of a full run; a file not named keeps its place after them. A worker whose file
holds two tests or fewer is handed the next file at once, so the first eight start in pairs: in
a full run the 1st and 8th went to one worker, the 2nd and 5th, 3rd and 6th, 4th and 7th. The
Rust step harness builds in rust/target with the dev profile, as `cargo make test-rust` in the
other lane does: it comes after the engine files, when that lane's build is done, instead of
holding a worker while it waits for cargo's lock on the build directory.
"""

from __future__ import annotations

import pytest

LONGEST_FIRST = (
    "test_adopt_lockstep.py",
    "test_publish_faults.py",
    "test_workflows_engine.py",
    "test_workflows_local.py",
    "test_stepworkers.py",
    "test_workflows_engine_pr.py",
    "test_callgrind.py",
    "test_workflows_engine_shards.py",
    "test_adopt.py",
    "test_history_archive.py",
    "test_workflows_engine_adopter.py",
    "test_diagnose_measure.py",
    "test_lockstep.py",
    "test_gate_e2e.py",
    "test_lockstep_rust.py",
    "test_lockstep_harnesses.py",
    "test_setup_uv.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(LONGEST_FIRST)))  # stable
