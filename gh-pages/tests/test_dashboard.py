"""The dashboard in a real browser (Debian's Chromium, headless, via Playwright), on a fixture
history built by these tests and turned into a site by the real `benchtrack site` CLI."""

from __future__ import annotations

import hashlib
import math
import shutil
import statistics
from pathlib import Path
from urllib.parse import parse_qs

import orjson
from dashboard_fixture import (
    BENCHMARKS,
    FOUR_CPU_FROM,
    N_COMMITS,
    REPO,
    RUNNERS,
    STEP_AT,
    XSS,
    XSS_AT,
    Built,
    Pages,
    Watched,
    commit_id,
    context_options,
    make_history,
    range_of,
    run_cli_process,
    run_site,
    value_of,
)

LAST = N_COMMITS - 1


def js_fmt(v: float, digits: int = 3) -> str:
    """The dashboard's number format (fmt in js/util.js) for the values used here."""
    for factor, suffix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(v) >= factor:
            return _trim(f"{v / factor:.{digits}g}") + " " + suffix
    return _trim(f"{v:.{digits}g}")


def _trim(text: str) -> str:
    return text.rstrip("0").rstrip(".") if "." in text else text


def js_pct(x: float) -> str:
    body = f"{abs(x) * 100:.{1 if abs(x) < 0.1 else 0}f}"
    return ("+" if x > 0 else "−" if x < 0 else "±") + body + " %"


def url_of(built: Built, fragment: str = "") -> str:
    return (built.site / "index.html").as_uri() + (f"#{fragment}" if fragment else "")


def open_page(page: Watched, url: str) -> None:
    page.page.goto(url)
    page.page.wait_for_selector("#main[data-view]")


def scroll_through(page: Watched) -> None:
    p = page.page
    height = p.evaluate("document.documentElement.scrollHeight")
    for y in range(0, height + 900, 600):
        p.evaluate(f"window.scrollTo(0, {y})")
        p.wait_for_timeout(60)


def assert_clean(page: Watched) -> None:
    assert page.errors == [], page.errors
    assert page.dialogs == [], page.dialogs


# --------------------------------------------------------------------------------------------
# The CLI (no browser)


def test_site_layout_and_data_js_copied_byte_for_byte(built: Built) -> None:
    out = built.site
    for rel in (
        "index.html",
        *(
            f"dashboard/js/{js.name}"
            for js in sorted((REPO / "tracker/src/benchtrack/dashboard/js").glob("*.js"))
        ),
        "dashboard/style.css",
        "dashboard/vendor/uPlot.iife.min.js",
        "dashboard/vendor/uPlot.min.css",
        "dashboard/vendor/uPlot.LICENSE.txt",
        "dashboard/data/index.js",
        "bench/changes.json",
    ):
        assert (out / rel).is_file(), rel
    for key in RUNNERS:
        src = (built.history / "bench" / key / "data.js").read_bytes()
        assert (out / "bench" / key / "data.js").read_bytes() == src
    groups = sorted(p.name for p in (out / "dashboard/data/g").glob("*.js"))
    assert len(groups) == len({tuple(n.split("/")[:2]) for n in BENCHMARKS})


def test_site_into_the_history_itself_never_rewrites_data_js(tmp_path: Path) -> None:
    history = make_history(tmp_path / "h")
    before = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in history.rglob("data.js")}
    mtimes = {p: p.stat().st_mtime_ns for p in before}
    proc = run_site("--history", str(history))  # --out defaults to the history directory
    assert proc.returncode == 0, proc.stderr
    assert (history / "index.html").is_file()
    assert (history / "dashboard/data/index.js").is_file()
    for p, digest in before.items():
        assert hashlib.sha256(p.read_bytes()).hexdigest() == digest
        assert p.stat().st_mtime_ns == mtimes[p]


