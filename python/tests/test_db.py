import pytest

from asyncio_patterns import db
from asyncio_patterns.runner import run

PERIODS = [0.03, 0.02, 0.01]


def test_every_variant_returns_what_sqlite3_returns():
    expected = db.multi_sleep_db_queries(PERIODS)
    assert expected == PERIODS
    assert run(db.async_multi_sleep_db_queries_awaited, PERIODS) == expected
    assert run(db.async_multi_sleep_db_queries, PERIODS) == expected


@pytest.mark.parametrize(
    "variant",
    [
        lambda: db.multi_sleep_db_queries(PERIODS),
        lambda: run(db.async_multi_sleep_db_queries_awaited, PERIODS),
    ],
    ids=["sequential", "awaited"],
)
def test_the_sequential_variants_never_overlap_the_queries(variant):
    db.SLEEPS.reset()
    variant()
    assert (db.SLEEPS.peak, db.SLEEPS.total) == (1, 3)


def test_gather_has_every_query_in_its_registered_function_at_once(queries_meet):
    meet = queries_meet(len(PERIODS))  # conftest.py: only queries running at once pass it
    db.SLEEPS.reset()
    assert run(db.async_multi_sleep_db_queries, PERIODS) == PERIODS
    assert db.SLEEPS.total == 3 and not meet.broken
