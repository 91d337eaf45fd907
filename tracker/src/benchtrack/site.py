"""Build the gh-pages dashboard from a history (`benchtrack site HISTORY --out DIR`).

The published site is the static source in `gh-pages/src/` plus the vendored chart library (uPlot,
from `gh-pages/node_modules`, locked by `gh-pages/package-lock.json`) plus a compact index derived
from the history, written beside `bench/`:

    OUT/index.html                      the dashboard (opens from file:// and from GitHub Pages)
    OUT/dashboard/app.js, style.css     its code
    OUT/dashboard/vendor/uPlot.*        the chart library, copied from node_modules
    OUT/dashboard/data/index.js         window.BENCHTRACK_INDEX: runners, commits (deduplicated
                                        across runners), suites/groups/benchmarks, latest values,
                                        change markers (from bench/changes.json when present)
    OUT/dashboard/data/g/<group>.js     one per suite/group, loaded lazily when the group scrolls
                                        into view: per benchmark and runner, delta-coded commit
                                        indices, values (6 significant digits) and range half-widths
    OUT/bench/<runner-key>/data.js      untouched when OUT is the history itself; a byte copy
                                        otherwise, so the site is whole

Data files are JavaScript (`window.X = {...}`) because a page opened from file:// cannot fetch()
JSON in Chromium, but it can load a <script>. A `data.js` is never rewritten.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import shutil
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson

from benchtrack.errors import BadInput
from benchtrack.fsutil import atomic_write

SCHEMA = "benchtrack.site/1"
SUITE_ORDER = ("rust", "python", "perl")
SMALLER_SUFFIX = " (smaller is better)"
_RANGE_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_CPUS_IN_KEY = re.compile(r"-(\d+)cpu$")
_SLUG = re.compile(r"[^a-z0-9._-]+")
_VENDOR = {
    "uplot/dist/uPlot.iife.min.js": "uPlot.iife.min.js",
    "uplot/dist/uPlot.min.css": "uPlot.min.css",
    "uplot/LICENSE": "uPlot.LICENSE.txt",
}


def default_source() -> Path:
    """The dashboard's source tree: `gh-pages/` at the repository root (or $BENCHTRACK_SITE_SRC)."""
    env = os.environ.get("BENCHTRACK_SITE_SRC")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[3] / "gh-pages"


# --------------------------------------------------------------------------------------------
# Reading the history


@dataclass
class RunnerData:
    """One runner size's `data.js`, parsed (`window.BENCHMARK_DATA`)."""

    key: str
    data: Mapping[str, Any]
    raw_path: Path | None = None  # the data.js on disk, when there is one to copy


@dataclass
class History:
    runners: list[RunnerData]
    root: Path | None  # the history directory (None for a history that is not on disk)
    changes: list[dict[str, Any]] = field(default_factory=list)
    changes_source: str | None = None


def read_history(spec: str) -> History:
    """Read every runner's data.js (and bench/changes.json) of a history directory or git branch."""
    try:
        from benchtrack import history as history_mod  # the history store's reader
    except ModuleNotFoundError:
        history_mod = None
    if history_mod is not None and hasattr(history_mod, "open_store"):
        store = history_mod.open_store(spec)
        root = _store_root(store, spec)
        runners = [RunnerData(key, data, raw) for key, data, raw in _store_runners(store, root)]
    else:
        root = Path(spec)
        if not root.is_dir():
            raise BadInput(spec, None, "a history directory")
        runners = [_read_data_js(path) for path in sorted(root.glob("bench/*/data.js"))]
    if not runners:
        where = root / "bench" if root else spec
        raise BadInput(where, None, "at least one bench/<runner-key>/data.js")
    changes, source = _read_changes(root) if root else ([], None)
    return History(runners=runners, root=root, changes=changes, changes_source=source)


def _read_data_js(path: Path) -> RunnerData:
    text = path.read_text(encoding="utf-8").strip()
    prefix = "window.BENCHMARK_DATA ="
    if not text.startswith(prefix):
        raise BadInput(path, None, f"a file starting with {prefix!r}", text[:40])
    try:
        data = orjson.loads(text[len(prefix) :].strip().rstrip(";"))
    except orjson.JSONDecodeError as error:
        raise BadInput(path, None, "valid JSON after the prefix", str(error)) from error
    return RunnerData(path.parent.name, data, path)


def _store_root(store: Any, spec: str) -> Path | None:
    for attr in ("root", "path", "directory", "dir"):
        value = getattr(store, attr, None)
        if isinstance(value, (str, Path)) and Path(value).is_dir():
            return Path(value)
    return Path(spec) if Path(spec).is_dir() else None


