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
    ("variant", "peak"),
    [
        (lambda: db.multi_sleep_db_queries(PERIODS), 1),
        (lambda: run(db.async_multi_sleep_db_queries_awaited, PERIODS), 1),
        (lambda: run(db.async_multi_sleep_db_queries, PERIODS), 3),
    ],
    ids=["sequential", "awaited", "gather"],
)
def test_only_gather_overlaps_the_queries(variant, peak):
    db.SLEEPS.reset()
    variant()
    assert (db.SLEEPS.peak, db.SLEEPS.total) == (peak, 3)
