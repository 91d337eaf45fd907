"""Experiments 4-6, mixed: I/O followed by CPU work, and the same two gathered.

Synchronously the I/O and the sums run one after the other; gathered, the sums run on the loop
while the I/O waits elsewhere (another process, aiosqlite's threads, the default executor), so the
call takes about as long as the longer of the two instead of their sum.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from asyncio_patterns import cpu, db, fileio, http


def mix_file_cpu(paths: list[Path], data: bytes, nums: list[int]) -> list[int]:
    fileio.write_files(paths, data)
    return cpu.multi_sigma(nums)


async def async_mix_file_cpu(paths: list[Path], data: bytes, nums: list[int]) -> list[int]:
    _, sums = await asyncio.gather(
        fileio.async_write_files_gather(paths, data), cpu.async_multi_sigma(nums)
    )
    return sums


def mix_http_cpu(url: str, periods: list[float], nums: list[int]) -> list[int]:
    http.multi_sleep_requests(url, periods)
    return cpu.multi_sigma(nums)


async def async_mix_http_cpu(url: str, periods: list[float], nums: list[int]) -> list[int]:
    _, sums = await asyncio.gather(
        http.async_multi_sleep_requests(url, periods), cpu.async_multi_sigma(nums)
    )
    return sums


def mix_db_cpu(periods: list[float], nums: list[int]) -> list[int]:
    db.multi_sleep_db_queries(periods)
    return cpu.multi_sigma(nums)


async def async_mix_db_cpu(periods: list[float], nums: list[int]) -> list[int]:
    _, sums = await asyncio.gather(
        db.async_multi_sleep_db_queries(periods), cpu.async_multi_sigma(nums)
    )
    return sums
