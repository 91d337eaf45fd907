"""Experiment 2: write K files; default temp dir (``tmp``) and tmpfs (``shm``).

Seed: 10 × 256 MiB on disk, sync 1242.6 ms vs aiofiles + gather 1219.4 ms; 5 × 256 MiB on tmpfs,
660.6 ms vs 275.2 ms (and 397.2 ms with aiofiles limited to 2 worker threads).
"""

import functools

import pytest

from asyncio_patterns import fileio
from asyncio_patterns.params import bench_profile, bench_threads

pytestmark = pytest.mark.bench_group("fileio", params=("where",))

VARIANTS = {
    "sequential": fileio.write_files,
    "aiofiles_gather": fileio.async_write_files_gather,
    "to_thread_gather": fileio.async_write_files_to_thread,
    "aiofiles_bounded": None,  # semaphore of BENCH_THREADS, set below
}


@pytest.fixture(scope="module")
def data():
    return b"\0" * bench_profile().file_bytes  # zeros, as the seed's


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_fileio(bench, sizes, variant, file_dir, data):
    paths = [file_dir / f"f{i}.bin" for i in range(sizes.files)]
    fn = VARIANTS[variant]
    extra = {"files": sizes.files, "file_bytes": sizes.file_bytes}
    if fn is None:
        limit = bench_threads()
        fn = functools.partial(fileio.async_write_files_bounded, limit=limit)
        extra["limit"] = limit
    result = bench(fn, paths, data, unit="bytes/s", items=len(data) * len(paths), **extra)
    assert result == [len(data)] * len(paths)
    assert all(path.stat().st_size == len(data) for path in paths)
