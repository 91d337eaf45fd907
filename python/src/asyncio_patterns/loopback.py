"""This suite never leaves loopback: the host and URL checks, and a urllib opener that ignores
proxy settings. Both the HTTP clients (http.py) and the server (server.py) use them, so they live
here rather than in either (which made the two import each other)."""

from __future__ import annotations

import ipaddress
import urllib.request
from http.client import HTTPResponse
from urllib.parse import urlsplit

# Without proxy handlers: urlopen would otherwise honour ``http_proxy``.
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def require_loopback(host: str) -> str:
    """``host`` if it is a loopback address or ``localhost``; ValueError otherwise."""
    if host == "localhost":
        return host
    try:
        if ipaddress.ip_address(host).is_loopback:
            return host
    except ValueError:
        pass
    raise ValueError(f"{host!r} is not a loopback address: this suite never leaves loopback")


def check_url(url: str) -> str:
    """``url`` if it is http(s) to a loopback host; ValueError otherwise."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{url!r} is not an http URL")
    require_loopback(parts.hostname)
    return url


def open_url(url: str, data: bytes | None = None, timeout: float = 30.0) -> HTTPResponse:
    """urllib ``urlopen`` on a loopback URL, bypassing any proxy settings."""
    return _OPENER.open(check_url(url), data=data, timeout=timeout)
