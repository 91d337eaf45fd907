"""Experiment 3: CPU-bound sums, and why ``gather`` alone does not make them faster.

A coroutine that never awaits runs start to finish once scheduled, so gathering three of them is
the sequential loop with extra steps. ``await asyncio.sleep(0)`` makes them interleave (still one
thread). ``asyncio.to_thread`` runs them in threads, but pure-Python additions hold the GIL.
Only a ``ProcessPoolExecutor`` runs them in parallel, so it is the one that scales with CPUs.
"""

from __future__ import annotations

import asyncio
import multiprocessing
from concurrent.futures import Executor, ProcessPoolExecutor


def sigma(n: int) -> int:
    """0 + 1 + ... + n, one addition at a time (the seed's CPU load)."""
    v = 0
    for i in range(n + 1):
        v += i
    return v


def expected_sigma(n: int) -> int:
    return n * (n + 1) // 2


async def async_sigma(n: int) -> int:
    """The same loop in a coroutine: it never awaits, so it never lets another task run."""
    v = 0
    for i in range(n + 1):
        v += i
    return v


async def async_sigma_sleep0(n: int, every: int = 1) -> int:
    """The loop with ``await asyncio.sleep(0)`` after every ``every`` additions: tasks interleave.

    The additions run in chunks of ``every`` with the same inner loop as ``sigma``, so the cost
    measured beyond ``sigma``'s is the yielding itself (``every=1`` is the seed discussion's form).
    """
    if every < 1:
        raise ValueError(f"every must be at least 1, got {every}")
    v = 0
    for start in range(0, n + 1, every):
        for i in range(start, min(start + every, n + 1)):
            v += i
        await asyncio.sleep(0)
    return v


def multi_sigma(nums: list[int]) -> list[int]:
    return [sigma(n) for n in nums]


async def async_multi_sigma(nums: list[int]) -> list[int]:
    """``gather`` of coroutines that never await: runs them one after another."""
    return list(await asyncio.gather(*(async_sigma(n) for n in nums)))


async def async_multi_sigma_sleep0(nums: list[int], every: int = 1) -> list[int]:
    """``gather`` of sums that yield to the loop: interleaved, not parallel."""
    return list(await asyncio.gather(*(async_sigma_sleep0(n, every) for n in nums)))


async def async_multi_sigma_to_thread(nums: list[int]) -> list[int]:
    """Each sum in the default executor's threads; the GIL keeps it about sequential."""
    return list(await asyncio.gather(*(asyncio.to_thread(sigma, n) for n in nums)))


async def async_multi_sigma_executor(nums: list[int], executor: Executor) -> list[int]:
    """Each sum in ``executor`` (a ``ProcessPoolExecutor`` runs them in parallel)."""
    loop = asyncio.get_running_loop()
    return list(await asyncio.gather(*(loop.run_in_executor(executor, sigma, n) for n in nums)))


def new_process_pool(workers: int) -> ProcessPoolExecutor:
    """A process pool with ``workers`` started processes (spawned, so no fork of a busy parent).

    All workers are started here, so the first timed call does not pay for process start-up.
    """
    if workers < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"))
    # One job per worker, each long enough that an idle worker is needed to take the next one.
    list(pool.map(sigma, [200_000] * workers))
    return pool