def test_site_bad_history_is_exit_2_with_the_file_named(tmp_path: Path) -> None:
    history = make_history(tmp_path / "h")
    broken = history / "bench/local-2cpu/data.js"
    broken.write_bytes(broken.read_bytes()[:500])
    # the installed entry point in a process of its own: its exit code, its stderr
    proc = run_cli_process("site", str(history), "--out", str(tmp_path / "out"))
    assert proc.returncode == 2
    assert "local-2cpu/data.js" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "out" / "index.html").exists()


def test_index_is_compact_and_commits_deduplicated(built: Built) -> None:
    text = (built.site / "dashboard/data/index.js").read_bytes()
    prefix = b"window.BENCHTRACK_INDEX="
    assert text.startswith(prefix)
    index = orjson.loads(text[len(prefix) :].rstrip().rstrip(b";"))
    assert index["commits"]["id"] == [commit_id(i) for i in range(N_COMMITS)]
    assert [r["cpus"] for r in index["runners"]] == sorted(RUNNERS.values())
    assert index["changes"][0]["series"] == "rust/walk/rayon"
    overview = len(text) + sum(
        p.stat().st_size for p in (built.site / "dashboard/data/g").iterdir()
    )
    raw = sum(p.stat().st_size for p in built.history.rglob("data.js"))
    assert overview * 5 <= raw, (overview, raw)


# --------------------------------------------------------------------------------------------
# In the browser


def test_overview_from_file_counts_charts_and_lines(built: Built, page: Watched) -> None:
    open_page(page, url_of(built))
    p = page.page
    assert p.locator("a.card").count() == len(BENCHMARKS)
    assert p.locator("section.suite > h2").all_text_contents() == ["rust", "python", "perl"]
    assert p.locator("#runners input[type=checkbox]").count() == len(RUNNERS)
    meta = p.locator("#meta").inner_text()
    assert "github.com/example/benchtrack" in meta and "Last update 2026-11-" in meta
    scroll_through(page)
    p.wait_for_function("document.querySelector('.mini[data-bench=\\'perl/rss/async\\'].drawn')")
    drawn = p.evaluate(
        "[...document.querySelectorAll('.mini')].map(m => [m.dataset.bench,"
        " benchtrack.live.has(m), m.dataset.lines || null, m.querySelectorAll('canvas').length])"
    )
    assert any(is_live for _, is_live, _, _ in drawn)
    for name, is_live, lines, canvases in drawn:
        # drawn in view with one line per runner; released (no canvas) when scrolled away
        assert canvases == (1 if is_live else 0), name
        if is_live:
            assert lines == str(len(RUNNERS)), name
    assert_clean(page)


def test_every_chart_draws_with_a_line_per_runner(built: Built, pages: Pages) -> None:
    page = pages.new(viewport={"width": 1280, "height": 4000})
    open_page(page, url_of(built))
    page.page.wait_for_function(
        f"document.querySelectorAll('.mini.drawn').length === {len(BENCHMARKS)}"
    )
    lines = page.page.evaluate("[...document.querySelectorAll('.mini')].map(m => m.dataset.lines)")
    assert lines == [str(len(RUNNERS))] * len(BENCHMARKS)
    assert_clean(page)


