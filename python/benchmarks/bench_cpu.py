"""Experiment 3: sum to n, three times (seed: sync 1523.0 ms vs async gather 1479.9 ms).

The process pool is created, and its workers started, before the timed region (one pool per
benchmark, ``BENCH_THREADS`` workers); each timed call submits the three sums to it.
"""

import functools

import pytest

from asyncio_patterns import cpu
from asyncio_patterns.params import bench_threads

pytestmark = pytest.mark.bench_group("cpu")

VARIANTS = ["sequential", "gather", "gather_sleep0", "to_thread_gather", "process_pool_gather"]


@pytest.fixture
def process_pool():
    pool = cpu.new_process_pool(bench_threads())
    try:
        yield pool
    finally:
        pool.shutdown()


@pytest.mark.parametrize("variant", VARIANTS)
def test_cpu(bench, sizes, variant, request):
    nums = [sizes.sigma_n] * sizes.sigma_times
    extra = {"n": sizes.sigma_n}
    if variant == "sequential":
        fn = cpu.multi_sigma
    elif variant == "gather":
        fn = cpu.async_multi_sigma
    elif variant == "gather_sleep0":
        fn = functools.partial(cpu.async_multi_sigma_sleep0, every=sizes.sleep0_every)
        extra["sleep0_every"] = sizes.sleep0_every
    elif variant == "to_thread_gather":
        fn = cpu.async_multi_sigma_to_thread
    else:
        fn = functools.partial(
            cpu.async_multi_sigma_executor, executor=request.getfixturevalue("process_pool")
        )
        extra["workers"] = bench_threads()
    result = bench(fn, nums, unit="numbers/s", items=sum(n + 1 for n in nums), **extra)
    assert result == [cpu.expected_sigma(n) for n in nums]
