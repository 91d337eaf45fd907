"""Experiment 2: write K files, synchronously, with aiofiles + gather, and with to_thread.

aiofiles runs each blocking call in the loop's default executor, so "async" file I/O is thread
I/O: whether it gains depends on the storage's concurrent write throughput (the seed saw no gain on
a disk and ≈2.4× on tmpfs). The bounded variant caps the writes in flight with a semaphore, the
asyncio form of the seed discussion's ``ThreadPoolExecutor(max_workers=2)``.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

import aiofiles

from asyncio_patterns.probe import InFlight

SHM = Path("/dev/shm")


def storage_dirs() -> dict[str, Path]:
    """Where the files go: ``tmp`` (the default temp dir) and ``shm`` (tmpfs, when present)."""
    dirs = {"tmp": Path(tempfile.gettempdir())}
    if SHM.is_dir():
        dirs["shm"] = SHM
    return dirs


def write_file(path: Path, data: bytes) -> int:
    """Write ``data`` to ``path`` (truncating); returns the bytes written."""
    with path.open("wb") as f:
        return f.write(data)


def write_files(paths: list[Path], data: bytes) -> list[int]:
    """Write ``data`` to every path in turn."""
    return [write_file(path, data) for path in paths]


async def async_write_file(path: Path, data: bytes, probe: InFlight | None = None) -> int:
    """aiofiles: open, write and close each run in the default executor."""
    if probe is None:
        async with aiofiles.open(path, "wb") as f:
            return await f.write(data)
    with probe.track():
        async with aiofiles.open(path, "wb") as f:
            return await f.write(data)


async def async_write_files_gather(paths: list[Path], data: bytes) -> list[int]:
    """Every file at once through aiofiles and ``asyncio.gather`` (the seed's async version)."""
    return list(await asyncio.gather(*(async_write_file(path, data) for path in paths)))


async def async_write_files_to_thread(paths: list[Path], data: bytes) -> list[int]:
    """Every file at once, each blocking ``write_file`` in a thread (``asyncio.to_thread``)."""
    return list(await asyncio.gather(*(asyncio.to_thread(write_file, p, data) for p in paths)))


async def async_write_files_bounded(
    paths: list[Path], data: bytes, limit: int, probe: InFlight | None = None
) -> list[int]:
    """aiofiles + gather, but at most ``limit`` files being written at any moment."""
    if limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    semaphore = asyncio.Semaphore(limit)

    async def bounded(path: Path) -> int:
        async with semaphore:
            return await async_write_file(path, data, probe)

    return list(await asyncio.gather(*(bounded(path) for path in paths)))
