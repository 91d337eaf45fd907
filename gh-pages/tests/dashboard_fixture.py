"""The dashboard tests' fixture history (made here, in github-action-benchmark's format) and
helpers: the `benchtrack site` CLI, Chromium's path and flags, a page that records its errors."""

from __future__ import annotations

import contextlib
import io
import os
import random
import signal
import subprocess
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path

import orjson

from benchtrack.history.format import dumps
from benchtrack.lab import simulate

REPO = Path(__file__).resolve().parents[2]
SHOTS = REPO / "test-output" / "dashboard"
CHROMIUM = os.environ.get("BENCHTRACK_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
XSS = "<img src=x onerror=alert(1)>"
REPO_URL = "https://github.com/example/benchtrack"

# name -> (unit, direction, base value on 1 vCPU, scaling exponent: value ~ base * cpus**exp)
BENCHMARKS = {
    "rust/walk/tokio_joinset": ("directories/s", "bigger", 1200.0, 0.9),
    "rust/walk/rayon": ("directories/s", "bigger", 1500.0, 0.8),
    "rust/streams/async_next": ("items/s", "bigger", 4.9e8, 0.0),
    "python/sleep/gather": ("ops/s", "bigger", 310.0, 0.1),
    "python/sleep/taskgroup": ("ops/s", "bigger", 295.0, 0.1),
    "perl/coro/async/trivial": ("tasks/s", "bigger", 640.0, 0.0),
    "perl/rss/async": ("KB", "smaller", 9240.0, 0.0),
}
RUNNERS = {"local-1cpu": 1, "local-2cpu": 2, "local-4cpu": 4}
N_COMMITS = 12
FOUR_CPU_FROM = 3  # the 4-vCPU runner joined at the 4th commit: older commits have no 4cpu point
STEP_AT = 8  # rust/walk/rayon regresses by 20 % from this commit on (flagged in changes.json)
XSS_AT = 10  # the commit whose message (and author) try to inject HTML


def commit_id(i: int) -> str:
    return f"{i:02x}" + "c0ffee" * 6 + f"{i:02x}"[:2]


def value_of(name: str, cpus: int, i: int) -> float:
    _, _, base, exp = BENCHMARKS[name]
    wobble = 1 + 0.01 * ((i * 7 + cpus * 3) % 5 - 2)
    step = 0.8 if name == "rust/walk/rayon" and i >= STEP_AT else 1.0
    return round(base * cpus**exp * wobble * step, 3)


def range_of(name: str, cpus: int, i: int) -> float:
    return round(value_of(name, cpus, i) * 0.02, 3)


@dataclass
class Built:
    history: Path
    site: Path


def _commit(i: int, message: str, author: dict[str, str]) -> dict[str, object]:
    return {
        "author": author,
        "committer": author,
        "distinct": True,
        "id": commit_id(i),
        "message": message,
        "timestamp": f"2026-11-{i + 1:02d}T10:00:00Z",
        "tree_id": "ab" * 20,
        "url": f"{REPO_URL}/commit/{commit_id(i)}",
    }


def _add_run(entries: dict[str, list], key: str, cpus: int, i: int, commit: dict, measure) -> None:
    """One run of every benchmark at commit `i`: an entry per direction, as the action writes.
    `measure(name)` gives (value, range)."""
    date = 1793527200000 + i * 86_400_000 + 3_600_000
    for direction, entry in (("bigger", key), ("smaller", f"{key} (smaller is better)")):
        benches = []
        for name, (unit, d, _, _) in BENCHMARKS.items():
            if d != direction:
                continue
            v, r = measure(name)
            benches.append(
                {
                    "name": name,
                    "value": v,
                    "unit": unit,
                    "range": f"± {r}",
                    "extra": f"runner=local; cpus={cpus}; samples=10; "
                    f"ci={v - r:.3f}..{v + r:.3f}; suite={name.split('/')[0]}",
                }
            )
        tool = "customBiggerIsBetter" if direction == "bigger" else "customSmallerIsBetter"
        entries.setdefault(entry, []).append(
            {"commit": commit, "date": date, "tool": tool, "benches": benches}
        )


def _write_data_js(root: Path, key: str, entries: dict[str, list], commits: int) -> None:
    data = {"lastUpdate": 1793527200000 + commits * 86_400_000, "repoUrl": REPO_URL}
    data["entries"] = entries
    path = root / "bench" / key / "data.js"
    path.parent.mkdir(parents=True)
    path.write_bytes(dumps(data))


def make_history(root: Path) -> Path:
    """bench/<runner-key>/data.js per runner size, in github-action-benchmark's format."""
    for key, cpus in RUNNERS.items():
        entries: dict[str, list] = {}
        for i in range(N_COMMITS):
            if cpus == 4 and i < FOUR_CPU_FROM:
                continue
            author = {"email": "dev@example.com", "name": "Dev One", "username": "devone"}
            if i == XSS_AT:
                author = {"email": "x@example.com", "name": "<b>Mallory</b>", "username": "mal"}
            message = XSS if i == XSS_AT else f"Commit number {i}: tune the walkers"
            _add_run(
                entries, key, cpus, i, _commit(i, message, author),
                lambda name, cpus=cpus, i=i: (value_of(name, cpus, i), range_of(name, cpus, i)),
            )  # fmt: skip
        _write_data_js(root, key, entries, N_COMMITS)
    change = {
        "series": "rust/walk/rayon",
        "runner": "local-2cpu",
        "commit": commit_id(STEP_AT),
        "change": -0.2,
        "direction": "bigger",
        "regression": True,
    }
    (root / "bench" / "changes.json").write_bytes(
        orjson.dumps({"schema": "benchtrack.changes/1", "changes": [change]})
    )
    return root


# The shipped generator's realistic histories (benchtrack.lab.simulate): 160 merges on 1, 2 and 4
# vCPU, noise from the shipped recordings, 12 known steps (6 at the latest merge).
SIM_MERGES = 160
SIM_SEED = 1


@dataclass
class Simulated:
    scenario: str
    history: Path
    site: Path
    truth: dict


def build_simulated(root: Path, scenario: str) -> Simulated:
    """The generator's history, its change points (`benchtrack detect --write`) and its site."""
    history = root / "history"
    args = [str(history), "--scenario", scenario, "--merges", str(SIM_MERGES)]
    assert simulate.main([*args, "--seed", str(SIM_SEED)]) == 0  # its command line, in process
    detect = run_cli("detect", str(history), "--write")
    assert detect.returncode == 0, detect.stderr
    site = run_site(str(history), "--out", str(root / "site"))
    assert site.returncode == 0, site.stderr
    truth = orjson.loads((history / "truth.json").read_bytes())
    return Simulated(scenario, history, root / "site", truth)


def run_site(*args: str) -> subprocess.CompletedProcess[str]:
    return run_cli("site", *args)


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    """`benchtrack ARGS...`, the real command line (`benchtrack.cli.main`: its parser, its exit
    codes, its messages) from the repository root, run in this process: a `benchtrack` process
    spends ~1.3 CPU-seconds importing before it reads its arguments (its commands import scipy),
    and these tests start ~30. `run_cli_process` runs the installed entry point itself."""
    from benchtrack import cli

    out, err = io.StringIO(), io.StringIO()
    sigterm = signal.getsignal(signal.SIGTERM)  # cli.main installs its own
    try:
        with (
            contextlib.chdir(REPO),
            contextlib.redirect_stdout(out),
            contextlib.redirect_stderr(err),
            warnings.catch_warnings(),
        ):
            warnings.simplefilter("default")  # to its stderr, as a process of its own shows them
            warnings.showwarning = lambda *w, **_: err.write(warnings.formatwarning(*w[:4]))
            try:
                code = cli.main(list(args))
            except SystemExit as exit:  # argparse's usage errors and --help
                code = exit.code if isinstance(exit.code, int) else 1
    finally:
        signal.signal(signal.SIGTERM, sigterm)
    return subprocess.CompletedProcess(["benchtrack", *args], code, out.getvalue(), err.getvalue())


def run_cli_process(*args: str) -> subprocess.CompletedProcess[str]:
    """`python -m benchtrack.cli ARGS...` in a process of its own, from the repository root."""
    return subprocess.run(
        [sys.executable, "-m", "benchtrack.cli", *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=REPO,
    )


# A history with real steps for `benchtrack detect` to find (no hand-written changes.json):
# STEP_COMMITS commits on two runner sizes, every value with ~0.4 % noise, and three steps:
# (benchmark, runner, first commit at the new level, factor, a regression?)
STEP_COMMITS = 20
STEP_RUNNERS = {"local-1cpu": 1, "local-2cpu": 2}
STEPS = [
    ("rust/walk/rayon", "local-2cpu", 12, 0.8, True),  # throughput -20 %
    ("perl/rss/async", "local-1cpu", 6, 1.15, True),  # memory +15 % (smaller is better)
    ("python/sleep/gather", "local-1cpu", 9, 1.25, False),  # throughput +25 %
]
STEP_XSS_AT = 12  # the commit of the rayon step carries the HTML-injecting message


def step_value(name: str, key: str, i: int) -> float:
    _, _, base, exp = BENCHMARKS[name]
    noise = random.Random(f"{name}|{key}|{i}").gauss(0, 0.004)
    factor = 1.0
    for series, runner, at, f, _ in STEPS:
        if series == name and runner == key and i >= at:
            factor = f
    return round(base * STEP_RUNNERS[key] ** exp * factor * (1 + noise), 3)


def make_step_history(root: Path) -> Path:
    """bench/<runner-key>/data.js with the STEPS in them; no changes.json (detect writes it)."""
    author = {"email": "dev@example.com", "name": "Dev One", "username": "devone"}
    for key, cpus in STEP_RUNNERS.items():
        entries: dict[str, list] = {}
        for i in range(STEP_COMMITS):
            message = XSS if i == STEP_XSS_AT else f"Commit number {i}: tune the walkers"
            body = message + "\n\nA longer body that the dashboard does not show."

            def measure(name: str, key: str = key, i: int = i) -> tuple[float, float]:
                v = step_value(name, key, i)
                return v, round(v * 0.005, 3)

            _add_run(entries, key, cpus, i, _commit(i, body, author), measure)
        _write_data_js(root, key, entries, STEP_COMMITS)
    return root


# The first runs of a new history (one runner size): what `bench-local` leaves after its first and
# second run. The second run is unchanged code on a noisy machine: every benchmark lands 30-37 %
# off the first run, but inside both runs' own ± range, except TIGHT, whose ranges are narrow (a
# real step), and CONFIRMED, within its ranges but flagged by change-point detection.
FIRST_RUNNER = ("local-2cpu", 2)
NOISY_SPREAD = 0.3  # each run's ci half-width, relative: a -33 % change is inside the spreads
TIGHT = "rust/walk/rayon"
CONFIRMED = "python/sleep/gather"


def second_run_factor(name: str) -> float:
    """-30 % to -37 % for throughputs, +30 % to +37 % for the smaller-is-better metric."""
    k = sorted(BENCHMARKS).index(name)
    drop = 0.30 + 0.01 * k
    return 1 + drop if BENCHMARKS[name][1] == "smaller" else 1 - drop


def first_runs_value(name: str, run: int) -> tuple[float, float]:
    base = BENCHMARKS[name][2]
    value = round(base * (second_run_factor(name) if run else 1.0), 3)
    spread = 0.01 if name == TIGHT else NOISY_SPREAD
    return value, round(value * spread, 3)


def make_first_runs_history(root: Path, runs: int) -> Path:
    """`runs` (1 or 2) runs on FIRST_RUNNER; with 2, a changes.json flagging CONFIRMED's step."""
    key, cpus = FIRST_RUNNER
    author = {"email": "dev@example.com", "name": "Dev One", "username": "devone"}
    entries: dict[str, list] = {}
    for i in range(runs):
        commit = _commit(i, f"Run {i + 1}", author)
        _add_run(entries, key, cpus, i, commit, lambda name, i=i: first_runs_value(name, i))
    _write_data_js(root, key, entries, runs)
    if runs > 1:
        change = {
            "series": CONFIRMED,
            "runner": key,
            "commit": commit_id(runs - 1),
            "change": second_run_factor(CONFIRMED) - 1,
            "direction": "bigger",
            "regression": True,
        }
        (root / "bench" / "changes.json").write_bytes(
            orjson.dumps({"schema": "benchtrack.changes/1", "changes": [change]})
        )
    return root


# The phone the layout tests use (an iPhone-sized viewport, touch, 2x pixels).
PHONE = {
    "viewport": {"width": 390, "height": 844},
    "device_scale_factor": 2,
    "is_mobile": True,
    "has_touch": True,
}


# Every view, the site of simulations("counted") open at it, and what shows it is drawn.
VIEWS = (
    ("view=overview", ".mini.drawn"),
    ("view=bench&b=python%2Ffileio_cpu%2Fsequential", "#chart canvas"),
    ("view=scaling", ".mini.scal.drawn"),
    ("view=compare", "#compare-table tr[data-bench]"),
    ("view=regressions", "#changes-table tr[data-series]"),
)

# The Regressions cards whose name's text boxes meet their change figure's box (on a phone the
# figure sits beside the name): their series.
NAME_UNDER_FIGURE = """() => [...document.querySelectorAll('#changes-table tbody tr')]
.filter((tr) => {
  const f = tr.querySelector('td.chg').getBoundingClientRect();
  const range = document.createRange();
  range.selectNodeContents(tr.querySelector('th[scope="row"]'));
  return [...range.getClientRects()].some((r) => r.width > 0
    && r.left < f.right && f.left < r.right && r.top < f.bottom && f.top < r.bottom);
}).map((tr) => tr.dataset.series)"""


def context_options(**over: object) -> dict[str, object]:
    """Browser contexts bypass the page's Content-Security-Policy: Playwright's waits evaluate
    strings, which the CSP forbids, and the XSS test must prove that data is rendered as text
    (nothing runs even without the CSP's second line of defence)."""
    return {"viewport": {"width": 1280, "height": 900}, "bypass_csp": True, **over}


class Watched:
    """A page plus everything it complained about: console errors, page errors, dialogs."""

    def __init__(self, page: object) -> None:
        self.page = page
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        page.on("pageerror", lambda e: self.errors.append(str(e)))

        def on_dialog(d: object) -> None:
            self.dialogs.append(d.message)
            d.dismiss()

        page.on("dialog", on_dialog)


class Pages:
    """Fresh pages in the session's contexts (`viewport` set on the page), closed after the test."""

    def __init__(self, desk: object, phone: object) -> None:
        self.contexts = {"desk": desk, "phone": phone}
        self.opened: list[Watched] = []

    def new(self, kind: str = "desk", viewport: dict[str, int] | None = None) -> Watched:
        watched = Watched(self.contexts[kind].new_page())
        if viewport is not None:
            watched.page.set_viewport_size(viewport)
        self.opened.append(watched)
        return watched

    def close(self) -> None:
        """Every page the test left open (its popups too), local storage cleared; the routes
        it added to a context removed."""
        for context in self.contexts.values():
            for page in context.pages:
                if page.url.startswith("file:"):
                    page.evaluate("localStorage.clear()")
                page.close()
            context.unroute_all()
