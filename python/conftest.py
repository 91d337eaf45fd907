"""Fixtures shared by the correctness tests (tests/) and the benchmarks (benchmarks/)."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from asyncio_patterns.fileio import storage_dirs
from asyncio_patterns.server import ServerProcess, port_is_closed, process_is_gone


@pytest.fixture(scope="session")
def http_server() -> Iterator[ServerProcess]:
    """The sleeping aiohttp server, in a child process on 127.0.0.1, once per session.

    Teardown checks that it is really gone: exited cleanly, reaped, and its port closed.
    """
    server = ServerProcess()
    server.start()
    try:
        yield server
    finally:
        code = server.stop()
    assert code == 0, f"the HTTP server exited with {code}"
    assert process_is_gone(server.pid), f"the HTTP server (pid {server.pid}) is still there"
    assert port_is_closed(server.port), f"port {server.port} still accepts connections"


@contextlib.contextmanager
def scratch_dir(base: Path) -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="asyncio-patterns-", dir=base))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(params=["tmp", "shm"])
def where(request: pytest.FixtureRequest) -> str:
    """``tmp`` (the default temp dir) or ``shm`` (tmpfs); ``shm`` is skipped where absent."""
    if request.param not in storage_dirs():
        pytest.skip("/dev/shm is not present on this machine")
    return request.param


@pytest.fixture
def file_dir(where: str) -> Iterator[Path]:
    """A fresh directory on the storage named by ``where``, removed afterwards."""
    with scratch_dir(storage_dirs()[where]) as path:
        yield path


@pytest.fixture
def queries_meet(monkeypatch: pytest.MonkeyPatch):
    """A barrier every SQLite query's registered sleep must pass before it sleeps: only queries
    running at once can pass it (sequential ones break it after 30 s). Overlap proven without
    a peak of overlapping sleeps, which a busy machine can thin (peak 2 of 3 once in CI)."""
    from asyncio_patterns import db

    def meeting(n: int) -> threading.Barrier:
        meet = threading.Barrier(n, timeout=30)
        sleep = db._sleep

        def meet_then_sleep(period: float) -> float:
            meet.wait()
            return sleep(period)

        monkeypatch.setattr(db, "_sleep", meet_then_sleep)
        return meet

    return meeting
