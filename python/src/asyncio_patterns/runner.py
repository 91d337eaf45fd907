"""A fresh event loop for each benchmark: ``asyncio.Runner`` with a CPU-sized default executor.

pytest-benchmark's fixture is synchronous, so an async pattern is measured by a synchronous
callable that runs one coroutine to completion on a loop owned by an ``asyncio.Runner``. The loop
is created once per benchmark (outside the timed region) and closed after it; loops are never
nested. The default executor (used by ``asyncio.to_thread`` and aiofiles) gets CPython's default
size, ``min(32, cpus + 4)``, but counted from the CPUs this process may use (``BENCH_THREADS``), so
pinning with ``taskset`` changes it the way a smaller machine would.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from asyncio_patterns.params import default_executor_workers

T = TypeVar("T")


def new_runner(threads: int | None = None) -> asyncio.Runner:
    """An ``asyncio.Runner`` whose loop's default executor is sized to the allowed CPUs."""
    workers = default_executor_workers(threads)

    def loop_factory() -> asyncio.AbstractEventLoop:
        loop = asyncio.new_event_loop()
        loop.set_default_executor(
            ThreadPoolExecutor(max_workers=workers, thread_name_prefix="asyncio-patterns")
        )
        return loop

    return asyncio.Runner(loop_factory=loop_factory)


def make_sync(
    runner: asyncio.Runner, coro_fn: Callable[..., Awaitable[T]], *args: Any, **kwargs: Any
) -> Callable[[], T]:
    """A synchronous callable running ``coro_fn(*args, **kwargs)`` on ``runner``'s loop."""

    def call() -> T:
        return runner.run(coro_fn(*args, **kwargs))

    return call


def run(coro_fn: Callable[..., Awaitable[T]], *args: Any, **kwargs: Any) -> T:
    """Run one coroutine on a fresh loop (closed afterwards), from synchronous code."""
    with new_runner() as runner:
        return runner.run(coro_fn(*args, **kwargs))
