"""Experiment 5: SQLite queries calling a registered sleep (seed, 0.2 s: sqlite3 609.8 ms vs
aiosqlite gather 212.0 ms), and the DB + CPU mix (seed, 1 s + sum to 10^5: 3.034 s vs 1.034 s).
"""

import pytest

from asyncio_patterns import cpu, db, mixed

VARIANTS = {
    "sequential": db.multi_sleep_db_queries,
    "awaited": db.async_multi_sleep_db_queries_awaited,
    "gather": db.async_multi_sleep_db_queries,
}
MIX_VARIANTS = {"sequential": mixed.mix_db_cpu, "gather": mixed.async_mix_db_cpu}


@pytest.mark.bench_group("db")
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_db(bench, sizes, variant):
    periods = [sizes.sleep] * sizes.sleeps
    result = bench(VARIANTS[variant], periods, unit="queries/s", items=len(periods))
    assert result == periods


@pytest.mark.bench_group("db_cpu")
@pytest.mark.parametrize("variant", list(MIX_VARIANTS))
def test_db_cpu(bench, sizes, variant):
    periods = [sizes.mix_sleep] * sizes.sleeps
    nums = [sizes.mix_sigma_n] * sizes.sigma_times
    result = bench(MIX_VARIANTS[variant], periods, nums, unit="ops/s")
    assert result == [cpu.expected_sigma(n) for n in nums]