def test_benchmark_view_lines_tooltip_and_markers(built: Built, page: Watched, shots: Path) -> None:
    open_page(page, url_of(built, "view=bench&b=rust%2Fwalk%2Frayon"))
    p = page.page
    p.wait_for_function("window.benchtrack.main !== null")
    assert p.locator(".legend li").count() == len(RUNNERS)
    assert p.evaluate("benchtrack.main.series.length") == 1 + len(RUNNERS)
    # the 4-vCPU line starts later: its data has nulls before it joined
    assert p.evaluate("benchtrack.main.data[3].filter(v => v !== null).length") == (
        N_COMMITS - FOUR_CPU_FROM
    )
    # hover the point of commit 7 (by its position on the time axis)
    i = 7
    x = p.evaluate(f"benchtrack.main.valToPos(benchtrack.index.commits.t[{i}], 'x')")
    box = p.locator("#chart .u-over").bounding_box()
    p.mouse.move(box["x"] + x, box["y"] + box["height"] / 2)
    tip = p.locator("#tooltip")
    tip.wait_for(state="visible")
    text = tip.inner_text()
    assert commit_id(i)[:7] in text
    assert f"Commit number {i}: tune the walkers" in text
    assert "by Dev One" in text
    assert "2026-11-08 10:00 UTC" in text
    assert tip.locator(".tt-unit").inner_text() == "directories/s"
    for key, cpus in RUNNERS.items():
        v, r = value_of("rust/walk/rayon", cpus, i), range_of("rust/walk/rayon", cpus, i)
        # judged against the level its earlier runs expect (the median of their logs)
        earlier = [value_of("rust/walk/rayon", cpus, k) for k in range(i) if cpus < 4 or k >= 3]
        center = math.exp(statistics.median(math.log(x) for x in earlier))
        row = tip.locator(f"tr[data-runner='{key}']").inner_text()
        assert f"{js_fmt(v, 4)} ± {js_fmt(r, 3)}" in row, row
        assert f"{js_pct(v / center - 1)} vs expected (inside)" in row, row
    p.screenshot(path=str(shots / "benchmark.png"), full_page=True)
    # the flagged change is listed under the chart
    marks = p.locator(".marks li").all_inner_texts()
    assert len(marks) == 1 and commit_id(STEP_AT)[:7] in marks[0] and "regression" in marks[0]
    assert "−20 %" in marks[0]
    # the click target is the commit (a new tab is opened with its URL)
    p.context.route("https://github.com/**", lambda route: route.fulfill(body="commit page"))
    with p.context.expect_page() as popup:
        p.mouse.click(box["x"] + x, box["y"] + box["height"] / 2)
    popup.value.wait_for_load_state()
    assert popup.value.url == f"https://github.com/example/benchtrack/commit/{commit_id(i)}"
    assert_clean(page)


def test_keyboard_steps_through_points(built: Built, page: Watched) -> None:
    open_page(page, url_of(built, "view=bench&b=python%2Fsleep%2Fgather"))
    p = page.page
    p.wait_for_function("window.benchtrack.main !== null")
    p.focus("#chart")
    p.keyboard.press("End")
    assert commit_id(LAST)[:7] in p.locator("#tooltip").inner_text()
    p.keyboard.press("ArrowLeft")
    p.keyboard.press("ArrowLeft")
    assert commit_id(LAST - 2)[:7] in p.locator("#tooltip").inner_text()
    assert commit_id(LAST - 2)[:7] in p.locator("#announce").inner_text()  # read to screen readers
    p.keyboard.press("+")
    lo, hi = p.evaluate("[benchtrack.main.scales.x.min, benchtrack.main.scales.x.max]")
    assert hi - lo < (N_COMMITS - 1) * 86400 * 0.75
    p.keyboard.press("0")
    lo, hi = p.evaluate("[benchtrack.main.scales.x.min, benchtrack.main.scales.x.max]")
    assert hi - lo >= (N_COMMITS - 1) * 86400
    assert_clean(page)


def test_commit_message_with_html_is_text_and_runs_nothing(built: Built, page: Watched) -> None:
    open_page(page, url_of(built, "view=bench&b=rust%2Fwalk%2Ftokio_joinset"))
    p = page.page
    p.wait_for_function("window.benchtrack.main !== null")
    p.focus("#chart")
    p.keyboard.press("End")
    for _ in range(LAST - XSS_AT):
        p.keyboard.press("ArrowLeft")
    tip = p.locator("#tooltip")
    assert tip.locator(".tt-msg").inner_text() == XSS
    assert tip.locator(".tt-author").inner_text() == "by <b>Mallory</b>"
    assert p.evaluate("document.querySelectorAll('img, b').length") == 0
    # the same message on the compare view
    open_page(
        page, url_of(built, f"view=compare&base={commit_id(XSS_AT - 1)}&head={commit_id(XSS_AT)}")
    )
    assert p.locator(".side .msg").nth(1).inner_text() == XSS
    assert p.evaluate("document.querySelectorAll('img, b').length") == 0
    p.wait_for_timeout(200)
    assert_clean(page)


