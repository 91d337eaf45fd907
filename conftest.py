"""Shared by every test directory: keep what the tests cache out of the user's home."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(autouse=True, scope="session")
def _private_history_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    # The history reader caches columns (benchtrack.history.cache); subprocesses inherit this.
    os.environ["BENCHTRACK_CACHE"] = str(tmp_path_factory.mktemp("history-cache"))


@pytest.fixture(autouse=True, scope="session")
def _no_xdist_worker_in_children() -> None:
    # pytest-xdist marks its workers' environment (PYTEST_XDIST_WORKER, …), and every harness a
    # test starts would inherit it: pytest-benchmark then disables itself ("xdist plugin is
    # active") and a suite measured under a test reads no benchmarks at all.
    for name in [n for n in os.environ if n.startswith("PYTEST_XDIST_")]:
        del os.environ[name]
