"""How many throttled sessions test_views.py's Scaling check needs: the sessions it runs (a fresh
page on the counted simulation's site, a CPU slowed 4x, every group scrolled into view in turn),
with the chart queue (js/live.js) of a git revision, each session's stranded groups printed: a
group whose charts in view stayed undrawn 5 s after it was scrolled to.

    uv run --frozen python gh-pages/tests/replay_scaling_queue.py [--rev f0d6673^] [--sessions 3]

The default revision is the queue before f0d6673 fixed it (a frame that ran out of time left
charts whose group nobody had asked for); `--rev HEAD` replays today's, which strands none."""

from __future__ import annotations

import argparse
import subprocess
import tempfile
from pathlib import Path

from dashboard_fixture import CHROMIUM, CHROMIUM_ARGS, REPO, build_simulated, context_options

LIVE_JS = "tracker/src/benchtrack/dashboard/js/live.js"
ALL_DRAWN_IN_VIEW = """() => [...document.querySelectorAll('.mini.scal')].every((h) => {
  const r = h.getBoundingClientRect();
  return r.bottom < 0 || r.top > innerHeight || h.classList.contains('drawn'); })"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", default="f0d6673^", help="the revision whose js/live.js to use")
    parser.add_argument("--sessions", type=int, default=3)
    parser.add_argument("--rate", type=float, default=4, help="CPU throttling (the test's: 4)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    live = subprocess.run(
        ["git", "-C", str(REPO), "show", f"{args.rev}:{LIVE_JS}"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        site = build_simulated(Path(tmp), "counted").site
        (site / "dashboard/js/live.js").write_text(live)
        url = (site / "index.html").as_uri() + "#view=scaling"
        stranded_sessions = 0
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
            )
            page = browser.new_context(**context_options()).new_page()
            cdp = page.context.new_cdp_session(page)
            cdp.send("Emulation.setCPUThrottlingRate", {"rate": args.rate})
            for s in range(args.sessions):
                page.goto("about:blank")
                page.goto(url)
                page.wait_for_selector(".mini.scal.drawn")
                groups = page.locator("section.suite h3").count()
                stranded = []
                for k in range(groups):
                    page.evaluate(
                        f"document.querySelectorAll('section.suite h3')[{k}].scrollIntoView()"
                    )
                    try:
                        page.wait_for_function(ALL_DRAWN_IN_VIEW, timeout=5000)
                    except Exception:
                        stranded.append(k)
                stranded_sessions += bool(stranded)
                print(f"session {s + 1}: {groups} groups; stranded: {stranded or 'none'}")
            browser.close()
    print(f"{args.rev}: {stranded_sessions} of {args.sessions} sessions stranded a group")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
