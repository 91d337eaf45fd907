"""The dashboard's performance benchmark (not a timed test; pytest does not collect this file).

    uv run --frozen python gh-pages/tests/perf_dashboard.py [--history DIR] [--runs 3]

Without --history it writes the synthetic history (benchtrack.lab.synthetic: 2,000 commits x 150
benchmarks x 3 runner sizes) into a temporary directory first (minutes). It builds the site into the
history with `benchtrack site`, serves it from a loopback http.server and from file://, and reports
in headless Chromium:
- first meaningful paint: when the first charts in view are drawn (the page's
  `benchtrack:first-charts` mark), and the browser's first contentful paint;
- a scroll through every chart (60 px per animation frame, to the bottom): frame times and long
  tasks; only charts near the viewport are drawn, the others are released;
- bytes fetched for the overview (page, code, index and every group file after the full scroll)
  against the raw data.js total.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import statistics
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).parent))
from dashboard_fixture import CHROMIUM, CHROMIUM_ARGS, REPO

SCROLL = """async () => {
  const frames = [];
  const long = [];
  const obs = new PerformanceObserver((l) => {
    for (const e of l.getEntries()) long.push(e.duration);
  });
  obs.observe({ type: 'longtask', buffered: false });
  let last = performance.now();
  const bottom = () => document.documentElement.scrollHeight - innerHeight;
  await new Promise((done) => {
    function step(now) {
      frames.push(now - last); last = now;
      if (scrollY >= bottom() - 1) { done(); return; }
      scrollTo(0, scrollY + 60);
      requestAnimationFrame(step);
    }
    requestAnimationFrame(step);
  });
  await new Promise((r) => setTimeout(r, 300));
  obs.disconnect();
  const drawnMax = window.__drawnMax || 0;
  return { frames: frames.slice(1), long, height: document.documentElement.scrollHeight,
           live: benchtrack.live.size, drawnMax };
}"""

TRACK_LIVE = """() => { window.__drawnMax = 0; const f = () => {
  window.__drawnMax = Math.max(window.__drawnMax, benchtrack.live.size);
  requestAnimationFrame(f); };
  requestAnimationFrame(f); }"""

BYTES = """() => performance.getEntriesByType('navigation')
  .concat(performance.getEntriesByType('resource'))
  .map(e => [e.name, e.encodedBodySize || e.transferSize || 0])"""


def serve(root: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Quiet, directory=str(root))
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/index.html"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--history", type=Path, help="a history directory (default: synthetic)")
    parser.add_argument("--runs", type=int, default=3, help="page loads per measurement")
    args = parser.parse_args()
    history = args.history
    if history is None:
        history = Path(tempfile.mkdtemp(prefix="benchtrack-synthetic-"))
        print(f"writing the synthetic history into {history} …", flush=True)
        subprocess.run(
            [sys.executable, "-m", "benchtrack.lab.synthetic", str(history)], check=True, cwd=REPO
        )
    subprocess.run(
        [sys.executable, "-m", "benchtrack.cli", "site", str(history)], check=True, cwd=REPO
    )
    raw = sum(p.stat().st_size for p in history.glob("bench/*/data.js"))
    server, http_url = serve(history)
    urls = {"http": http_url, "file": (history / "index.html").as_uri()}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        for kind, url in urls.items():
            fmp, fcp = [], []
            for _ in range(args.runs):
                context = browser.new_context(
                    viewport={"width": 1280, "height": 900}, bypass_csp=True
                )
                page = context.new_page()
                page.goto(url)
                page.wait_for_function("document.documentElement.dataset.firstCharts")
                mark = page.evaluate(
                    "performance.getEntriesByName('benchtrack:first-charts')[0].startTime"
                )
                paint = page.evaluate(
                    "(performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime"
                )
                fmp.append(mark)
                fcp.append(paint or 0)
                context.close()
            print(
                f"[{kind}] first charts drawn: median {statistics.median(fmp):.0f} ms "
                f"(runs {', '.join(f'{v:.0f}' for v in fmp)}); first contentful paint "
                f"median {statistics.median(fcp):.0f} ms"
            )
        context = browser.new_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)
        page = context.new_page()
        page.goto(http_url)
        page.wait_for_function("document.documentElement.dataset.firstCharts")
        first_bytes = sum(n for _, n in page.evaluate(BYTES))
        page.evaluate(TRACK_LIVE)
        result = page.evaluate(SCROLL)
        frames = sorted(result["frames"])
        over50 = sum(1 for f in frames if f > 50)
        print(
            f"[scroll] {len(frames)} frames over {result['height']} px: median "
            f"{statistics.median(frames):.1f} ms, p95 {frames[int(len(frames) * 0.95)]:.1f} ms, "
            f"max {frames[-1]:.1f} ms, frames > 50 ms: {over50}; long tasks: "
            f"{len(result['long'])} (max {max(result['long'], default=0):.0f} ms); "
            f"charts alive at most {result['drawnMax']}, at the end {result['live']}"
        )
        entries = page.evaluate(BYTES)
        total = sum(n for _, n in entries)
        groups = sum(1 for name, _ in entries if "/data/g/" in name)
        print(
            f"[bytes] first view {first_bytes / 1e6:.2f} MB; after scrolling through all "
            f"{groups} groups {total / 1e6:.2f} MB = {total / raw:.1%} of the raw data.js total "
            f"({raw / 1e6:.1f} MB)"
        )
        context.close()
        browser.close()
    server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