def _store_runners(store: Any, root: Path | None) -> Iterable[tuple[str, Mapping[str, Any], Path]]:
    read = store.read()
    items = read.items() if isinstance(read, Mapping) else read
    for item in items:
        key, data = item if isinstance(item, tuple) else (item.key, item)
        if not isinstance(data, Mapping):
            data = _to_mapping(data)
        raw = root / "bench" / key / "data.js" if root else None
        yield key, data, raw if raw is not None and raw.is_file() else None


def _to_mapping(obj: Any) -> Mapping[str, Any]:
    for attr in ("to_dict", "as_dict", "to_json_obj"):
        fn = getattr(obj, attr, None)
        if callable(fn):
            return fn()
    data = getattr(obj, "data", None)
    if isinstance(data, Mapping):
        return data
    raise TypeError(f"cannot read history item {type(obj).__name__}")


def _read_changes(root: Path) -> tuple[list[dict[str, Any]], str | None]:
    """Change points flagged by `detect`: a list of {series, runner, commit, change, direction}."""
    for path in (root / "bench" / "changes.json", root / "changes.json"):
        if not path.is_file():
            continue
        try:
            doc = orjson.loads(path.read_bytes())
        except orjson.JSONDecodeError as error:
            raise BadInput(path, None, "valid JSON", str(error)) from error
        items = doc.get("changes", []) if isinstance(doc, dict) else doc
        if not isinstance(items, list):
            raise BadInput(path, "changes", "a list of change points", type(items).__name__)
        out = []
        for i, item in enumerate(items):
            if not isinstance(item, dict) or not all(
                isinstance(item.get(k), str) for k in ("series", "runner", "commit")
            ):
                raise BadInput(path, f"[{i}]", "an object with series, runner and commit strings")
            change = item.get("change")
            out.append(
                {
                    "series": item["series"],
                    "runner": item["runner"],
                    "commit": item["commit"],
                    "change": change if isinstance(change, (int, float)) else None,
                    "direction": str(item.get("direction") or ""),
                }
            )
        return out, str(path)
    return [], None


# --------------------------------------------------------------------------------------------
# Deriving the compact index


def parse_extra(extra: object) -> dict[str, str]:
    """`runner=local; cpus=2; samples=10; ci=1..2; suite=rust` -> dict (docs/conventions.md)."""
    out: dict[str, str] = {}
    if not isinstance(extra, str):
        return out
    for part in extra.split(";"):
        key, sep, value = part.partition("=")
        if sep:
            out[key.strip()] = value.strip()
    return out


def parse_range(text: object) -> float | None:
    """`± 3.2` -> 3.2 (the half-width github-action-benchmark shows); None when absent."""
    if isinstance(text, (int, float)) and math.isfinite(text):
        return abs(float(text))
    if not isinstance(text, str):
        return None
    match = _RANGE_NUMBER.search(text)
    return abs(float(match.group())) if match else None


def quantise(value: float, digits: int = 6) -> float | int:
    """Keep `digits` significant digits; integral values serialise without `.0`."""
    if value == 0 or not math.isfinite(value):
        return 0
    q = float(f"{value:.{digits}g}")
    return int(q) if q.is_integer() and abs(q) < 1e15 else q


def _epoch_seconds(iso: object, fallback_ms: object) -> float:
    if isinstance(iso, str):
        try:
            return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()
        except ValueError:
            pass
    return float(fallback_ms) / 1000 if isinstance(fallback_ms, (int, float)) else 0.0


def _first_line(text: object, limit: int = 300) -> str:
    line = str(text or "").strip().splitlines()[0] if str(text or "").strip() else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _author(commit: Mapping[str, Any]) -> str:
    for who in ("author", "committer"):
        person = commit.get(who)
        if isinstance(person, Mapping):
            name = person.get("name") or person.get("username")
            if name:
                return str(name)
    return ""


def _suite_rank(suite: str) -> tuple[int, str]:
    return (SUITE_ORDER.index(suite) if suite in SUITE_ORDER else len(SUITE_ORDER), suite)


def _group_file(suite: str, group: str) -> str:
    slug = _SLUG.sub("-", f"{suite}--{group}".lower()).strip("-") or "group"
    digest = hashlib.sha1(f"{suite}/{group}".encode()).hexdigest()[:6]
    return f"{slug[:60]}-{digest}.js"


@dataclass
class SiteData:
    index: dict[str, Any]
    groups: dict[str, dict[str, Any]]  # file name -> payload


