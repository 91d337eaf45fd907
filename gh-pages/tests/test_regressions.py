"""The Regressions list and the change markers, end to end: a history with real steps, the real
`benchtrack detect HISTORY --write` (which writes bench/changes.json), the real `benchtrack site`,
and the page in headless Chromium."""

from __future__ import annotations

import time
from pathlib import Path
from urllib.parse import parse_qs

import orjson
import pytest
from dashboard_fixture import (
    STEP_COMMITS,
    STEP_RUNNERS,
    STEP_XSS_AT,
    STEPS,
    XSS,
    Built,
    Pages,
    Watched,
    commit_id,
    make_step_history,
    run_cli,
    run_site,
    step_value,
)

from benchtrack.confirm import store
from benchtrack.history.format import dumps

WORSE_RGB = (0xD5, 0x5E, 0x00)  # the vermillion of a regression's marker (WORSE in js/util.js)
REGRESSIONS = [s for s in STEPS if s[4]]
IMPROVEMENTS = [s for s in STEPS if not s[4]]


def pct1(x: float) -> str:
    """The list's change format (pct1 in js/util.js): sign, one decimal, thin space, %."""
    body = f"{abs(x) * 100:.1f}"
    return ("±" if float(body) == 0 else "+" if x > 0 else "−") + body + " %"


def load_index(site: Path) -> dict:
    text = (site / "dashboard/data/index.js").read_bytes()
    return orjson.loads(text.removeprefix(b"window.BENCHTRACK_INDEX=").rstrip().rstrip(b";"))


CULPRIT_PR = 5
# The gate's diagnosis of the confirmed loss, as gate.json has it; its syscall name is the run's
# (untrusted): the page must show it as text.
HOSTILE = "<img src=x onerror=alert(1)>"
DIAGNOSIS = {"status": "ok", "loss": 0.2, "kinds": [
    {"kind": "parallelism", "share": 0.9, "base_threads": 1.9, "head_threads": 1.0,
     "base_busy": 2, "head_busy": 1},
    {"kind": "syscalls", "share": 0.1, "syscalls": [{"name": HOSTILE, "base": 0.0, "head": 1.0}]},
]}  # fmt: skip


def checks_for(history: Path) -> list[dict]:
    """What `benchtrack confirm` would append: rayon's step confirmed in lockstep (bisected to
    its commit, PR #5), the RSS step refuted (noise, checked); the improvement left unchecked."""
    out = []
    for c in orjson.loads((history / "bench/changes.json").read_bytes())["changes"]:
        if not c["regression"]:
            continue
        real = c["series"] == "rust/walk/rayon"
        out.append(
            {
                "event": f"{c['series']}@{c['commit']}",
                "benchmark": c["series"],
                "runner": c["runner"],
                "base": c["base"],
                "head": c["commit"],
                "expected": "regression",
                "outcome": "regression" if real else "noise",
                "confirmed": real,
                "rows": [{"series": c["series"], "verdict": "regressed" if real else "unchanged",
                          "change": -0.2 if real else 0.001, "lo": -0.25, "hi": -0.15,
                          "diagnosis": DIAGNOSIS if real else None}],
                "checked": "2026-04-01T00:00:00Z",
                "run": "https://github.com/o/r/actions/runs/1" if real else None,
                "culprit": {"commit": c["commit"], "pr": CULPRIT_PR, "subject": "s", "probes": []}
                if real
                else None,
            }
        )  # fmt: skip
    return out


@pytest.fixture(scope="module")
def stepped(tmp_path_factory: pytest.TempPathFactory) -> Built:
    history = make_step_history(tmp_path_factory.mktemp("stepped"))
    detect = run_cli("detect", str(history), "--write")
    assert detect.returncode == 0, detect.stderr
    store.append(store.path_of(history), checks_for(history))
    site = tmp_path_factory.mktemp("stepped-site") / "out"
    proc = run_site(str(history), "--out", str(site))
    assert proc.returncode == 0, proc.stderr
    return Built(history=history, site=site)


def changes_of(built: Built) -> list[dict]:
    return orjson.loads((built.history / "bench/changes.json").read_bytes())["changes"]


def url(built: Built, fragment: str) -> str:
    return (built.site / "index.html").as_uri() + "#" + fragment


def assert_clean(page: Watched) -> None:
    assert page.errors == [], page.errors
    assert page.dialogs == [], page.dialogs


# --------------------------------------------------------------------------------------------
# Data: detect finds the steps, the index lists them


