"""The dashboard at 390x844 (a phone: touch, 2x pixels) on the generator's realistic history
(the one test_views.py draws), in Chromium: no view scrolls sideways, the header is compact, the
benchmark view's first chart starts on the first screen and its verdict cells are inside the
viewport, Regressions cards keep their names clear of the change figure, the Overview's groups
beyond the first are a summary line each until opened, and the search folds behind a button.
gh-pages/tests/perf_phone.py prints the same figures."""

from __future__ import annotations

from pathlib import Path

import pytest
from dashboard_fixture import NAME_UNDER_FIGURE, PHONE, VIEWS, Pages, Simulated, Watched

SCREEN = PHONE["viewport"]["height"]
HEADER_MAX = 120  # px: the header's height on every view, a seventh of the screen


@pytest.fixture(scope="module")
def sim(simulations) -> Simulated:
    return simulations("counted")


@pytest.fixture
def phone(pages: Pages):
    page = pages.new("phone")
    yield page
    assert page.errors == [], page.errors


def show(phone: Watched, sim: Simulated, fragment: str, ready: str):
    """The page at that view of the site, once `ready` (a selector or a condition) holds."""
    p = phone.page
    p.goto("about:blank")
    p.goto(f"{(sim.site / 'index.html').as_uri()}#{fragment}")
    if ready.startswith("window."):
        p.wait_for_function(ready)
    else:
        p.wait_for_selector(ready)
    return p


def test_no_view_scrolls_sideways_the_header_is_compact_names_clear_figures(
    sim: Simulated, phone: Watched, shots: Path
) -> None:
    for fragment, ready in VIEWS:
        p = show(phone, sim, fragment, ready)
        width = p.evaluate(
            "[document.scrollingElement.scrollWidth, document.scrollingElement.clientWidth]"
        )
        assert width[0] <= width[1], (fragment, width)
        header = p.locator("header.top").bounding_box()["height"]
        assert header <= HEADER_MAX, (fragment, header)
        if fragment == "view=regressions":  # each card's name clear of its change figure
            assert p.evaluate(NAME_UNDER_FIGURE) == []
        p.screenshot(path=str(shots / f"phone-390-{fragment.split('=')[1].split('&')[0]}.png"))


def test_benchmark_view_chart_on_the_first_screen_and_its_verdict_inside(
    sim: Simulated, phone: Watched
) -> None:
    p = show(phone, sim, VIEWS[1][0], "window.benchtrack.main !== null")
    assert (
        p.evaluate("document.getElementById('chart').getBoundingClientRect().top + scrollY")
        < SCREEN
    )
    cells = p.locator("table.latest tbody td.chg")
    assert cells.count() == 3  # one per runner size
    for k in range(cells.count()):
        box = cells.nth(k).bounding_box()
        assert box["width"] > 0 and box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    label = "getComputedStyle(document.querySelector('table.latest td.chg'), '::before').content"
    assert p.evaluate(label) == '"Change vs expected: "'


def test_overview_groups_fold_to_a_line_and_the_search_behind_a_button(
    sim: Simulated, phone: Watched
) -> None:
    p = show(phone, sim, *VIEWS[0])
    groups = p.locator("details.group")
    assert groups.count() >= 10
    assert p.locator("details.group[open]").count() == 1  # the first
    closed = groups.nth(3)
    assert closed.locator(".mini").first.is_hidden()
    closed.locator("summary").click()
    closed.locator(".mini.drawn").first.wait_for()
    # the search folds behind the header's button; a name filter opens every group it matches
    search = p.locator("#search")
    assert search.is_hidden()
    toggle = p.locator("#filter-toggle")
    toggle.click()
    assert toggle.get_attribute("aria-expanded") == "true" and search.is_visible()
    search.fill("sequential")
    p.wait_for_function("location.hash.includes('q=sequential')")
    assert p.locator("details.group:not([open])").count() == 0
    assert toggle.locator(".filter-on").is_visible()  # the button says a filter is on
