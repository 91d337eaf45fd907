"""The dashboard after the first and the second run of a new history (what `bench-local` leaves):
the single points are drawn and the page says trends come later; a second run of unchanged code on
a noisy machine (-30 % to -37 %) is shown neutral and "not judged yet": one earlier run says
nothing of a series' noise, however narrow its own ± range (TIGHT's 1 %); only a step
change-point detection placed at that run is coloured. The other views say what they need: Compare
two runs, Scaling two runner sizes, Regressions enough runs per series. Real Chromium, real
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
    Pages,
    Watched,
    make_first_runs_history,
    run_cli,
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
def tall(pages: Pages) -> object:
    """A page tall enough that every card is in view (and drawn)."""
    page = pages.new(viewport={"width": 1280, "height": 2400})
    yield page
    assert page.errors == [], page.errors
    assert page.dialogs == [], page.dialogs


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


def test_second_run_is_not_judged_unless_detection_placed_a_step_there(
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
        if name == CONFIRMED:  # detection placed a step at this run: a change, a loss
            assert card["judged"] == "worse" and "worse" in card["cls"], card
            assert card["color"] == WORSE_CSS and "change-point detection" in card["title"]
        else:  # TIGHT too: a narrow ± range of its own says nothing of the series' noise
            assert card["judged"] == "unjudged", card
            assert "worse" not in card["cls"] and "better" not in card["cls"], card
            assert card["color"] == MUTED_CSS, card
            assert "not judged yet: fewer than 4 earlier runs" in card["title"], card
    verdict = p.locator("#verdict").inner_text()
    assert f"1 benchmark worse: {CONFIRMED}" in verdict, verdict
    assert f"{len(BENCHMARKS) - 1} not judged" in verdict, verdict
    charts = p.evaluate(POINTS, "all")
    assert all(c["show"] is True for c in charts)  # two points: drawn as points too
    p.set_viewport_size({"width": 1280, "height": 900})
    p.screenshot(path=str(shots / "second-run.png"))

    # the benchmark view judges the same way: its latest-result row and the tooltip
    p.goto((two_runs.site / "index.html").as_uri() + "#view=bench&b=" + TIGHT.replace("/", "%2F"))
    p.wait_for_function("window.benchtrack.main !== null")
    cell = p.locator("table.latest tbody td.chg")
    assert "not judged" in cell.inner_text() and "fewer than 4 earlier runs" in cell.inner_text()
    assert "worse" not in (cell.get_attribute("class") or "")
    p.focus("#chart")
    p.keyboard.press("End")
    key = FIRST_RUNNER[0]
    tip = p.locator(f"#tooltip tr[data-runner='{key}'] td.chg")
    assert tip.inner_text() == "not judged"
    p.goto(
        (two_runs.site / "index.html").as_uri() + "#view=bench&b=" + CONFIRMED.replace("/", "%2F")
    )
    p.wait_for_function("window.benchtrack.main !== null")
    p.focus("#chart")
    p.keyboard.press("End")
    assert "worse" in (tip.get_attribute("class") or "")


def test_first_run_views_say_what_they_need(one_run: Built, tall: Watched) -> None:
    p = tall.page
    base = (one_run.site / "index.html").as_uri()
    p.goto(base + "#view=compare")
    assert "Compare needs two runs; this history has 1" in p.locator("#compare-empty").inner_text()
    p.goto(base + "#view=scaling")
    text = p.locator("#scaling-empty").inner_text()
    assert "at least two runner sizes; this history has one (2 vCPU)" in text, text
    assert p.locator(".mini.scal").count() == 0  # no "ideal" line through one size
    p.goto(base + "#view=regressions")
    text = p.locator("#changes-empty").inner_text()
    assert "no bench/changes.json" in text, text
    # detect ran, and skipped every series: too short, not "level"
    history = one_run.history
    assert run_cli("detect", str(history), "--write").returncode == 0
    site = history.parent / "with-detect"
    assert run_site(str(history), "--out", str(site)).returncode == 0
    p.goto((site / "index.html").as_uri() + "#view=regressions")
    text = p.locator("#changes-empty").inner_text()
    assert "needs 8 runs of a series" in text and "this history has 1 run" in text, text
    assert "level" not in text
