"""The dashboard after the first and the second run of a new history (what `bench-local` leaves):
the single points are drawn and the page says trends come later; a second run of unchanged code on
a noisy machine (-30 % to -37 %, inside both runs' ± ranges) is shown neutral, while a change
beyond the ranges, or one change-point detection flagged, is coloured. Real Chromium, real
`benchtrack site`."""

from __future__ import annotations

from pathlib import Path

import pytest
from dashboard_fixture import (
    BENCHMARKS,
    CONFIRMED,
    FIRST_RUNNER,
    TIGHT,
    Built,
    Watched,
    context_options,
    make_first_runs_history,
    run_site,
    second_run_factor,
)

FIRST_RUN = "1 run so far: trends appear from the second run."
RUNNER_RGB = (0x00, 0x72, 0xB2)  # the first runner's colour (PALETTE[0] in js/util.js)
WORSE_CSS = "rgb(179, 66, 11)"  # --worse in style.css
MUTED_CSS = "rgb(85, 91, 97)"  # --muted in style.css


def built_runs(tmp_path_factory: pytest.TempPathFactory, runs: int) -> Built:
    history = make_first_runs_history(tmp_path_factory.mktemp(f"runs{runs}"), runs)
    site = tmp_path_factory.mktemp(f"runs{runs}-site") / "out"
    proc = run_site(str(history), "--out", str(site))
    assert proc.returncode == 0, proc.stderr
    return Built(history=history, site=site)


@pytest.fixture(scope="module")
def one_run(tmp_path_factory: pytest.TempPathFactory) -> Built:
    return built_runs(tmp_path_factory, 1)


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory: pytest.TempPathFactory) -> Built:
    return built_runs(tmp_path_factory, 2)


@pytest.fixture
def tall(browser: object) -> object:
    """A page tall enough that every card is in view (and drawn)."""
    context = browser.new_context(**context_options(viewport={"width": 1280, "height": 2400}))
    page = Watched(context.new_page())
    yield page
    assert page.errors == [], page.errors
    assert page.dialogs == [], page.dialogs
    context.close()


def open_overview(page: Watched, built: Built) -> None:
    page.page.goto((built.site / "index.html").as_uri())
    page.page.wait_for_function(
        f"document.querySelectorAll('.mini.drawn').length === {len(BENCHMARKS)}"
    )


# What each drawn chart shows at its first data point: whether uPlot was told to draw points, where
# the point lands (canvas pixels) against the plot box, and the canvas pixel there.
POINTS = """(hosts) => [...benchtrack.live].filter(([h]) => hosts === 'all' || h.id === hosts)
  .map(([h, u]) => {
    const j = u.data[1].findIndex((v) => v != null);
    const x = u.valToPos(u.data[0][j], 'x', true), y = u.valToPos(u.data[1][j], 'y', true);
    const px = u.ctx.getImageData(Math.round(x), Math.round(y), 1, 1).data;
    const show = u.series[1].points.show;  // uPlot keeps a function
    return { bench: h.dataset.bench, show: typeof show === 'function' ? show(u, 1) : show, x,
             left: u.bbox.left, right: u.bbox.left + u.bbox.width,
             rgb: [px[0], px[1], px[2]], alpha: px[3] };
  })"""


def assert_point_drawn(chart: dict) -> None:
    assert chart["show"] is True, chart
    assert chart["left"] < chart["x"] < chart["right"], chart  # inside the plot, not at an edge
    assert chart["alpha"] == 255 and all(
        abs(a - b) <= 8 for a, b in zip(chart["rgb"], RUNNER_RGB, strict=True)
    ), chart


