"""A benchmark's instruction count (its companion series, `<name> (instructions)`) on the
dashboard, end to end: result documents made by the real ingest adapters (the captured Perl
runner output for wall time; `benchtrack callgrind` output for the counts, turned into the
companion document as bench-local does), appended commit after commit by the real history store,
the real `benchtrack detect --write` and `benchtrack site`, and the page in headless Chromium.
The counts step up 5% at STEP_AT (a regression detect must flag); wall time does not."""

from __future__ import annotations

import json
import random
from pathlib import Path

import orjson
import pytest
from dashboard_fixture import REPO, Built, Watched, run_cli, run_site

from benchtrack.history import new_entries, open_store
from benchtrack.history.companion import as_companion
from benchtrack.ingest import ingest
from benchtrack.ingest.callgrind import SCHEMA
from benchtrack.result import Commit, Runner

PERL = REPO / "tracker/tests/fixtures/perl/perl.json"
RUNNER = Runner("local", 2, "AMD EPYC", "Linux", "x86_64")
KEY = RUNNER.key
BENCH = "perl/coro/async/trivial"
COUNTED = f"{BENCH} (instructions)"
COMMITS = 16
STEP_AT = 9


def commit(i: int) -> Commit:
    sha = f"{i:02x}" + "be" * 19
    url = f"https://github.com/example/benchtrack/commit/{sha}"
    return Commit(sha, f"Commit {i}", f"2026-11-{i + 1:02d}T10:00:00Z", "Dev", "d@x", url)


def run_documents(tmp: Path, i: int, rng: random.Random):
    """One bench-local run at commit `i`: the Perl suite's wall time (its captured output, every
    throughput sample scaled by ±20%: a noisy shared machine) and its instruction counts."""
    raw = json.loads(PERL.read_text())
    noise = 1 + rng.uniform(-0.2, 0.2)
    for b in raw["benchmarks"]:
        if b.get("direction", "bigger") == "bigger":
            b["samples"] = [x * noise for x in b["samples"]]
    time_raw = tmp / f"{i}" / "perl.json"
    time_raw.parent.mkdir(parents=True)
    time_raw.write_text(json.dumps(raw))
    counted = [
        {
            "name": name,
            "elements": 100,
            "unit": "tasks/s",
            "instructions": [
                round(
                    base
                    * (1.05 if name == BENCH and i >= STEP_AT else 1.0)
                    * (1 + rng.gauss(0, 0.002))
                )
                for _ in range(3)
            ],
        }
        for name, base in ((BENCH, 4_180_000), ("perl/coro/pool_chan/trivial", 6_020_000))
    ]
    count_raw = tmp / f"{i}" / "counts.json"
    count_raw.write_bytes(orjson.dumps({"schema": SCHEMA, "command": [], "benchmarks": counted}))
    created = f"2026-11-{i + 1:02d}T11:00:00Z"
    time_doc = ingest("perl", time_raw, commit(i), RUNNER, created)
    count_doc = as_companion(ingest("callgrind", count_raw, commit(i), RUNNER, created), count_raw)
    return [(str(time_raw), time_doc), (str(count_raw), count_doc)]


@pytest.fixture(scope="module")
def counted(tmp_path_factory: pytest.TempPathFactory) -> Built:
    tmp = tmp_path_factory.mktemp("companion")
    history = tmp / "history"
    store = open_store(history)
    rng = random.Random(4)
    for i in range(COMMITS):
        store.append(new_entries(run_documents(tmp / "raw", i, rng)))
    detect = run_cli("detect", str(history), "--write")
    assert detect.returncode == 0, detect.stderr
    site = tmp / "site"
    proc = run_site(str(history), "--out", str(site))
    assert proc.returncode == 0, proc.stderr
    return Built(history=history, site=site)


def url(built: Built, fragment: str) -> str:
    return (built.site / "index.html").as_uri() + "#" + fragment


def test_the_history_holds_both_series_and_detect_flags_the_count_step(counted: Built) -> None:
    changes = orjson.loads((counted.history / "bench/changes.json").read_bytes())["changes"]
    assert [(c["series"], c["index"], c["regression"]) for c in changes] == [
        (COUNTED, STEP_AT, True)
    ]
    text = (counted.history / "bench" / KEY / "data.js").read_text()
    assert f'"name": "{COUNTED}"' in text and f'"name": "{BENCH}"' in text


def test_overview_shows_the_count_on_its_benchmarks_card_not_as_a_card(
    counted: Built, page: Watched, shots: Path
) -> None:
    p = page.page
    p.goto(url(counted, "view=overview"))
    p.wait_for_selector("#main[data-view=overview]")
    names = p.eval_on_selector_all("a.card", "cs => cs.map(c => c.dataset.name)")
    assert BENCH in names and COUNTED not in names
    assert p.locator("#summary").inner_text().startswith(f"{len(names)} of {len(names)} benchmarks")
    line = p.locator(f"a.card[data-name='{BENCH}'] .card-companion").inner_text()
    assert line.startswith("+ instructions: ") and line.endswith("/ task"), line
    p.screenshot(path=str(shots / "companion-overview.png"), full_page=True)
    assert page.errors == []


def test_benchmark_view_draws_the_count_under_the_wall_time_and_switches_to_it(
    counted: Built, page: Watched, shots: Path
) -> None:
    p = page.page
    p.goto(url(counted, f"view=bench&b={BENCH}"))
    p.wait_for_function("window.benchtrack.main !== null")
    links = p.locator("#series-switch a")
    assert links.all_inner_texts() == ["wall time", "instructions (callgrind)"]
    assert links.first.get_attribute("aria-current") == "page"
    section = p.locator(".other-series[data-series=instructions]")
    assert "instructions/task — lower is better" in section.inner_text()
    chart = section.locator(".mini")
    chart.scroll_into_view_if_needed()
    p.wait_for_function("document.querySelector('.other-series .mini.drawn') !== null")
    assert chart.get_attribute("data-bench") == COUNTED
    assert chart.get_attribute("data-lines") == "1"
    # detect's step is marked on the count chart: one regression triangle at its commit
    markers = json.loads(chart.get_attribute("data-markers"))
    assert [(m["commit"], m["bad"]) for m in markers] == [(commit(STEP_AT).id, True)]
    p.screenshot(path=str(shots / "companion-bench.png"), full_page=True)

    links.nth(1).click()
    p.wait_for_function(f"document.querySelector('h2').textContent === {json.dumps(COUNTED)}")
    assert "instructions/task — lower is better" in p.locator(".unit").inner_text()
    assert p.locator("#series-switch a[aria-current=page]").inner_text() == (
        "instructions (callgrind)"
    )
    assert p.locator(".other-series[data-series=time] .mini").get_attribute("data-bench") == BENCH
    assert page.errors == []
