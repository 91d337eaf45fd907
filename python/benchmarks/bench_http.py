"""Experiment 4: HTTP to a local aiohttp server that sleeps (seed, 0.2 s: urllib 613.4 ms vs
aiohttp gather 208.9 ms), and the network + CPU mix (seed, 1 s + sum to 10^5: 3.031 s vs 1.025 s).
"""

import pytest

from asyncio_patterns import cpu, http, mixed

VARIANTS = {
    "sequential": http.multi_sleep_requests,
    "awaited": http.async_multi_sleep_requests_awaited,
    "gather": http.async_multi_sleep_requests,
    "gather_shared_session": http.async_multi_sleep_requests_shared,
}
MIX_VARIANTS = {"sequential": mixed.mix_http_cpu, "gather": mixed.async_mix_http_cpu}


@pytest.mark.bench_group("http")
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_http(bench, sizes, variant, http_server):
    periods = [sizes.sleep] * sizes.sleeps
    fn = VARIANTS[variant]
    result = bench(fn, http_server.url, periods, unit="requests/s", items=len(periods))
    assert result == [200] * len(periods)


@pytest.mark.bench_group("http_cpu")
@pytest.mark.parametrize("variant", list(MIX_VARIANTS))
def test_http_cpu(bench, sizes, variant, http_server):
    periods = [sizes.mix_sleep] * sizes.sleeps
    nums = [sizes.mix_sigma_n] * sizes.sigma_times
    result = bench(MIX_VARIANTS[variant], http_server.url, periods, nums, unit="ops/s")
    assert result == [cpu.expected_sigma(n) for n in nums]
