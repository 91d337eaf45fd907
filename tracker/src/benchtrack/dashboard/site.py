"""Build the gh-pages dashboard from a history (`benchtrack site HISTORY --out DIR`).

The published site is the dashboard shipped inside this package (`benchtrack/dashboard/`: the page,
its scripts and style, and the chart library uPlot vendored under `vendor/`, checked against the
npm tarball `gh-pages/package-lock.json` locks) plus a compact index derived from the history,
written beside `bench/`:

    OUT/index.html                      the dashboard (opens from file:// and from GitHub Pages)
    OUT/dashboard/js/*.js, style.css    its code (classic scripts, loaded in order by index.html)
    OUT/dashboard/vendor/uPlot.*        the chart library (and its licence)
    OUT/dashboard/data/index.js         window.BENCHTRACK_INDEX: runners, commits (deduplicated
                                        across runners), suites/groups/benchmarks, latest and
                                        previous values with their ± half-widths,
                                        change points for the markers and the Regressions list
                                        (from bench/changes.json when present)
    OUT/dashboard/data/g/<group>.js     one per suite/group, loaded lazily when the group scrolls
                                        into view: per benchmark and runner, delta-coded commit
                                        indices, values (6 significant digits) and range half-widths
    OUT/dashboard/data/archive/         only when a runner has a bench/<runner-key>/archive.js:
        index.js                        window.BENCHTRACK_ARCHIVE: the commits of the whole
                                        history (data.js and archive.js), where each commit of
                                        index.js sits among them, and the change points on it
        g/<group>.js                    each group's series over the whole history, loaded only
                                        after "load older history"
    OUT/bench/<runner-key>/data.js      untouched when OUT is the history itself; a byte copy
      (and archive.js)                  otherwise, so the site is whole

The index and data/g/ draw each data.js alone (what retention keeps: the recent history), so the
first screen stays small however long the history; the archived points are separate files that
only the "load older history" control loads (gh-pages/README.md has the contract).

Data files are JavaScript (`window.X = {...}`) because a page opened from file:// cannot fetch()
JSON in Chromium, but it can load a <script>. A `data.js` is never rewritten.

Every file is a function of the history alone (no wall-clock stamp): rebuilding an unchanged
history writes the same bytes, so the publish job has nothing to commit.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from benchtrack import companion
from benchtrack.dashboard import expected, machines
from benchtrack.errors import BadInput
from benchtrack.fsutil import atomic_write
from benchtrack.history.archive import ARCHIVE_JS

SCHEMA = "benchtrack.site/1"
# The overview's small multiples need no more points than pixels: past 2 x OVERVIEW_BUCKETS
# commits each group also gets an overview file of bucket means (same layout, fewer points).
OVERVIEW_BUCKETS = 200
_SLUG = re.compile(r"[^a-z0-9._-]+")
# What of the source tree is not published: the vendored library's provenance, which a test reads.
_NOT_PUBLISHED = {Path("vendor/uplot.json")}
_REQUIRED = ("index.html", "vendor/uPlot.iife.min.js", "vendor/uPlot.min.css")


def _is_python(rel: Path) -> bool:
    return rel.suffix == ".py" or "__pycache__" in rel.parts


def default_source() -> Path:
    """The dashboard shipped in this package (`benchtrack/dashboard/`), wherever it is installed."""
    return Path(__file__).resolve().parent


# --------------------------------------------------------------------------------------------
# Reading the history (through benchtrack.history, the history store's reader)


@dataclass
class SiteHistory:
    model: Any  # benchtrack.history.model.History of the data.js files: what the page draws first
    root: Path | None  # the history directory on disk (None for a history that is not)
    changes: list[dict[str, Any]] = field(default_factory=list)
    changes_source: Path | None = None
    changes_generated: str | None = None  # changes.json's `generated`: when detect last wrote it
    # changes.json's runs needed per series (2 x config.min_segment) and series too short to judge
    changes_meta: dict[str, int] = field(default_factory=dict)
    whole: Any = None  # with each archive.js read in (None: no runner has an archive)

    def data_js(self, key: str, name: str = "data.js") -> Path | None:
        path = self.root / "bench" / key / name if self.root else None
        return path if path is not None and path.is_file() else None


@contextmanager
def open_history(spec: str) -> Iterator[SiteHistory]:
    """Read every runner's data.js (and bench/changes.json) of a history directory or git branch.

    A git history is read from a temporary checkout (the store's own), which lives as long as the
    context: the site copies its data.js and changes.json from there.
    """
    from benchtrack import history as history_mod

    store = history_mod.open_store(spec)
    if isinstance(store, history_mod.GitStore):
        with store.checkout() as work:
            if work is None:
                raise BadInput(spec, None, "an existing branch with bench/<runner-key>/data.js")
            yield _site_history(history_mod.open_store(str(work)), work, spec)
        return
    yield _site_history(store, Path(spec), spec)


def _site_history(store: Any, root: Path, spec: str) -> SiteHistory:
    model = store.read(archive=False)
    if not model.runners:
        raise BadInput(root / "bench", None, "at least one bench/<runner-key>/data.js")
    archived = any((root / "bench" / key / ARCHIVE_JS).is_file() for key in model.runners)
    changes, source, generated, meta = _read_changes(root)
    return SiteHistory(
        model=model,
        root=root,
        changes=changes,
        changes_source=source,
        changes_generated=generated,
        changes_meta=meta,
        whole=store.read() if archived else None,
    )


def _finite(value: Any) -> float | None:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    return value if ok else None


def _read_changes(
    root: Path,
) -> tuple[list[dict[str, Any]], Path | None, str | None, dict[str, int]]:
    """Change points flagged by `detect` (bench/changes.json, schema benchtrack.changes/1): a list
    of {series, runner, commit, change, direction, regression, before, after, first_seen} (only
    series, runner and commit are required), the file, its `generated` time, and the runs detect
    needs per series and how many series it skipped as too short; no changes when the file is
    absent."""
    path = root / "bench" / "changes.json"
    if not path.is_file():
        return [], None, None, {}
    try:
        doc = orjson.loads(path.read_bytes())
    except orjson.JSONDecodeError as error:
        raise BadInput(path, None, "valid JSON", str(error)) from None
    items = doc.get("changes", []) if isinstance(doc, dict) else doc
    generated = doc.get("generated") if isinstance(doc, dict) else None
    if not isinstance(items, list):
        raise BadInput(path, "changes", "a list of change points", type(items).__name__)
    out = []
    for i, item in enumerate(items):
        if not isinstance(item, dict) or not all(
            isinstance(item.get(k), str) for k in ("series", "runner", "commit")
        ):
            raise BadInput(
                path, f"changes[{i}]", "an object with series, runner and commit strings"
            )
        regression = item.get("regression")
        first_seen = item.get("first_seen")
        out.append(
            {
                "series": item["series"],
                "runner": item["runner"],
                "commit": item["commit"],
                "change": _finite(item.get("change")),
                "direction": str(item.get("direction") or ""),
                "regression": regression if isinstance(regression, bool) else None,
                "before": _finite(item.get("before")),
                "after": _finite(item.get("after")),
                "first_seen": first_seen if isinstance(first_seen, str) else None,
            }
        )
    config = doc.get("config") if isinstance(doc, dict) else None
    segment = config.get("min_segment") if isinstance(config, dict) else None
    skipped = doc.get("skipped") if isinstance(doc, dict) else None
    meta = {
        "min_points": 2 * segment if isinstance(segment, int) and segment > 0 else 8,
        "skipped": len(skipped) if isinstance(skipped, list) else 0,
    }
    return out, path, generated if isinstance(generated, str) else None, meta


# --------------------------------------------------------------------------------------------
# Deriving the compact index


def quantise(value: float, digits: int = 6) -> float | int | None:
    """Keep `digits` significant digits; integral values serialise without `.0`; NaN -> None."""
    if not math.isfinite(value):
        return None
    q = float(f"{value:.{digits}g}")
    return int(q) if q.is_integer() and abs(q) < 1e15 else q


def _json_numbers(values: Any, digits: int) -> str:
    """A JSON array of `values` at `digits` significant digits (`1.23457e+06` is valid JSON)."""
    fmt = f"{{:.{digits}g}}".format
    return "[" + ",".join("null" if v != v else fmt(v) for v in values.tolist()) + "]"


def _epoch_seconds(iso: str) -> float | None:
    try:
        return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()
    except (ValueError, AttributeError):
        return None


def _first_line(text: str, limit: int = 300) -> str:
    text = (text or "").strip()
    line = text.splitlines()[0] if text else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _suite_rank(suite: str, order: tuple[str, ...]) -> tuple[int, str]:
    """Declared suites in declaration order, then the rest alphabetically."""
    return (order.index(suite) if suite in order else len(order), suite)


def _group_file(suite: str, group: str) -> str:
    slug = _SLUG.sub("-", f"{suite}--{group}".lower()).strip("-") or "group"
    digest = hashlib.sha1(f"{suite}/{group}".encode()).hexdigest()[:6]
    return f"{slug[:60]}-{digest}.js"


def _repo_from_commit_url(url: str) -> str:
    head, sep, _ = url.partition("/commit/")
    return head if sep else ""


def _series_json(pos: np.ndarray, values: np.ndarray, spread: np.ndarray) -> str:
    """`[[commit index deltas], [values, 6 digits], [range half-widths, 3 digits]]`."""
    deltas = np.diff(pos, prepend=0)
    return (
        f"[[{','.join(map(str, deltas.tolist()))}],"
        f"{_json_numbers(values, 6)},{_json_numbers(spread, 3)}]"
    )


def _bucket_means(
    pos: np.ndarray, values: np.ndarray, spread: np.ndarray, size: int, n: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Means per bucket of `size` commits (of all runners' commits, so buckets align across
    runner sizes); each bucket sits at its last commit."""
    buckets = pos // size
    nb = (n + size - 1) // size
    count = np.bincount(buckets, minlength=nb)
    total = np.bincount(buckets, weights=values, minlength=nb)
    has_spread = ~np.isnan(spread)
    s_count = np.bincount(buckets, weights=has_spread, minlength=nb)
    s_total = np.bincount(buckets, weights=np.where(has_spread, np.abs(spread), 0), minlength=nb)
    keep = count > 0
    at = np.minimum((np.arange(nb) + 1) * size - 1, n - 1)[keep]
    with np.errstate(invalid="ignore", divide="ignore"):
        means = total[keep] / count[keep]
        spreads = np.where(s_count[keep] > 0, s_total[keep] / s_count[keep], np.nan)
    return at, means, spreads


def _link_companions(listed: list[dict[str, Any]]) -> None:
    """Each benchmark lists its companion series (`<name> (instructions)`, same group), so the
    page shows them together; a companion whose benchmark is absent stays a benchmark of its own."""
    by_name = {b["name"]: b for b in listed}
    for b in listed:
        owner = by_name.get(b.get("of", ""))
        if owner is not None:
            owner.setdefault("companions", []).append(b["name"])


def _expected_last(pos: np.ndarray, values: np.ndarray, steps: Any) -> list[Any] | None:
    """[center, lo, hi, runs, sd] of the range the latest point is expected in, from the points
    the page holds (6 digits), or None when too few: the rule of benchtrack.dashboard.expected."""
    tail = slice(max(0, len(values) - expected.WINDOW - 1), len(values))
    held = np.array([float(f"{v:.6g}") for v in values[tail].tolist()])
    at = [k for k, p in enumerate(pos[tail].tolist()) if p in steps] if steps else []
    found = expected.expected(held, len(held) - 1, at)
    if found is None:
        return None
    return [quantise(found.center), quantise(found.lo), quantise(found.hi), found.runs,
            quantise(found.sd, 3)]  # fmt: skip


def _machines(history: SiteHistory, key: str, position: dict[str, int]) -> list[list[Any]]:
    """[commit index, cpu model, os] where the runner's machine is first known and where it
    changed (benchtrack.dashboard.machines), for the commits the index has."""
    path = history.data_js(key)
    if path is None:
        return []
    found = [run for run in machines.runs(path) if run[0] in position]
    return [[position[c], cpu, os] for c, cpu, os in machines.changes(found)]


@dataclass
class SiteData:
    index: dict[str, Any]
    groups: dict[str, tuple[str, str]]  # file name -> (group key, JSON text of its series)


def _index_changes(
    history: SiteHistory, position: dict[str, int], benches: Any, last_update: int
) -> list[dict]:
    """The change points the dashboard draws and lists: those whose commit, benchmark and runner
    are in the history, newest commit first (then series, runner), each with its commit's index
    `i` and `new`: first seen by the detect run that followed the latest data, i.e. its
    first_seen is not before the history's last append (`last_update`, ms). Publishing and
    bench-local both append, then detect; detect stamps whole seconds, hence the floor."""
    runners = history.model.runners
    known = [
        c
        for c in history.changes
        if c["commit"] in position and c["series"] in benches and c["runner"] in runners
    ]
    since = last_update // 1000
    # A step is first confirmed `min_points / 2` runs after it; one first reported far further back
    # was re-found (it moved, or detect's settings changed), not found: never "new" again.
    recent = len(position) - 2 * history.changes_meta.get("min_points", 8)
    out = []
    for c in sorted(known, key=lambda c: (-position[c["commit"]], c["series"], c["runner"])):
        out.append(
            {
                "series": c["series"],
                "runner": c["runner"],
                "commit": c["commit"],
                "i": position[c["commit"]],
                "change": c["change"],
                "direction": c["direction"],
                "regression": c["regression"],
                "before": quantise(c["before"], 4) if c["before"] is not None else None,
                "after": quantise(c["after"], 4) if c["after"] is not None else None,
                "new": (_epoch_seconds(c["first_seen"] or "") or -1) >= since
                and position[c["commit"]] >= recent,
            }
        )
    return out


def derive(history: SiteHistory, suite_order: tuple[str, ...] = ()) -> SiteData:
    """The index and per-group payloads the dashboard reads, from the parsed history; suites in
    `suite_order` (benchtrack.toml's [bench.suites], benchtrack.suites.order) come first."""
    runners = sorted(
        history.model.runners.values(),
        key=lambda r: (r.cpus if r.cpus > 0 else 1 << 30, r.key),
    )
    # Commits, deduplicated across runner sizes, in commit-date order.
    commits: dict[str, dict[str, Any]] = {}
    for runner in runners:
        first_date = np.full(len(runner.commits), np.iinfo(np.int64).max, dtype=np.int64)
        for series in runner.series.values():
            np.minimum.at(first_date, series.commit_index, series.date)
        for i, c in enumerate(runner.commits):
            if c.id in commits:
                continue
            recorded = int(first_date[i]) if first_date[i] != np.iinfo(np.int64).max else 0
            t = _epoch_seconds(c.timestamp)
            commits[c.id] = {
                "id": c.id,
                "msg": _first_line(c.message),
                "author": c.author,
                "t": t if t is not None else recorded / 1000,
                "url": c.url,
                "recorded": recorded,
            }
    order = sorted(commits.values(), key=lambda c: (c["t"], c["recorded"]))
    position = {c["id"]: i for i, c in enumerate(order)}
    table = {
        "id": [c["id"] for c in order],
        "msg": [c["msg"] for c in order],
        "author": [c["author"] for c in order],
        "t": [round(c["t"]) for c in order],
        "url": [c["url"] for c in order],
        "runners": [0] * len(order),  # how many runner sizes measured each commit
    }
    for runner in runners:
        for c in {c.id for c in runner.commits}:
            table["runners"][position[c]] += 1
    to_global = {
        r.key: np.array([position[c.id] for c in r.commits], dtype=np.int64) for r in runners
    }

    # Benchmarks grouped by suite and group; names are <suite>/<group>/<variant>[/<param>].
    metas: dict[str, dict[str, Any]] = {}
    last_update = 0
    for runner in runners:
        for name, series in runner.series.items():
            if len(series):
                last_update = max(last_update, int(series.date.max()))
            parts = name.split("/")
            base, kind = companion.split(name)
            metas.setdefault(
                name,
                {
                    "name": name,
                    # a companion series is listed with its benchmark, whatever suite stored it
                    "suite": base.split("/")[0] if kind else series.suite or parts[0],
                    "group": parts[1] if len(parts) > 2 else "",
                    "variant": "/".join(parts[2:]) if len(parts) > 2 else parts[-1],
                    "unit": series.unit,
                    "dir": series.direction,
                    **({"of": base, "series": kind} if kind else {}),
                },
            )
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for meta in metas.values():
        groups.setdefault((meta["suite"], meta["group"]), []).append(meta)

    suites: dict[str, list[dict[str, Any]]] = {}
    payloads: dict[str, tuple[str, str]] = {}
    n = len(order)
    steps: dict[tuple[str, str], set[int]] = {}  # (series, runner) -> commit indices of its steps
    for c in history.changes:
        if c["commit"] in position:
            steps.setdefault((c["series"], c["runner"]), set()).add(position[c["commit"]])
    bucket = math.ceil(n / OVERVIEW_BUCKETS) if n > 2 * OVERVIEW_BUCKETS else 0
    for (suite, group), members in sorted(
        groups.items(), key=lambda kv: (_suite_rank(kv[0][0], suite_order), kv[0][1])
    ):
        file = _group_file(suite, group)
        chunks, chunks_o = [], []
        listed = []
        for meta in sorted(members, key=lambda m: m["name"]):
            per_runner, per_runner_o = [], []
            last: dict[str, Any] = {}
            for runner in runners:
                series = runner.series.get(meta["name"])
                if series is None or not len(series):
                    continue
                pos = to_global[runner.key][series.commit_index]
                order_idx = np.argsort(pos, kind="stable")
                pos, values, spread = (
                    pos[order_idx],
                    series.value[order_idx],
                    series.spread[order_idx],
                )
                key_json = orjson.dumps(runner.key).decode()
                per_runner.append(f"{key_json}:{_series_json(pos, values, np.abs(spread))}")
                if bucket:
                    per_runner_o.append(
                        f"{key_json}:{_series_json(*_bucket_means(pos, values, spread, bucket, n))}"
                    )
                # the latest run, the one before, and the range the series' history expects the
                # latest in (dashboard.expected), so the overview judges it without the series
                before = float(values[-2]) if len(values) > 1 else math.nan
                before_spread = float(spread[-2]) if len(values) > 1 else math.nan
                last[runner.key] = [
                    int(pos[-1]),
                    quantise(float(values[-1])),
                    quantise(abs(float(spread[-1])), 3),
                    quantise(before),
                    quantise(abs(before_spread), 3),
                    _expected_last(pos, values, steps.get((meta["name"], runner.key), ())),
                ]
            name_json = orjson.dumps(meta["name"]).decode()
            chunks.append(f"{name_json}:{{{','.join(per_runner)}}}")
            chunks_o.append(f"{name_json}:{{{','.join(per_runner_o)}}}")
            listed.append(
                {
                    "name": meta["name"],
                    "variant": meta["variant"],
                    "unit": meta["unit"],
                    "dir": meta["dir"],
                    "runners": list(last),
                    "last": last,
                    **{k: meta[k] for k in ("of", "series") if k in meta},
                }
            )
        _link_companions(listed)
        payloads[file] = (f"{suite}/{group}", "{" + ",".join(chunks) + "}")
        entry = {"name": group, "key": f"{suite}/{group}", "file": file, "benches": listed}
        if bucket:
            entry["ofile"] = "o-" + file
            payloads[entry["ofile"]] = (f"{suite}/{group}#o", "{" + ",".join(chunks_o) + "}")
        suites.setdefault(suite, []).append(entry)

    changes = _index_changes(history, position, metas, last_update)
    repo_url = next(
        (_repo_from_commit_url(c["url"]) for c in reversed(order) if "/commit/" in c["url"]), ""
    )
    index = {
        "schema": SCHEMA,
        "lastUpdate": last_update,
        "repoUrl": repo_url,
        "runners": [
            {
                "key": r.key,
                "label": r.label,
                "cpus": r.cpus if r.cpus > 0 else None,
                "points": int(sum(len(s) for s in r.series.values())),
                "runs": int(sum(r.entries.values())),
                "data": f"bench/{r.key}/data.js",
                "machines": _machines(history, r.key, position),
            }
            for r in runners
        ],
        "commits": table,
        "suites": [{"name": s, "groups": g} for s, g in suites.items()],
        "changes": changes,
        # null: the history has no bench/changes.json; else when detect last wrote it (or null),
        # the runs it needs per series, the series it judged and those too short to judge
        "detect": {
            "generated": history.changes_generated,
            "series": sum(len(r.series) for r in runners),
            **history.changes_meta,
        }
        if history.changes_source
        else None,
        "benchmarks": len(metas),
        "archive": None,  # what derive_archive adds when the history has archived entries
    }
    return SiteData(index=index, groups=payloads)


ARCHIVE_INDEX = "data/archive/index.js"
ARCHIVE_KEY = "#archive"  # a payload's key in window.BENCHTRACK_DATA: `<group key>[#o]#archive`


def derive_archive(
    history: SiteHistory, recent: SiteData, suite_order: tuple[str, ...] = ()
) -> SiteData | None:
    """The files "load older history" loads, for a history with archived entries (None if it has
    none): the commit table of the whole history, each of `recent`'s commits' place in it (so the
    page keeps every index it holds valid), the change points on it, and each group's series over
    it. Fills in `recent.index["archive"]`, which tells the page there is more."""
    if history.whole is None:
        return None
    whole = derive(
        SiteHistory(
            history.whole, history.root, history.changes, changes_meta=history.changes_meta
        ),
        suite_order,
    )
    commits = whole.index["commits"]
    at = {c: i for i, c in enumerate(commits["id"])}
    points = sum(r["points"] for r in whole.index["runners"]) - sum(
        r["points"] for r in recent.index["runners"]
    )
    recent_ids = set(recent.index["commits"]["id"])
    recent.index["archive"] = {
        "index": ARCHIVE_INDEX,
        "commits": len(commits["id"]) - len(recent_ids),
        "points": points,
        "first": commits["t"][0] if commits["t"] else None,
        # the change points only the archive holds: the Regressions list says how many
        "changes": sum(c["commit"] not in recent_ids for c in whole.index["changes"]),
    }
    index = {
        "schema": SCHEMA,
        "commits": commits,
        "recent": [at[c] for c in recent.index["commits"]["id"]],
        "changes": whole.index["changes"],
        "runners": [{k: r[k] for k in ("key", "points", "runs")} for r in whole.index["runners"]],
        "groups": {
            g["key"]: {k: g[k] for k in ("file", "ofile") if k in g}
            for suite in whole.index["suites"]
            for g in suite["groups"]
        },
    }
    groups = {file: (key + ARCHIVE_KEY, text) for file, (key, text) in whole.groups.items()}
    return SiteData(index=index, groups=groups)


# --------------------------------------------------------------------------------------------
# Writing the site


def _write(path: Path, data: bytes) -> None:
    """atomic_write, readable by a web server (mkstemp creates 0600)."""
    atomic_write(path, data)
    os.chmod(path, 0o644)


def _js(global_expr: str, obj: Any) -> bytes:
    return global_expr.encode() + orjson.dumps(obj) + b";\n"


@dataclass
class BuildReport:
    out: Path
    runners: int
    benchmarks: int
    commits: int
    index_bytes: int
    group_bytes: int
    overview_bytes: int  # the index is not included
    archive_bytes: int  # data/archive/: loaded only by "load older history"
    data_js_bytes: int
    copied_data_js: int
    changes: int

    def as_dict(self) -> dict[str, Any]:
        return {k: (str(v) if isinstance(v, Path) else v) for k, v in self.__dict__.items()}


def build_site(
    history: SiteHistory, out: Path, source: Path | None = None, order: tuple[str, ...] = ()
) -> BuildReport:
    """Write the dashboard for `history` into `out` (see the module doc for the layout); `order`:
    the suites' order (derive's `suite_order`)."""
    source = source or default_source()
    missing = [rel for rel in _REQUIRED if not (source / rel).is_file()]
    if missing:
        raise BadInput(source / missing[0], None, "a dashboard source tree (benchtrack/dashboard/)")
    site = derive(history, suite_order=order)
    archive = derive_archive(history, site, suite_order=order)
    out.mkdir(parents=True, exist_ok=True)
    dash = out / "dashboard"

    # The source: index.html at the top, everything else (code, style, vendor/) under dashboard/.
    code = set()
    for path in sorted(source.rglob("*")):
        rel = path.relative_to(source)
        # the page's assets only: the Python that builds it shares the folder, not the site
        if path.is_dir() or rel in _NOT_PUBLISHED or _is_python(rel):
            continue
        target = out / rel if rel == Path("index.html") else dash / rel
        _write(target, path.read_bytes())
        code.add(target)
    # What an older build wrote that the source no longer has (dashboard/app.js before it was
    # split into js/): dashboard/ is derived, so a build over an old site equals a fresh one. Its
    # data/ is kept in step on its own.
    for path in sorted(dash.rglob("*")):
        if path.is_file() and path.relative_to(dash).parts[0] != "data" and path not in code:
            path.unlink()

    # Group payloads first, the index last: a reader never sees an index naming a missing file.
    sizes = _write_groups(dash / "data" / "g", site.groups)
    group_bytes = sum(sizes.values())
    # what the overview loads: each group's overview file, or its full file when it has none
    overview_bytes = sum(
        sizes[group.get("ofile", group["file"])]
        for suite in site.index["suites"]
        for group in suite["groups"]
    )
    archive_bytes = 0
    adir = dash / "data" / "archive"
    if archive is not None:
        archive_bytes = sum(_write_groups(adir / "g", archive.groups).values())
        blob = _js("window.BENCHTRACK_ARCHIVE=", archive.index)
        _write(dash / ARCHIVE_INDEX, blob)
        archive_bytes += len(blob)
    elif adir.is_dir():  # the history no longer has an archive: neither has the site
        _write_groups(adir / "g", {})
        (dash / ARCHIVE_INDEX).unlink(missing_ok=True)

    # data.js: never rewritten; copied byte for byte when the site is built elsewhere.
    copied = 0
    data_bytes = 0
    same_place = history.root is not None and _same_dir(history.root, out)
    for entry in site.index["runners"]:
        kept = history.data_js(entry["key"], ARCHIVE_JS)
        entry["archive"] = f"bench/{entry['key']}/{ARCHIVE_JS}" if kept else None
        raw = history.data_js(entry["key"])
        if raw is None:
            entry["data"] = None  # not on disk (a git history the reader did not check out)
            continue
        data_bytes += raw.stat().st_size
        if same_place:
            continue
        for name, path in (("data.js", raw), (ARCHIVE_JS, kept)):
            if path is None:
                continue
            target = out / "bench" / entry["key"] / name
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_name(f".{name}.copy.tmp")
            shutil.copyfile(path, tmp)
            os.replace(tmp, target)
        copied += 1
    if not same_place and history.changes_source:
        _write(out / "bench" / "changes.json", history.changes_source.read_bytes())

    index_blob = _js("window.BENCHTRACK_INDEX=", site.index)
    _write(dash / "data" / "index.js", index_blob)
    return BuildReport(
        out=out,
        runners=len(site.index["runners"]),
        benchmarks=site.index["benchmarks"],
        commits=len(site.index["commits"]["id"]),
        index_bytes=len(index_blob),
        group_bytes=group_bytes,
        overview_bytes=overview_bytes,
        archive_bytes=archive_bytes,
        data_js_bytes=data_bytes,
        copied_data_js=copied,
        changes=len(site.index["changes"]),
    )


def _write_groups(gdir: Path, groups: dict[str, tuple[str, str]]) -> dict[str, int]:
    """Each group payload as `gdir/<file>` (file -> its size); files of older builds removed."""
    sizes: dict[str, int] = {}
    for file, (key, text) in groups.items():
        blob = (
            "(window.BENCHTRACK_DATA=window.BENCHTRACK_DATA||{})["
            f"{orjson.dumps(key).decode()}]={text};\n"
        ).encode()
        _write(gdir / file, blob)
        sizes[file] = len(blob)
    for stale in gdir.glob("*.js"):
        if stale.name not in groups:
            stale.unlink()
    return sizes


def _same_dir(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False
