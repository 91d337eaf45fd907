"""Shared by every test directory: keep what the tests cache out of the user's home."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(autouse=True, scope="session")
def _private_history_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    # The history reader caches columns (benchtrack.history.cache); subprocesses inherit this.
    os.environ["BENCHTRACK_CACHE"] = str(tmp_path_factory.mktemp("history-cache"))
