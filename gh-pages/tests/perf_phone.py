"""The dashboard on a phone, measured from the DOM (a measurement, not a test; pytest does not
collect this file).

    uv run --frozen python gh-pages/tests/perf_phone.py [--history DIR] [--bench NAME]

Without --history it writes the shipped generator's realistic history first (benchtrack.lab.simulate
"counted": 160 merges on 1, 2 and 4 vCPU, seed 1, the history test_views.py draws) and its change
points (`benchtrack detect --write`) into a temporary directory, and says where. It builds the
site with `benchtrack site` (the dashboard's current code), opens every view from file:// in
headless Chromium at 390x844 (touch, 2x pixels, as dashboard_fixture.PHONE) and prints, per view:
- the header's height (px);
- the page's width: document.scrollingElement's scrollWidth against its clientWidth;
- the page's height in screens of 844 px (not Scaling's: its cards grow as their groups load);
and on the benchmark view (the one test_views.py opens, and the benchmark with the longest name)
where its first chart starts and ends, the latest-result table's width and the right edge of its
verdict ("Change vs expected") cells; on the Regressions list how many cards have their name
running under their change figure.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from urllib.parse import quote

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).parent))
from dashboard_fixture import (
    CHROMIUM,
    CHROMIUM_ARGS,
    NAME_UNDER_FIGURE,
    PHONE,
    VIEWS,
    build_simulated,
    context_options,
    run_site,
)

SCREEN = PHONE["viewport"]["height"]
BENCH = "python/fileio_cpu/sequential"

PAGE = """() => {
  const d = document.scrollingElement;
  return { header: Math.round(document.querySelector('header.top').getBoundingClientRect().height),
           scrollWidth: d.scrollWidth, clientWidth: d.clientWidth,
           screens: d.scrollHeight / innerHeight };
}"""

BENCH_VIEW = """() => {
  const top = (e) => Math.round(e.getBoundingClientRect().top + scrollY);
  const chart = document.getElementById('chart');
  const table = document.querySelector('table.latest');
  const cells = [...table.querySelectorAll('tbody td.chg')];
  return { chartTop: top(chart),
           chartBottom: Math.round(chart.getBoundingClientRect().bottom + scrollY),
           tableWidth: Math.round(table.getBoundingClientRect().width),
           verdictRight: Math.round(Math.max(...cells.map((c) => c.getBoundingClientRect().right))),
           viewport: innerWidth };
}"""

NAMES = """() => benchtrack.index.suites.flatMap((s) => s.groups)
  .flatMap((g) => g.benches).map((b) => b.name)"""


def width_text(m: dict) -> str:
    over = " (scrolls sideways)" if m["scrollWidth"] > m["clientWidth"] else ""
    return f"{m['scrollWidth']}/{m['clientWidth']}{over}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--history", type=Path, help="a history with its changes.json")
    parser.add_argument("--bench", default=BENCH, help=f"the benchmark view's benchmark ({BENCH})")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="benchtrack-phone-"))
    if args.history:
        history, site = args.history, tmp / "site"
        built = run_site(str(history), "--out", str(site))
        if built.returncode:
            sys.exit(built.stderr)
    else:  # the generator's history, its change points and its site, as test_views.py has them
        sim = build_simulated(tmp, "counted")
        history, site = sim.history, sim.site
    print(f"history {history}; site {site}; viewport 390x844")
    home = (site / "index.html").as_uri()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        page = browser.new_context(**context_options(**PHONE)).new_page()
        page.goto(home)
        page.wait_for_selector(".mini.drawn")
        names = page.evaluate(NAMES)
        longest = max((n for n in names if " (" not in n), key=len)
        for fragment, ready in VIEWS:
            view = fragment.split("=")[1]
            if view.startswith("bench"):
                continue  # below, with more figures
            page.goto("about:blank")
            page.goto(f"{home}#{fragment}")
            page.wait_for_selector(ready)
            m = page.evaluate(PAGE)
            line = f"[{view}] header {m['header']} px; width {width_text(m)}"
            if view != "scaling":  # its cards grow as their groups load: no stable height
                line += f"; height {m['screens']:.1f} screens"
            if view == "regressions":
                under = len(page.evaluate(NAME_UNDER_FIGURE))
                cards = page.locator("#changes-table tbody tr").count()
                line += f"; {under} of {cards} cards: name under the change figure"
            print(line)
        for name in dict.fromkeys([args.bench, longest]):
            page.goto("about:blank")
            page.goto(f"{home}#view=bench&b={quote(name, safe='')}")
            page.wait_for_function("window.benchtrack.main !== null")
            m = page.evaluate(PAGE)
            b = page.evaluate(BENCH_VIEW)
            print(
                f"[bench {name}] header {m['header']} px; width {width_text(m)}; "
                f"first chart {b['chartTop']}-{b['chartBottom']} px (screen: {SCREEN}); "
                f"latest-result table {b['tableWidth']} px wide, its verdict cells' right edge "
                f"{b['verdictRight']} px (viewport {b['viewport']})"
            )
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