def test_search_filters_and_is_kept_in_the_url(built: Built, page: Watched) -> None:
    open_page(page, url_of(built))
    p = page.page
    p.fill("#search", "walk")
    p.wait_for_function("document.querySelectorAll('a.card').length === 2")
    names = p.locator("a.card").evaluate_all("cs => cs.map(c => c.dataset.name)")
    assert sorted(names) == ["rust/walk/rayon", "rust/walk/tokio_joinset"]
    assert "q=walk" in p.url
    assert "2 of 7 benchmarks" in p.locator("#summary").inner_text()
    p.fill("#search", "sleep task")  # every word must match
    p.wait_for_function("document.querySelectorAll('a.card').length === 1")
    assert p.locator("a.card").get_attribute("data-name") == "python/sleep/taskgroup"
    p.fill("#search", "no-such-benchmark")
    p.wait_for_function("document.querySelectorAll('a.card').length === 0")
    assert "No benchmark matches" in p.locator("main").inner_text()
    p.fill("#search", "")
    p.wait_for_function(f"document.querySelectorAll('a.card').length === {len(BENCHMARKS)}")
    assert_clean(page)


def test_permalink_round_trip(built: Built, browser: object, page: Watched) -> None:
    open_page(page, url_of(built, "view=bench&b=rust%2Fwalk%2Frayon"))
    p = page.page
    p.wait_for_function("window.benchtrack.main !== null")
    p.check("#log")
    p.wait_for_function("window.benchtrack.main && benchtrack.main.scales.y.distr === 3")
    p.check("#norm")
    p.uncheck("#runners input[value='local-1cpu']")
    p.wait_for_function("window.benchtrack.main && benchtrack.main.series.length === 3")
    p.click("#zoom-in")
    p.click("#pan-left")
    lo, hi = p.evaluate("[benchtrack.main.scales.x.min, benchtrack.main.scales.x.max]")
    link = p.url
    params = parse_qs(link.split("#", 1)[1])
    assert params["view"] == ["bench"] and params["b"] == ["rust/walk/rayon"]
    assert params["log"] == ["1"] and params["norm"] == ["1"]
    assert params["r"] == ["local-2cpu,local-4cpu"]
    assert abs(float(params["from"][0]) - lo) <= 1 and abs(float(params["to"][0]) - hi) <= 1

    context = browser.new_context(**context_options())
    other = Watched(context.new_page())
    open_page(other, link)
    q = other.page
    q.wait_for_function("window.benchtrack.main !== null")
    assert q.is_checked("#log") and q.is_checked("#norm")
    assert not q.is_checked("#runners input[value='local-1cpu']")
    assert q.is_checked("#runners input[value='local-2cpu']")
    assert q.evaluate("benchtrack.main.series.map(s => s.label).slice(1)") == [
        "local-2cpu",
        "local-4cpu",
    ]
    assert q.evaluate("benchtrack.main.scales.y.distr") == 3
    lo2, hi2 = q.evaluate("[benchtrack.main.scales.x.min, benchtrack.main.scales.x.max]")
    assert abs(lo2 - lo) <= 1 and abs(hi2 - hi) <= 1
    # normalised: each line divided by the median of its first runs (one run is as noisy as any)
    firsts = q.evaluate(
        "benchtrack.main.data.slice(1).map(ys => ys.filter(v => v !== null).slice(0, 10)"
        ".sort((a, b) => a - b))"
    )
    assert [statistics.median(ys) for ys in firsts] == [1, 1]
    assert q.url == link
    assert_clean(other)
    context.close()
    assert_clean(page)


