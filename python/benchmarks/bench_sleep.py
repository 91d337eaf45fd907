"""Experiment 1: three sleeps (seed: 608.6 / 606.5 / 202.4 ms for 0.2 s sleeps)."""

import pytest

from asyncio_patterns import sleep

pytestmark = pytest.mark.bench_group("sleep")

VARIANTS = {
    "sequential": sleep.multi_sleep,
    "awaited": sleep.async_multi_sleep,
    "gather": sleep.async_multi_sleep_gather,
}


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_sleep(bench, sizes, variant):
    periods = [sizes.sleep] * sizes.sleeps
    result = bench(VARIANTS[variant], periods, unit="sleeps/s", items=len(periods))
    assert result == periods