def test_first_run_draws_its_points_and_says_trends_come_later(
    one_run: Built, tall: Watched, shots: Path
) -> None:
    open_overview(tall, one_run)
    p = tall.page
    assert p.locator("#first-run").inner_text() == FIRST_RUN
    summary = p.locator("#summary").inner_text()
    assert f"{len(BENCHMARKS)} of {len(BENCHMARKS)} benchmarks · 1 run ·" in summary, summary
    meta = p.locator("#meta").inner_text()
    assert meta.endswith(f"{len(BENCHMARKS)} benchmarks · 1 run"), meta
    assert "commits" not in summary + meta
    charts = p.evaluate(POINTS, "all")
    assert len(charts) == len(BENCHMARKS)
    for chart in charts:
        assert_point_drawn(chart)
    assert p.locator(".last .chg").count() == 0  # nothing to compare with yet
    p.set_viewport_size({"width": 1280, "height": 900})
    p.screenshot(path=str(shots / "first-run.png"))

    p.click(f"a.card[data-name='{TIGHT}']")
    p.wait_for_function("window.benchtrack.main !== null")
    assert p.locator("#first-run").inner_text() == FIRST_RUN
    assert p.locator(".legend li").inner_text().endswith("(2 vCPU, 1 point)")
    (chart,) = p.evaluate(POINTS, "chart")
    assert_point_drawn(chart)
    assert "first run" in p.locator("table.latest tbody td.chg").inner_text()
    p.screenshot(path=str(shots / "first-run-benchmark.png"))


def changes_on_cards(page: Watched) -> dict[str, dict]:
    return {
        row["bench"]: row
        for row in page.page.evaluate(
            """[...document.querySelectorAll('a.card')].map((c) => {
                 const s = c.querySelector('.last .chg');
                 return { bench: c.dataset.name, text: s.textContent, cls: s.className,
                          judged: s.dataset.judged, title: s.title,
                          color: getComputedStyle(s).color };
               })"""
        )
    }


def test_second_run_of_unchanged_code_is_neutral_unless_beyond_the_spread_or_flagged(
    two_runs: Built, tall: Watched, shots: Path
) -> None:
    open_overview(tall, two_runs)
    p = tall.page
    assert p.locator("#first-run").count() == 0
    assert p.locator("#meta").inner_text().endswith("· 2 runs")
    cards = changes_on_cards(tall)
    assert set(cards) == set(BENCHMARKS)
    for name, card in cards.items():
        change = second_run_factor(name) - 1
        assert 0.30 <= abs(change) <= 0.37
        assert card["text"] == ("+" if change > 0 else "−") + f"{abs(change) * 100:.0f} %", card
        if name == TIGHT:  # narrow ranges: a real change, a loss
            assert card["judged"] == "beyond" and "worse" in card["cls"], card
            assert card["color"] == WORSE_CSS and "beyond the runs' spread" in card["title"]
        elif name == CONFIRMED:  # inside its ranges, but detection flagged the step
            assert card["judged"] == "confirmed" and "worse" in card["cls"], card
            assert card["color"] == WORSE_CSS and "change-point detection" in card["title"]
        else:  # the runs' own noise: neutral, and the tooltip says why
            assert card["judged"] == "noise", card
            assert "worse" not in card["cls"] and "better" not in card["cls"], card
            assert card["color"] == MUTED_CSS, card
            assert "within the runs' spread (±30 % before, ±30 % after)" in card["title"], card
    charts = p.evaluate(POINTS, "all")
    assert all(c["show"] is True for c in charts)  # two points: drawn as points too
    p.set_viewport_size({"width": 1280, "height": 900})
    p.screenshot(path=str(shots / "second-run.png"))

    # the benchmark view judges the same way: its latest-result row and the tooltip
    noisy = "python/sleep/taskgroup"
    p.goto((two_runs.site / "index.html").as_uri() + "#view=bench&b=" + noisy.replace("/", "%2F"))
    p.wait_for_function("window.benchtrack.main !== null")
    cell = p.locator("table.latest tbody td.chg")
    assert "within the runs' spread" in cell.inner_text()
    assert "worse" not in (cell.get_attribute("class") or "")
    p.focus("#chart")
    p.keyboard.press("End")
    key = FIRST_RUNNER[0]
    tip = p.locator(f"#tooltip tr[data-runner='{key}'] td.chg")
    assert tip.inner_text().endswith("vs prev (within spread)")
    assert "worse" not in (tip.get_attribute("class") or "")
    p.goto((two_runs.site / "index.html").as_uri() + "#view=bench&b=" + TIGHT.replace("/", "%2F"))
    p.wait_for_function("window.benchtrack.main !== null")
    p.focus("#chart")
    p.keyboard.press("End")
    assert "worse" in (tip.get_attribute("class") or "")