def test_scaling_view_values_equal_the_data(built: Built, pages: Pages, shots: Path) -> None:
    page = pages.new(viewport={"width": 1280, "height": 3000})
    open_page(page, url_of(built, "view=scaling"))
    p = page.page
    p.wait_for_function(
        "document.querySelectorAll('table.scaling tbody tr').length === "
        f"{len(BENCHMARKS) * len(RUNNERS)}"
    )
    assert p.locator("#scaling-commit").input_value() == commit_id(LAST)
    rows = p.evaluate(
        "[...document.querySelectorAll('table.scaling')].flatMap(t => [...t.tBodies[0].rows]"
        ".map(r => [t.dataset.bench, r.dataset.runner, r.querySelector('.cpus').textContent,"
        " r.querySelector('.value').dataset.value]))"
    )
    assert len(rows) == len(BENCHMARKS) * len(RUNNERS)
    for name, key, cpus, value in rows:
        assert int(cpus) == RUNNERS[key]
        # the index keeps 6 significant digits of each value
        assert float(value) == float(f"{value_of(name, RUNNERS[key], LAST):.6g}"), name
    # ideal linear line: the smallest runner's value times the vCPU ratio
    p.wait_for_function("document.querySelectorAll('.mini.scal.drawn').length >= 1")
    host = p.locator(".mini.scal.drawn").first
    name = host.get_attribute("data-bench")
    ideal = p.evaluate(
        "n => { for (const [h, u] of benchtrack.live)"
        " if (h.dataset.bench === n) return u.data[1]; }",
        name,
    )
    base = value_of(name, 1, LAST)
    assert [round(v, 6) for v in ideal[1:]] == [round(base * c, 6) for c in (1, 2, 4)]
    p.set_viewport_size({"width": 1280, "height": 1100})
    p.evaluate("window.scrollTo(0, 0)")
    p.screenshot(path=str(shots / "scaling.png"))
    # an older commit: the 4-vCPU runner had no result yet
    p.select_option("#scaling-commit", commit_id(1))
    p.wait_for_function("location.hash.includes('c=')")
    p.wait_for_function("document.querySelectorAll('table.scaling tbody tr').length > 0")
    p.wait_for_function(
        "[...document.querySelectorAll(\"tr[data-runner='local-4cpu'] .value\")].length > 0"
    )
    four = p.locator("tr[data-runner='local-4cpu'] .value").first.inner_text()
    assert four == "no result"
    one = p.locator("tr[data-runner='local-1cpu'] .value").first
    first = p.locator("table.scaling").first.get_attribute("data-bench")
    assert float(one.get_attribute("data-value")) == float(f"{value_of(first, 1, 1):.6g}")
    assert_clean(page)


def test_compare_sorts_changes_by_size(built: Built, page: Watched) -> None:
    base, head = STEP_AT - 1, STEP_AT
    open_page(page, url_of(built, f"view=compare&base={commit_id(base)}&head={commit_id(head)}"))
    p = page.page
    p.wait_for_function(
        "document.querySelectorAll('#compare-table tbody tr[data-bench]').length > 0"
    )
    rows = p.evaluate(
        "[...document.querySelectorAll('#compare-table tbody tr')].map(r =>"
        " [r.dataset.bench, r.dataset.runner, Number(r.cells[4].dataset.change)])"
    )
    assert len(rows) == len(BENCHMARKS) * len(RUNNERS)
    sizes = [abs(c) for _, _, c in rows]
    assert sizes == sorted(sizes, reverse=True)
    top = rows[0]
    assert top[0] == "rust/walk/rayon"
    expected = value_of(top[0], RUNNERS[top[1]], head) / value_of(top[0], RUNNERS[top[1]], base) - 1
    assert math.isclose(top[2], expected, rel_tol=1e-4)
    assert "worse" in p.locator("#compare-table tbody tr").first.inner_text()
    assert_clean(page)


