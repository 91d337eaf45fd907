import asyncio
import os

import pytest

from asyncio_patterns import cpu
from asyncio_patterns.runner import run

NUMS = [3000, 2000, 1000]
EXPECTED = [cpu.expected_sigma(n) for n in NUMS]


def test_sigma_is_the_closed_form():
    assert [cpu.sigma(n) for n in (0, 1, 10, 12345)] == [0, 1, 55, 12345 * 12346 // 2]


def test_every_variant_returns_what_the_sync_one_returns():
    assert cpu.multi_sigma(NUMS) == EXPECTED
    assert run(cpu.async_multi_sigma, NUMS) == EXPECTED
    assert run(cpu.async_multi_sigma_to_thread, NUMS) == EXPECTED
    for every in (1, 7, 1000):
        assert run(cpu.async_multi_sigma_sleep0, NUMS, every) == EXPECTED


def test_process_pool_variant_sums_in_other_processes():
    pool = cpu.new_process_pool(2)
    try:
        assert run(cpu.async_multi_sigma_executor, NUMS, pool) == EXPECTED
        pids = set(pool.submit(os.getpid).result() for _ in range(4))
        assert os.getpid() not in pids
    finally:
        pool.shutdown()


def _ticks_while(coro_fn, *args):
    """Loop iterations a side task got while the sums ran: 0-ish means they never yielded."""

    async def main():
        ticks = 0
        done = False

        async def ticker():
            nonlocal ticks
            while not done:
                ticks += 1
                await asyncio.sleep(0)

        task = asyncio.create_task(ticker())
        await asyncio.sleep(0)
        start = ticks
        result = await coro_fn(*args)
        done = True
        await task
        return result, ticks - start

    return run(main)


def test_gather_alone_does_not_interleave_but_sleep0_does():
    result, ticks = _ticks_while(cpu.async_multi_sigma, NUMS)
    assert result == EXPECTED
    assert ticks <= len(NUMS) + 2  # at most one tick between whole sums
    result, ticks = _ticks_while(cpu.async_multi_sigma_sleep0, NUMS, 1)
    assert result == EXPECTED
    assert ticks >= max(NUMS)  # a tick after (about) every addition


@pytest.mark.parametrize("bad", [0, -3])
def test_bad_sizes_are_refused(bad):
    with pytest.raises(ValueError):
        run(cpu.async_sigma_sleep0, 10, bad)
    with pytest.raises(ValueError):
        cpu.new_process_pool(bad)
