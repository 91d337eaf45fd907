"""The dashboard at 390x844 (a phone: touch, 2x pixels) on the generator's realistic history
(the one test_views.py draws), in Chromium: no view scrolls sideways, the header is compact, the
benchmark view's first chart starts on the first screen and its verdict cells are inside the
viewport, Regressions cards keep their names clear of the change figure, the Overview's groups
beyond the first are a summary line each until opened, and the search folds behind a button.
gh-pages/tests/perf_phone.py prints the same figures."""

from __future__ import annotations

from pathlib import Path

import pytest
from dashboard_fixture import PHONE, Simulated, Watched, context_options

SCREEN = PHONE["viewport"]["height"]
HEADER_MAX = 120  # px: the header's height on every view (it was 290 before the phone layout)

VIEWS = (
    ("view=overview", ".mini.drawn"),
    ("view=bench&b=python%2Ffileio_cpu%2Fsequential", "#chart canvas"),
    ("view=scaling", ".mini.scal.drawn"),
    ("view=compare", "#compare-table tr[data-bench]"),
    ("view=regressions", "#changes-table tr[data-series]"),
)

# a Regressions card whose name's text boxes meet its change figure's box (as perf_phone.py)
OVERLAPS = """() => [...document.querySelectorAll('#changes-table tbody tr')].filter((tr) => {
  const f = tr.querySelector('td.chg').getBoundingClientRect();
  const range = document.createRange();
  range.selectNodeContents(tr.querySelector('th[scope="row"]'));
  return [...range.getClientRects()].some((r) => r.width > 0
    && r.left < f.right && f.left < r.right && r.top < f.bottom && f.top < r.bottom);
}).map((tr) => tr.dataset.series)"""


@pytest.fixture(scope="module")
def sim(simulations) -> Simulated:
    return simulations("counted")


@pytest.fixture
def phone(browser: object):
    context = browser.new_context(**context_options(**PHONE))
    page = Watched(context.new_page())
    yield page
    assert page.errors == [], page.errors
    context.close()


def url(site: Path, fragment: str) -> str:
    return f"{(site / 'index.html').as_uri()}#{fragment}"


def test_no_view_scrolls_sideways_and_the_header_is_compact(
    sim: Simulated, phone: Watched, shots: Path
) -> None:
    p = phone.page
    for fragment, ready in VIEWS:
        p.goto("about:blank")
        p.goto(url(sim.site, fragment))
        p.wait_for_selector(ready)
        width = p.evaluate(
            "[document.scrollingElement.scrollWidth, document.scrollingElement.clientWidth]"
        )
        assert width[0] <= width[1], (fragment, width)
        header = p.locator("header.top").bounding_box()["height"]
        assert header <= HEADER_MAX, (fragment, header)
        p.screenshot(path=str(shots / f"phone-390-{fragment.split('=')[1].split('&')[0]}.png"))


def test_benchmark_view_chart_on_the_first_screen_and_its_verdict_inside(
    sim: Simulated, phone: Watched
) -> None:
    p = phone.page
    p.goto(url(sim.site, VIEWS[1][0]))
    p.wait_for_function("window.benchtrack.main !== null")
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


def test_regressions_cards_keep_names_clear_of_the_figure(sim: Simulated, phone: Watched) -> None:
    p = phone.page
    p.goto(url(sim.site, "view=regressions&show=all"))
    p.wait_for_selector("#changes-table tr[data-series]")
    assert p.evaluate(OVERLAPS) == []


def test_overview_groups_fold_to_a_line_and_the_search_behind_a_button(
    sim: Simulated, phone: Watched
) -> None:
    p = phone.page
    p.goto(url(sim.site, "view=overview"))
    p.wait_for_selector(".mini.drawn")
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
