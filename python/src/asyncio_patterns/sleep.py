"""Experiment 1: three sleeps, sequential, awaited one by one, and gathered (seed 004)."""

from __future__ import annotations

import asyncio
import time


def multi_sleep(periods: list[float]) -> list[float]:
    """Sleep each period in turn; returns the periods slept."""
    for period in periods:
        time.sleep(period)
    return list(periods)


async def async_multi_sleep(periods: list[float]) -> list[float]:
    """Await each sleep before starting the next: no overlap, as long as ``multi_sleep``."""
    for period in periods:
        await asyncio.sleep(period)
    return list(periods)


async def _sleep(period: float) -> float:
    await asyncio.sleep(period)
    return period


async def async_multi_sleep_gather(periods: list[float]) -> list[float]:
    """All sleeps at once with ``asyncio.gather``: about as long as the longest one."""
    return list(await asyncio.gather(*(_sleep(period) for period in periods)))