def derive(history: History, now_ms: int | None = None) -> SiteData:
    """The index and per-group payloads the dashboard reads, from the parsed history."""
    runners_meta: list[dict[str, Any]] = []
    commits: dict[str, dict[str, Any]] = {}
    # benchmark name -> metadata and per runner {commit id: (value, range)}
    benches: dict[str, dict[str, Any]] = {}
    last_update = 0
    repo_url = ""
    for runner in history.runners:
        data = runner.data
        entries = data.get("entries")
        if not isinstance(entries, Mapping):
            raise BadInput(runner.raw_path or runner.key, "entries", "an object of entry names")
        last_update = max(last_update, int(data.get("lastUpdate") or 0))
        repo_url = repo_url or str(data.get("repoUrl") or "")
        label, cpus, points = None, None, 0
        for entry_name, runs in entries.items():
            if not isinstance(runs, list):
                raise BadInput(runner.raw_path or runner.key, f"entries.{entry_name}", "a list")
            smaller_entry = entry_name.endswith(SMALLER_SUFFIX)
            for run in runs:
                commit = run.get("commit") or {}
                cid = str(commit.get("id") or "")
                if not cid:
                    continue
                smaller = smaller_entry or run.get("tool") == "customSmallerIsBetter"
                if cid not in commits:
                    commits[cid] = {
                        "id": cid,
                        "msg": _first_line(commit.get("message")),
                        "author": _author(commit),
                        "t": _epoch_seconds(commit.get("timestamp"), run.get("date")),
                        "url": str(commit.get("url") or ""),
                        "date": int(run.get("date") or 0),
                    }
                for bench in run.get("benches") or []:
                    name = bench.get("name")
                    value = bench.get("value")
                    if not isinstance(name, str) or not isinstance(value, (int, float)):
                        continue
                    extra = parse_extra(bench.get("extra"))
                    label = label or extra.get("runner")
                    if cpus is None and extra.get("cpus", "").isdigit():
                        cpus = int(extra["cpus"])
                    parts = name.split("/")
                    suite = extra.get("suite") or parts[0]
                    meta = benches.setdefault(
                        name,
                        {
                            "name": name,
                            "suite": suite,
                            "group": parts[1] if len(parts) > 2 else "",
                            "variant": "/".join(parts[2:]) if len(parts) > 2 else parts[-1],
                            "unit": str(bench.get("unit") or ""),
                            "dir": "smaller" if smaller else "bigger",
                            "series": {},
                        },
                    )
                    series = meta["series"].setdefault(runner.key, {})
                    series[cid] = (float(value), parse_range(bench.get("range")))
                    points += 1
        if cpus is None:
            match = _CPUS_IN_KEY.search(runner.key)
            cpus = int(match.group(1)) if match else None
        if label is None:
            label = _CPUS_IN_KEY.sub("", runner.key)
        runners_meta.append(
            {
                "key": runner.key,
                "label": label,
                "cpus": cpus,
                "points": points,
                "data": f"bench/{runner.key}/data.js",
                "lastUpdate": int(data.get("lastUpdate") or 0),
            }
        )
    runners_meta.sort(key=lambda r: (r["cpus"] if r["cpus"] is not None else 1 << 30, r["key"]))

    order = sorted(commits.values(), key=lambda c: (c["t"], c["date"]))
    position = {c["id"]: i for i, c in enumerate(order)}
    commit_table = {
        "id": [c["id"] for c in order],
        "msg": [c["msg"] for c in order],
        "author": [c["author"] for c in order],
        "t": [int(round(c["t"])) for c in order],
        "url": [c["url"] for c in order],
    }

    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for meta in benches.values():
        groups.setdefault((meta["suite"], meta["group"]), []).append(meta)

    suites: dict[str, list[dict[str, Any]]] = {}
    payloads: dict[str, dict[str, Any]] = {}
    runner_keys = [r["key"] for r in runners_meta]
    for (suite, group), metas in sorted(groups.items(), key=lambda kv: (_suite_rank(kv[0][0]), kv[0][1])):
        file = _group_file(suite, group)
        payload: dict[str, Any] = {}
        listed = []
        for meta in sorted(metas, key=lambda m: m["name"]):
            per_runner: dict[str, Any] = {}
            last: dict[str, Any] = {}
            for key in runner_keys:
                series = meta["series"].get(key)
                if not series:
                    continue
                pts = sorted((position[cid], v, r) for cid, (v, r) in series.items())
                deltas, prev = [], 0
                for idx, _, _ in pts:
                    deltas.append(idx - prev)
                    prev = idx
                per_runner[key] = [
                    deltas,
                    [quantise(v) for _, v, _ in pts],
                    [quantise(r, 3) if r is not None else None for _, _, r in pts],
                ]
                idx, v, r = pts[-1]
                before = pts[-2][1] if len(pts) > 1 else None
                last[key] = [
                    idx,
                    quantise(v),
                    quantise(r, 3) if r is not None else None,
                    quantise(before) if before is not None else None,
                ]
            payload[meta["name"]] = per_runner
            listed.append(
                {
                    "name": meta["name"],
                    "variant": meta["variant"],
                    "unit": meta["unit"],
                    "dir": meta["dir"],
                    "runners": list(per_runner),
                    "last": last,
                }
            )
        payloads[file] = {"key": f"{suite}/{group}", "benches": payload}
        suites.setdefault(suite, []).append(
            {"name": group, "key": f"{suite}/{group}", "file": file, "benches": listed}
        )

    changes = []
    for change in history.changes:
        if change["commit"] in position and change["series"] in benches:
            changes.append({**change, "i": position[change["commit"]]})

    index = {
        "schema": SCHEMA,
        "generated": now_ms if now_ms is not None else int(time.time() * 1000),
        "lastUpdate": last_update,
        "repoUrl": repo_url,
        "runners": runners_meta,
        "commits": commit_table,
        "suites": [{"name": s, "groups": g} for s, g in suites.items()],
        "changes": changes,
        "benchmarks": len(benches),
    }
    return SiteData(index=index, groups=payloads)