def test_served_over_http_fetches_nothing_from_elsewhere(
    built: Built, http_url: str, page: Watched, shots: Path
) -> None:
    p = page.page
    requests: list[str] = []
    p.on("request", lambda r: requests.append(r.url))
    p.goto(http_url)
    p.wait_for_selector("#main[data-view]")
    p.wait_for_function("document.querySelectorAll('.mini.drawn').length >= 3")
    assert p.locator("a.card").count() == len(BENCHMARKS)
    p.screenshot(path=str(shots / "overview.png"), full_page=False)
    origin = http_url.rsplit("/", 1)[0]
    assert requests and all(u.startswith(origin) for u in requests), requests
    assert not any(u.endswith("data.js") and "/bench/" in u for u in requests)  # the index only
    p.click("a.card[data-name='perl/rss/async']")
    p.wait_for_function("window.benchtrack.main !== null")
    assert "lower is better" in p.locator(".unit").inner_text()
    assert_clean(page)


def test_phone_layout_has_no_horizontal_scroll(built: Built, pages: Pages, shots: Path) -> None:
    # the phone context bypasses the CSP (context_options): a wait that polls evaluates its
    # string (a wait whose first look failed, on a busy machine, broke on the page's CSP)
    page = pages.new("phone")
    open_page(page, url_of(built))
    p = page.page
    context = p.context
    p.wait_for_function("document.querySelectorAll('.mini.drawn').length >= 1")
    assert p.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    p.screenshot(path=str(shots / "phone-overview.png"))
    open_page(page, url_of(built, "view=bench&b=rust%2Fwalk%2Frayon"))
    p.wait_for_function("window.benchtrack.main !== null")
    assert p.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    # no hover on a phone: the first tap on a point shows its tooltip, the second opens the commit
    i = 5
    x = p.evaluate(f"benchtrack.main.valToPos(benchtrack.index.commits.t[{i}], 'x')")
    box = p.locator("#chart .u-over").bounding_box()
    pages_before = len(context.pages)
    p.tap("#chart .u-over", position={"x": x, "y": box["height"] / 2})
    p.locator("#tooltip").wait_for(state="visible")
    assert commit_id(i)[:7] in p.locator("#tooltip").inner_text()
    p.screenshot(path=str(shots / "phone-benchmark.png"))
    assert len(context.pages) == pages_before
    context.route("https://github.com/**", lambda route: route.fulfill(body="commit page"))
    with context.expect_page() as popup:
        p.tap("#chart .u-over", position={"x": x, "y": box["height"] / 2})
    popup.value.wait_for_load_state()
    assert popup.value.url.endswith(commit_id(i))
    assert_clean(page)


def test_missing_index_explains_how_to_build(built: Built, tmp_path: Path, page: Watched) -> None:
    site = tmp_path / "site"
    shutil.copytree(built.site, site)
    (site / "dashboard/data/index.js").unlink()
    page.page.goto((site / "index.html").as_uri())
    alert = page.page.locator("[role=alert]")
    alert.wait_for()
    assert "benchtrack site" in alert.inner_text()


def test_page_declares_a_content_security_policy(built: Built) -> None:
    html = (built.site / "index.html").read_text()
    assert "Content-Security-Policy" in html and "script-src 'self'" in html


def _load_js(path: Path, prefix: bytes) -> dict:
    text = path.read_bytes()
    assert text.startswith(prefix), path
    return orjson.loads(text[len(prefix) :].rstrip().rstrip(b";"))