def test_detect_finds_each_step_and_the_index_carries_them(stepped: Built) -> None:
    found = {(c["series"], c["runner"], c["commit"], c["regression"]) for c in changes_of(stepped)}
    assert found == {(s, r, commit_id(at), bad) for s, r, at, _, bad in STEPS}
    index = load_index(stepped.site)
    assert index["detect"]["generated"]
    listed = [(c["series"], c["i"], c["new"]) for c in index["changes"]]
    # newest commit first, every change new: the first publish reported all of them
    assert listed == [(s, at, True) for s, _, at, _, _ in sorted(STEPS, key=lambda s: -s[2])]
    rayon = next(c for c in index["changes"] if c["series"] == "rust/walk/rayon")
    assert rayon["after"] / rayon["before"] == pytest.approx(0.8, abs=0.01)


def test_a_later_publish_without_a_new_step_marks_nothing_new(
    stepped: Built, tmp_path: Path
) -> None:
    import shutil

    history = tmp_path / "h"
    shutil.copytree(stepped.history, history)
    # The next publish: one more commit on every series, at the levels after the steps, appended
    # after the first detect run (detect stamps whole seconds), then detect again.
    time.sleep(1.1)
    now_ms = int(time.time() * 1000)
    for key in STEP_RUNNERS:
        path = history / "bench" / key / "data.js"
        data = orjson.loads(path.read_bytes().split(b"=", 1)[1])
        for entries in data["entries"].values():
            last = entries[-1]
            entry = {**last, "date": now_ms, "commit": {**last["commit"], "id": "f" * 40}}
            entry["benches"] = [
                {**b, "value": step_value(b["name"], key, STEP_COMMITS)} for b in last["benches"]
            ]
            entries.append(entry)
        data["lastUpdate"] = now_ms
        path.write_bytes(dumps(data))
    time.sleep(1.1)
    assert run_cli("detect", str(history), "--write").returncode == 0
    assert run_site(str(history), "--out", str(tmp_path / "out")).returncode == 0
    index = load_index(tmp_path / "out")
    assert len(index["changes"]) == len(STEPS)
    assert [c["new"] for c in index["changes"]] == [False] * len(STEPS)


# --------------------------------------------------------------------------------------------
# In the browser


def test_regressions_list_from_the_overview(stepped: Built, page: Watched, shots: Path) -> None:
    p = page.page
    p.goto(url(stepped, "view=overview"))
    p.wait_for_selector("#main[data-view=overview]")
    # only the step confirmed in lockstep is counted; the refuted one is not, nor a candidate
    banner = p.locator("#flagged").text_content()
    assert "1 regression confirmed in lockstep" in banner and "1 new" in banner
    assert "candidate" not in banner
    assert p.locator(".tabs a[data-view=regressions] .tab-count").inner_text() == "1"
    # keyboard only: Tab to the Regressions tab, Enter
    p.focus(".tabs a[data-view=compare]")
    p.keyboard.press("Tab")
    assert p.evaluate("document.activeElement.dataset.view") == "regressions"
    p.keyboard.press("Enter")
    p.wait_for_selector("#changes-table")
    assert "view=regressions" in p.url

    rows = p.locator("#changes-table tbody tr")
    expected = sorted(REGRESSIONS, key=lambda s: -s[2])  # newest commit first
    assert rows.count() == len(expected)
    by_key = {(c["series"], c["runner"]): c for c in changes_of(stepped)}
    for row, (series, runner, at, _, _) in zip(rows.all(), expected, strict=True):
        change = by_key[(series, runner)]["change"]
        assert row.get_attribute("data-series") == series
        assert row.locator("th a.series").inner_text() == series
        assert row.locator(".badge").inner_text().lower() == "new"
        assert row.locator(".runner-cell").inner_text().strip() == f"{STEP_RUNNERS[runner]} vCPU"
        link = row.locator(".commit a")
        assert link.inner_text() == commit_id(at)[:7]
        assert link.get_attribute("href").endswith(f"/commit/{commit_id(at)}")
        assert row.locator("td.chg").inner_text().startswith(("▼ ", "▲ "))
        assert pct1(change) in row.locator("td.chg").inner_text()
        assert "worse" in row.get_attribute("class")
        real = series == "rust/walk/rayon"
        assert row.get_attribute("data-status") == ("confirmed" if real else "noise")
        cell = row.locator("td.status")
        assert cell.inner_text().startswith("confirmed" if real else "noise, checked")
        if real:  # the commit the bisect named, its PR, the run
            assert row.locator(".culprit").get_attribute("data-commit") == commit_id(at)
            assert f"(#{CULPRIT_PR})" in cell.inner_text()
            assert cell.locator("a").get_attribute("href").endswith("/actions/runs/1")
            why = cell.locator(".why").inner_text()  # the gate's diagnosis, its names as text
            assert why.startswith("why: lost parallelism: base ran 1.9 threads at once, head 1.0")
            assert f"+1 {HOSTILE} a call" in why and cell.locator("img").count() == 0
        else:
            assert cell.locator(".why").count() == 0
    assert "1 regression confirmed" in p.locator("#changes-table caption").inner_text()
    first = rows.first
    assert first.get_attribute("data-commit") == commit_id(STEP_XSS_AT)
    # the message that tries to inject HTML is text, and nothing ran
    assert first.locator(".msg").inner_text() == XSS
    assert p.evaluate("document.querySelectorAll('main img, main b').length") == 0
    p.locator("#changes-table").screenshot(path=str(shots / "regressions.png"))
    p.screenshot(path=str(shots / "regressions-page.png"), full_page=True)

    # improvements are a filter away (arrow keys move between the radio buttons)
    p.focus("#show input[value=regressions]")
    p.keyboard.press("ArrowRight")
    p.wait_for_function("document.querySelector('#main').dataset.view === 'regressions'")
    p.wait_for_selector("#changes-table tbody tr.better")
    assert "show=improvements" in p.url
    better = p.locator("#changes-table tbody tr")
    assert better.count() == len(IMPROVEMENTS)
    series, *_ = IMPROVEMENTS[0]
    assert better.first.get_attribute("data-series") == series
    assert better.first.get_attribute("data-status") == "candidate"  # never checked
    assert "+" in better.first.locator("td.chg").inner_text()
    p.check("#show input[value=all]")
    p.wait_for_function(
        f"document.querySelectorAll('#changes-table tbody tr').length === {len(STEPS)}"
    )
    assert_clean(page)


