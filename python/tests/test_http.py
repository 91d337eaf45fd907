import pytest

from asyncio_patterns import http, loopback, server
from asyncio_patterns.runner import run

PERIODS = [0.05, 0.05, 0.05]
# The gathered requests' overlap is read at the server (its peak in flight): with 1 s sleeps a
# request would have to start a second after another ended to thin it, which a busy machine
# did to 50 ms ones (peak 2 in place of 3, as the SQLite queries' once in CI).
GATHERED = [1.0, 1.0, 1.0]


def test_every_variant_returns_what_urllib_returns(http_server):
    url = http_server.url
    expected = http.multi_sleep_requests(url, PERIODS)
    assert expected == [200, 200, 200]
    assert run(http.async_multi_sleep_requests_awaited, url, PERIODS) == expected
    assert run(http.async_multi_sleep_requests, url, PERIODS) == expected
    assert run(http.async_multi_sleep_requests_shared, url, PERIODS) == expected


@pytest.mark.parametrize(
    ("variant", "peak"),
    [
        (lambda url: http.multi_sleep_requests(url, PERIODS), 1),
        (lambda url: run(http.async_multi_sleep_requests_awaited, url, PERIODS), 1),
        (lambda url: run(http.async_multi_sleep_requests, url, GATHERED), 3),
        (lambda url: run(http.async_multi_sleep_requests_shared, url, GATHERED), 3),
    ],
    ids=["sequential", "awaited", "gather", "gather_shared_session"],
)
def test_only_gather_overlaps_requests_at_the_server(http_server, variant, peak):
    server.reset_stats(http_server.url)
    variant(http_server.url)
    assert server.stats(http_server.url) == {"peak": peak, "total": 3}


@pytest.mark.parametrize(
    "url", ["http://192.0.2.1:80", "http://example.invalid", "ftp://127.0.0.1/"]
)
def test_nothing_leaves_loopback(url):
    # refused before any connection is attempted
    with pytest.raises(ValueError):
        http.sleep_request(url, 0)
    with pytest.raises(ValueError):
        run(http.async_sleep_request, url, 0)
    with pytest.raises(ValueError):
        run(http.async_multi_sleep_requests_shared, url, [0])


def test_loopback_urls_are_accepted():
    for url in ("http://127.0.0.1:1", "http://localhost:1", "http://[::1]:1", "http://127.1.2.3"):
        assert loopback.check_url(url) == url
