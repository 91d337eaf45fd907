"""Experiment 4: HTTP requests to a server that sleeps, urllib in turn vs aiohttp + gather.

Every URL must point at a loopback host (checked), and neither client uses a proxy: urllib is
given an opener without proxy handlers (it would otherwise honour ``http_proxy``), aiohttp keeps
its default ``trust_env=False``.
"""

from __future__ import annotations

import asyncio

import aiohttp

from asyncio_patterns.loopback import check_url, open_url


def sleep_request(url: str, period: float) -> int:
    """One ``GET /sleep?period=…`` with urllib; returns the HTTP status."""
    with open_url(f"{url}/sleep?period={period}") as response:
        response.read()
        return response.status


def multi_sleep_requests(url: str, periods: list[float]) -> list[int]:
    """One request after another (the seed's sequential version)."""
    return [sleep_request(url, period) for period in periods]


async def async_sleep_request(url: str, period: float) -> int:
    """One request with aiohttp, in its own ``ClientSession`` as in the seed."""
    check_url(url)
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"{url}/sleep", params={"period": repr(period)}) as response,
    ):
        await response.read()
        return response.status


async def async_multi_sleep_requests_awaited(url: str, periods: list[float]) -> list[int]:
    """aiohttp, each request awaited before the next starts: no overlap."""
    return [await async_sleep_request(url, period) for period in periods]


async def async_multi_sleep_requests(url: str, periods: list[float]) -> list[int]:
    """aiohttp, all requests at once with ``asyncio.gather`` (the seed's async version)."""
    return list(await asyncio.gather(*(async_sleep_request(url, p) for p in periods)))


async def async_multi_sleep_requests_shared(url: str, periods: list[float]) -> list[int]:
    """aiohttp + gather over one shared ``ClientSession`` (aiohttp's recommended use)."""
    check_url(url)

    async def one(session: aiohttp.ClientSession, period: float) -> int:
        async with session.get(f"{url}/sleep", params={"period": repr(period)}) as response:
            await response.read()
            return response.status

    async with aiohttp.ClientSession() as session:
        return list(await asyncio.gather(*(one(session, p) for p in periods)))
