"""Fixtures of the dashboard's browser tests: a small history made here, the site built from it by
the real `benchtrack site` CLI, and Debian's Chromium driven by Playwright (headless)."""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from dashboard_fixture import (
    CHROMIUM,
    CHROMIUM_ARGS,
    PHONE,
    SHOTS,
    Built,
    Pages,
    Simulated,
    Watched,
    build_simulated,
    context_options,
    make_history,
    run_site,
)


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    history = make_history(tmp_path_factory.mktemp("history"))
    site = tmp_path_factory.mktemp("site") / "out"
    proc = run_site(str(history), "--out", str(site))
    assert proc.returncode == 0, proc.stderr
    return Built(history=history, site=site)


@pytest.fixture(scope="session")
def simulations(tmp_path_factory: pytest.TempPathFactory):
    """`simulations(scenario)`: the generator's history of that scenario, built once a session."""
    made: dict[str, Simulated] = {}

    def get(scenario: str) -> Simulated:
        if scenario not in made:
            made[scenario] = build_simulated(tmp_path_factory.mktemp(scenario), scenario)
        return made[scenario]

    return get


@pytest.fixture(scope="session")
def http_url(built: Built) -> Iterator[str]:
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

    handler = functools.partial(Quiet, directory=str(built.site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/index.html"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} not found: install Debian's chromium (apt-get install chromium)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


# One browser context of each kind for the session, a fresh page in it for each test: a context
# of its own costs Chromium ~1 CPU-second more than a page in a shared one. What a page may leave
# behind for the next test, the dismissals in local storage, is cleared when it closes.


@pytest.fixture(scope="session")
def desk_context(browser: object) -> Iterator[object]:
    context = browser.new_context(**context_options())
    yield context
    context.close()


@pytest.fixture(scope="session")
def phone_context(browser: object) -> Iterator[object]:
    context = browser.new_context(**context_options(**PHONE))
    yield context
    context.close()


@pytest.fixture
def pages(desk_context: object, phone_context: object) -> Iterator[Pages]:
    opened = Pages(desk_context, phone_context)
    yield opened
    opened.close()


@pytest.fixture
def page(pages: Pages) -> Watched:
    return pages.new()


@pytest.fixture(scope="session")
def shots() -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    return SHOTS