def test_a_row_opens_its_benchmark_on_its_runner_with_the_marker(
    stepped: Built, page: Watched, shots: Path
) -> None:
    p = page.page
    p.goto(url(stepped, "view=regressions"))
    p.click("#changes-table tr[data-series='rust/walk/rayon'] a.series")
    p.wait_for_function("window.benchtrack.main !== null")
    params = parse_qs(p.url.split("#", 1)[1])
    assert params["view"] == ["bench"] and params["b"] == ["rust/walk/rayon"]
    assert params["only"] == ["local-2cpu"]  # the change's runner in focus, this view only
    assert "r" not in params  # the runner selection every view shares is left alone
    t = p.evaluate(f"benchtrack.index.commits.t[{STEP_XSS_AT}]")
    lo, hi = p.evaluate("[benchtrack.main.scales.x.min, benchtrack.main.scales.x.max]")
    assert lo <= t <= hi
    # the marker: drawn on the chart where the step is, in the regression colour
    markers = orjson.loads(p.locator("#chart").get_attribute("data-markers"))
    assert [(m["runner"], m["commit"], m["bad"]) for m in markers] == [
        ("local-2cpu", commit_id(STEP_XSS_AT), True)
    ]
    rgb = p.evaluate(
        """([x, y]) => {
          const c = document.querySelector('#chart canvas');
          const d = devicePixelRatio;
          const px = c.getContext('2d').getImageData(Math.round(x * d), Math.round(y * d), 1, 1);
          return Array.from(px.data);
        }""",
        [markers[0]["x"], markers[0]["y"]],
    )
    assert tuple(rgb[:3]) == WORSE_RGB, rgb
    assert commit_id(STEP_XSS_AT)[:7] in p.locator(".marks li").inner_text()
    assert p.evaluate("benchtrack.main.series.map(s => s.label).slice(1)") == ["local-2cpu"]
    p.screenshot(path=str(shots / "regression-benchmark.png"))
    # leaving the benchmark, every runner size is still selected (the focus was this view's only)
    p.click(".tabs a[data-view=overview]")
    p.wait_for_function("document.querySelector('#main').dataset.view === 'overview'")
    assert p.locator("#runners input:checked").count() == len(STEP_RUNNERS)
    assert "only=" not in p.url and "r=" not in p.url
    assert_clean(page)


def test_regressions_list_on_a_phone(stepped: Built, pages: Pages, shots: Path) -> None:
    page = pages.new("phone")
    p = page.page
    p.goto(url(stepped, "view=regressions&show=all"))
    p.wait_for_selector("#changes-table")
    assert p.locator("#changes-table tbody tr").count() == len(STEPS)
    assert p.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
    p.screenshot(path=str(shots / "phone-regressions.png"), full_page=True)
    assert_clean(page)


def test_history_without_changes_json_explains_where_they_come_from(
    tmp_path: Path, page: Watched
) -> None:
    history = make_step_history(tmp_path / "h")  # detect never ran
    assert run_site(str(history)).returncode == 0
    p = page.page
    p.goto((history / "index.html").as_uri() + "#view=overview")
    p.wait_for_selector("#main[data-view=overview]")
    assert p.locator("#flagged").count() == 0
    assert p.locator(".tabs .tab-count").count() == 0
    p.goto((history / "index.html").as_uri() + "#view=regressions")
    assert "benchtrack detect" in p.locator("#changes-empty").inner_text()
    assert len(load_index(history)["commits"]["id"]) == STEP_COMMITS
    assert_clean(page)