def test_large_history_overview_reads_bucket_means(tmp_path: Path, pages: Pages) -> None:
    from benchtrack.dashboard.payload import OVERVIEW_BUCKETS
    from benchtrack.lab import synthetic

    history = tmp_path / "h"
    commits = 2 * OVERVIEW_BUCKETS + 100
    synthetic.history(history, commits=commits, benches=6, runners=(1, 2))
    proc = run_site(str(history))
    assert proc.returncode == 0, proc.stderr
    index = _load_js(history / "dashboard/data/index.js", b"window.BENCHTRACK_INDEX=")
    group = index["suites"][0]["groups"][0]
    assert group["ofile"] == "o-" + group["file"]
    key = group["key"].encode()
    full = _load_js(
        history / "dashboard/data/g" / group["file"],
        b'(window.BENCHTRACK_DATA=window.BENCHTRACK_DATA||{})["' + key + b'"]=',
    )
    over = _load_js(
        history / "dashboard/data/g" / group["ofile"],
        b'(window.BENCHTRACK_DATA=window.BENCHTRACK_DATA||{})["' + key + b'#o"]=',
    )
    name = group["benches"][0]["name"]
    runner = index["runners"][0]["key"]
    deltas, values, _ = full[name][runner]
    o_deltas, o_values, _ = over[name][runner]
    size = math.ceil(commits / OVERVIEW_BUCKETS)
    positions = [sum(deltas[: k + 1]) for k in range(len(deltas))]
    buckets: dict[int, list[float]] = {}
    for pos, value in zip(positions, values, strict=True):
        buckets.setdefault(pos // size, []).append(value)
    assert len(o_values) == len(buckets) <= OVERVIEW_BUCKETS
    at = [sum(o_deltas[: k + 1]) for k in range(len(o_deltas))]
    for (b, vals), pos, mean in zip(sorted(buckets.items()), at, o_values, strict=True):
        assert pos == min((b + 1) * size - 1, commits - 1)
        assert math.isclose(mean, sum(vals) / len(vals), rel_tol=1e-5)

    page = pages.new(viewport={"width": 1280, "height": 1600})
    urls: list[str] = []
    page.page.on("request", lambda r: urls.append(r.url))
    open_page(page, (history / "index.html").as_uri())
    page.page.wait_for_function("document.querySelectorAll('.mini.drawn').length >= 2")
    loaded = [u.rsplit("/", 1)[1] for u in urls if "/data/g/" in u]
    assert loaded and all(u.startswith("o-") for u in loaded), loaded
    page.page.click(f"a.card[data-name='{name}']")
    page.page.wait_for_function("window.benchtrack.main !== null")
    assert page.page.evaluate("benchtrack.main.data[0].length") == commits
    assert_clean(page)


def test_site_from_a_git_branch(tmp_path: Path) -> None:
    import subprocess

    repo = make_history(tmp_path / "remote")
    git = ["git", "-C", str(repo), "-c", "user.email=t@example.com", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q", "-b", "gh-pages"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "history"], check=True)
    out = tmp_path / "out"
    proc = run_site(f"git:{repo.as_uri()}#gh-pages", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "1 change marker -> " in proc.stdout
    for key in RUNNERS:
        assert (out / "bench" / key / "data.js").read_bytes() == (
            repo / "bench" / key / "data.js"
        ).read_bytes()
    missing = run_site(f"git:{repo.as_uri()}#no-such-branch", "--out", str(tmp_path / "x"))
    assert missing.returncode == 2 and "no-such-branch" in missing.stderr


def test_back_to_the_overview_keeps_the_scroll_position(built: Built, pages: Pages) -> None:
    page = pages.new(viewport={"width": 900, "height": 500})
    open_page(page, url_of(built))
    p = page.page
    card = p.locator("a.card").nth(4)
    card.scroll_into_view_if_needed()
    p.wait_for_timeout(100)
    y = p.evaluate("window.scrollY")
    assert y > 0
    card.click()
    p.wait_for_function("window.benchtrack.main !== null")
    assert p.evaluate("window.scrollY") == 0
    p.go_back()
    p.wait_for_function("document.querySelector('#main').dataset.view === 'overview'")
    assert abs(p.evaluate("window.scrollY") - y) <= 2
    assert_clean(page)


def test_search_from_a_benchmark_goes_back_to_the_filtered_overview(
    built: Built, page: Watched
) -> None:
    open_page(page, url_of(built, "view=bench&b=rust%2Fwalk%2Frayon"))
    p = page.page
    p.wait_for_function("window.benchtrack.main !== null")
    p.locator("body").press("/")
    assert p.evaluate("document.activeElement.id") == "search"
    p.keyboard.type("python")
    p.wait_for_function("document.querySelector('#main').dataset.view === 'overview'")
    p.wait_for_function("document.querySelectorAll('a.card').length === 2")
    # "pytho" already shows the same 2 cards: the URL is asserted once the last key is in it
    p.wait_for_function("location.hash.includes('q=python')")
    assert "q=python" in p.url
    assert_clean(page)


def test_change_markers_only_for_known_commits_and_bad_file_is_exit_2(tmp_path: Path) -> None:
    history = make_history(tmp_path / "h")
    changes = history / "bench/changes.json"
    doc = orjson.loads(changes.read_bytes())
    doc["changes"].append({**doc["changes"][0], "commit": "f" * 40})  # not in the history
    doc["changes"].append({**doc["changes"][0], "series": "rust/walk/gone"})  # no such benchmark
    doc["changes"].append({**doc["changes"][0], "runner": "local-64cpu"})  # no such runner
    changes.write_bytes(orjson.dumps(doc))
    proc = run_site(str(history), "--out", str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    index = _load_js(tmp_path / "out/dashboard/data/index.js", b"window.BENCHTRACK_INDEX=")
    assert [(c["series"], c["commit"], c["i"]) for c in index["changes"]] == [
        ("rust/walk/rayon", commit_id(STEP_AT), STEP_AT)
    ]
    changes.write_text('{"changes": [{"series": 1}]}')
    bad = run_site(str(history), "--out", str(tmp_path / "out2"))
    assert bad.returncode == 2 and "changes.json" in bad.stderr and "changes[0]" in bad.stderr
    changes.unlink()  # no file, no markers
    proc = run_site(str(history), "--out", str(tmp_path / "out3"))
    index = _load_js(tmp_path / "out3/dashboard/data/index.js", b"window.BENCHTRACK_INDEX=")
    assert proc.returncode == 0 and index["changes"] == []


def test_scaling_defaults_to_the_newest_commit_every_runner_measured(
    tmp_path: Path, page: Watched
) -> None:
    from benchtrack.history.format import dumps, parse

    history = make_history(tmp_path / "h")
    for key in ("local-2cpu", "local-4cpu"):  # the newest commit ran on 1 vCPU only, so far
        path = history / "bench" / key / "data.js"
        data = parse(path.read_bytes(), str(path)).data
        for runs in data["entries"].values():
            runs.pop()
        path.write_bytes(dumps(data))
    proc = run_site(str(history))
    assert proc.returncode == 0, proc.stderr
    open_page(page, (history / "index.html").as_uri() + "#view=scaling")
    p = page.page
    assert p.locator("#scaling-commit").input_value() == commit_id(LAST - 1)
    p.wait_for_function(
        "document.querySelectorAll('table.scaling td.value[data-value]').length > 0"
    )
    missing = p.locator("td.value", has_text="no result").count()
    assert missing == 0
    assert_clean(page)


def test_every_view_runs_under_the_pages_own_csp(built: Built, browser: object) -> None:
    # no bypass here: a CSP violation is a console error
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = Watched(context.new_page())
    p = page.page
    for fragment, ready in (
        ("view=overview", ".mini.drawn"),
        ("view=bench&b=rust%2Fwalk%2Frayon", "#chart canvas"),
        ("view=scaling", ".mini.scal.drawn"),
        ("view=compare", "#compare-table tr[data-bench]"),
        ("view=regressions", "#changes-table tr[data-series]"),
    ):
        p.goto(url_of(built, fragment))
        p.wait_for_selector(ready)
    p.goto(url_of(built, "view=bench&b=rust%2Fwalk%2Frayon"))
    p.wait_for_selector("#chart canvas")
    p.focus("#chart")
    p.keyboard.press("End")
    p.wait_for_selector("#tooltip:not([hidden])")
    assert_clean(page)
    context.close()
