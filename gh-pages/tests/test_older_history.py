""" "Load older history" in a real browser: the fixture history pruned by the real
`benchtrack prune-history` (every day of the last 3 days, then one a week), the site built by the
real `benchtrack site`, and the control that loads the archived points and extends the charts."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from dashboard_fixture import (
    N_COMMITS,
    RUNNERS,
    STEP_AT,
    Built,
    Watched,
    commit_id,
    make_history,
    run_cli,
    run_site,
    value_of,
)

BENCH = "rust/walk/rayon"
# The fixture's runs are daily from Sunday 2026-11-01, 11:00. Within 3 days of the newest
# (11-12): runs 8-11; older, the last of each ISO week stays: run 0 (11-01, a Sunday) and run 7
# (Sunday 11-08); runs 1-6 move to archive.js.
RECENT = [0, 7, 8, 9, 10, 11]
ARCHIVED = [1, 2, 3, 4, 5, 6]


@pytest.fixture(scope="module")
def pruned(tmp_path_factory: pytest.TempPathFactory) -> Built:
    root = tmp_path_factory.mktemp("older")
    history = make_history(root / "history")
    config = root / "benchtrack.toml"
    config.write_text('[history.retention]\nkeep_all_days = 3\nkeep_one_per = "week"\n')
    proc = run_cli("prune-history", str(history), "--config", str(config), "--json")
    assert proc.returncode == 0, proc.stderr
    moved = orjson.loads(proc.stdout)["runners"]
    assert {r["runner"] for r in moved} == set(RUNNERS)
    site = root / "site"
    proc = run_site(str(history), "--out", str(site))
    assert proc.returncode == 0, proc.stderr
    return Built(history=history, site=site)


def js(page: Watched, expression: str) -> object:
    return page.page.evaluate(expression)


def index_of(page: Watched, i: int) -> int:
    return js(page, f"benchtrack.index.commits.id.indexOf({commit_id(i)!r})")


def point(page: Watched, key: str, i: int) -> float | None:
    """The value the page holds for BENCH on runner `key` at fixture commit `i`."""
    return js(
        page,
        f"(() => {{ const s = benchtrack.series.get({BENCH!r})[{key!r}]; const c = "
        f"benchtrack.index.commits.id.indexOf({commit_id(i)!r}); const j = s.i.indexOf(c); "
        "return j < 0 ? null : s.v[j]; })()",
    )


def test_the_control_loads_older_points_and_extends_the_charts(
    pruned: Built, page: Watched
) -> None:
    p = page.page
    p.goto((pruned.site / "index.html").as_uri() + "#view=bench&b=" + BENCH.replace("/", "%2F"))
    p.wait_for_function("window.benchtrack && window.benchtrack.main !== null")
    # the recent history: data.js alone
    assert js(page, "benchtrack.index.commits.id") == [commit_id(i) for i in RECENT]
    assert js(page, "benchtrack.main.data[0].length") == len(RECENT)
    first_x = js(page, "benchtrack.main.scales.x.min")
    button = p.locator("#load-older")
    assert button.inner_text() == "Load older history"
    note = p.locator("#older .older-note").inner_text()
    assert f"{len(ARCHIVED)} older runs since 2026-11-01" in note

    button.click()
    p.wait_for_function("document.querySelector('#older').textContent.includes('shown')")
    p.wait_for_function(f"window.benchtrack.main && benchtrack.main.data[0].length === {N_COMMITS}")
    assert p.locator("#load-older").count() == 0
    # the whole history, in order, each archived point with its value (6 significant digits)
    assert js(page, "benchtrack.index.commits.id") == [commit_id(i) for i in range(N_COMMITS)]
    for key, cpus in RUNNERS.items():
        for i in ARCHIVED:
            if cpus == 4 and i < 3:  # the 4-vCPU runner joined at the 4th commit
                assert point(page, key, i) is None
            else:
                assert point(page, key, i) == pytest.approx(value_of(BENCH, cpus, i), rel=1e-5)
    assert js(page, "benchtrack.main.scales.x.min") <= first_x
    # every commit index the page held before still names the same commit
    bench = (
        "benchtrack.index.suites.flatMap(s => s.groups).flatMap(g => g.benches)"
        f".find(b => b.name === {BENCH!r})"
    )
    for key in RUNNERS:
        assert js(page, f"benchtrack.index.commits.id[{bench}.last[{key!r}][0]]") == commit_id(
            N_COMMITS - 1
        )
    change = js(page, f"benchtrack.index.changes.find(c => c.series === {BENCH!r})")
    assert change["i"] == index_of(page, STEP_AT)
    assert js(page, "document.querySelectorAll('#chart canvas').length") >= 1

    # the overview's small multiples draw the whole history too
    p.evaluate("location.hash = '#view=overview'")
    p.wait_for_function(f"document.querySelector('.mini[data-bench=\"{BENCH}\"].drawn')")
    lengths = js(page, "[...benchtrack.live.values()].map(u => u.data[0].length)")
    assert lengths and max(lengths) == N_COMMITS
    assert page.errors == [], page.errors


def test_no_archive_no_control(built: Built, page: Watched) -> None:
    page.page.goto((built.site / "index.html").as_uri())
    page.page.wait_for_selector("#main[data-view]")
    assert page.page.locator("#older").count() == 0
    assert page.page.evaluate("benchtrack.index.archive") is None
    assert not (built.site / "dashboard/data/archive").exists()


def test_a_missing_archive_file_is_an_error_on_the_page(
    pruned: Built, page: Watched, tmp_path: Path
) -> None:
    import shutil

    site = tmp_path / "site"
    shutil.copytree(pruned.site, site)
    (site / "dashboard/data/archive/index.js").unlink()
    page.page.goto((site / "index.html").as_uri())
    page.page.wait_for_selector("#main[data-view]")
    page.page.locator("#load-older").click()
    page.page.wait_for_selector("#load-error")
    assert "could not load" in page.page.locator("#load-error").inner_text()
    assert page.page.locator("#load-older").is_enabled()  # it can be tried again
    assert page.page.evaluate("benchtrack.index.commits.id.length") == len(RECENT)
