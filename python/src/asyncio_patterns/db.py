"""Experiment 5: SQLite queries that call a registered ``sleep`` function, sqlite3 vs aiosqlite.

SQLite has no sleep, so (as in the seed) a Python function is registered and called by the query.
``time.sleep`` releases the GIL, and aiosqlite runs each connection in its own thread, so gathered
queries on separate connections overlap. Each query uses its own in-memory database, as the seed's.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time

import aiosqlite

from asyncio_patterns.probe import InFlight

#: Overlap of the registered sleep function across all connections (read by the tests).
SLEEPS = InFlight()


def _sleep(period: float) -> float:
    with SLEEPS.track():
        time.sleep(period)
    return period


def sleep_db_query(period: float) -> float:
    """``SELECT sleep(period)`` on a fresh sqlite3 connection; returns what the query returned."""
    db = sqlite3.connect(":memory:")
    try:
        db.create_function("sleep", 1, _sleep)
        (value,) = db.execute("SELECT sleep(?)", (period,)).fetchone()
        return value
    finally:
        db.close()


def multi_sleep_db_queries(periods: list[float]) -> list[float]:
    """One query after another."""
    return [sleep_db_query(period) for period in periods]


async def async_sleep_db_query(period: float) -> float:
    """The same query through aiosqlite (its connection runs in a thread of its own)."""
    async with aiosqlite.connect(":memory:") as db:
        await db.create_function("sleep", 1, _sleep)
        async with db.execute("SELECT sleep(?)", (period,)) as cursor:
            row = await cursor.fetchone()
    assert row is not None
    return row[0]


async def async_multi_sleep_db_queries_awaited(periods: list[float]) -> list[float]:
    """aiosqlite, each query awaited before the next: no overlap."""
    return [await async_sleep_db_query(period) for period in periods]


async def async_multi_sleep_db_queries(periods: list[float]) -> list[float]:
    """aiosqlite, all queries at once with ``asyncio.gather`` (the seed's async version)."""
    return list(await asyncio.gather(*(async_sleep_db_query(p) for p in periods)))
