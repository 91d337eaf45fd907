import subprocess
import sys
import urllib.error

import pytest

from asyncio_patterns import http, loopback, server
from asyncio_patterns.server import port_is_closed, process_is_gone


def test_the_server_leaves_no_process_or_port_behind():
    srv = server.ServerProcess()
    url = srv.start()
    assert url.startswith("http://127.0.0.1:")
    assert http.sleep_request(url, 0) == 200
    assert not port_is_closed(srv.port)
    assert srv.stop() == 0
    assert process_is_gone(srv.pid)
    assert port_is_closed(srv.port)


def test_the_server_exits_when_its_parent_closes_stdin():
    with server.ServerProcess() as srv:
        assert srv.proc is not None and srv.proc.stdin is not None
        srv.proc.stdin.close()
        assert srv.proc.wait(10) == 0
    assert port_is_closed(srv.port)


def test_the_server_answers_the_period_and_refuses_nonsense(http_server):
    with loopback.open_url(f"{http_server.url}/sleep?period=0.001") as response:
        assert response.read() == b"0.001"
    for query in ("", "?period=x", "?period=-1", "?period=100"):
        with pytest.raises(urllib.error.HTTPError) as err:
            loopback.open_url(f"{http_server.url}/sleep{query}")
        assert err.value.code == 400


@pytest.mark.parametrize("host", ["0.0.0.0", "10.1.2.3", "example.com"])
def test_the_server_binds_loopback_only(host):
    with pytest.raises(ValueError, match="loopback"):
        loopback.require_loopback(host)
    done = subprocess.run(
        [sys.executable, "-m", "asyncio_patterns.server", "--host", host],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2
    assert "loopback" in done.stderr