# --------------------------------------------------------------------------------------------
# Writing the site


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
    data_js_bytes: int
    copied_data_js: int
    changes: int

    def as_dict(self) -> dict[str, Any]:
        return {k: (str(v) if isinstance(v, Path) else v) for k, v in self.__dict__.items()}


def build_site(history: History, out: Path, source: Path | None = None) -> BuildReport:
    """Write the dashboard for `history` into `out` (see the module doc for the layout)."""
    source = source or default_source()
    static = source / "src"
    if not (static / "index.html").is_file():
        raise BadInput(static, "index.html", "the dashboard source (gh-pages/src/index.html)")
    vendor_src = source / "node_modules"
    missing = [rel for rel in _VENDOR if not (vendor_src / rel).is_file()]
    if missing:
        raise BadInput(
            vendor_src / missing[0],
            None,
            "the chart library installed by `npm ci --prefix gh-pages` (cargo make dashboard-deps)",
        )
    site = derive(history)
    out.mkdir(parents=True, exist_ok=True)
    dash = out / "dashboard"

    # Static files: index.html at the top, everything else under dashboard/.
    for path in sorted(static.rglob("*")):
        if path.is_dir():
            continue
        rel = path.relative_to(static)
        target = out / rel if rel == Path("index.html") else dash / rel
        atomic_write(target, path.read_bytes())
    for rel, name in _VENDOR.items():
        atomic_write(dash / "vendor" / name, (vendor_src / rel).read_bytes())

    # Group payloads first, the index last: a reader never sees an index naming a missing file.
    gdir = dash / "data" / "g"
    group_bytes = 0
    for file, payload in site.groups.items():
        blob = _js(f"(window.BENCHTRACK_DATA=window.BENCHTRACK_DATA||{{}})[{orjson.dumps(payload['key']).decode()}]=", payload["benches"])
        atomic_write(gdir / file, blob)
        group_bytes += len(blob)
        for suite in site.index["suites"]:
            for group in suite["groups"]:
                if group["file"] == file:
                    group["bytes"] = len(blob)
    for stale in gdir.glob("*.js"):
        if stale.name not in site.groups:
            stale.unlink()

    # data.js: never rewritten; copied byte for byte when the site is built elsewhere.
    copied = 0
    data_bytes = 0
    same_place = history.root is not None and _same_dir(history.root, out)
    for runner in history.runners:
        if runner.raw_path is not None:
            data_bytes += runner.raw_path.stat().st_size
        if same_place:
            continue
        target = out / "bench" / runner.key / "data.js"
        if runner.raw_path is not None:
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_name(".data.js.copy.tmp")
            shutil.copyfile(runner.raw_path, tmp)
            os.replace(tmp, target)
            copied += 1
        else:
            for entry in site.index["runners"]:
                if entry["key"] == runner.key:
                    entry["data"] = None
    if not same_place and history.changes_source:
        atomic_write(out / "bench" / "changes.json", Path(history.changes_source).read_bytes())

    index_blob = _js("window.BENCHTRACK_INDEX=", site.index)
    atomic_write(dash / "data" / "index.js", index_blob)
    return BuildReport(
        out=out,
        runners=len(site.index["runners"]),
        benchmarks=site.index["benchmarks"],
        commits=len(site.index["commits"]["id"]),
        index_bytes=len(index_blob),
        group_bytes=group_bytes,
        data_js_bytes=data_bytes,
        copied_data_js=copied,
        changes=len(site.index["changes"]),
    )


def _same_dir(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False
