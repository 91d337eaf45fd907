"""Deriving the dashboard's compact index and per-group payloads from a history read by
dashboard/read.py: values quantised, commits deduplicated across runners, the range each series
expects its latest run in (dashboard/expected.py); each series' text is dashboard/payload.py's,
the archived history's files dashboard/archive.py's."""

from __future__ import annotations

import hashlib
import math
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
import orjson

from benchtrack.dashboard import expected, machines
from benchtrack.dashboard.events import change_events_of
from benchtrack.dashboard.payload import OVERVIEW_BUCKETS, bucket_means, quantise, series_json
from benchtrack.dashboard.read import SiteHistory
from benchtrack.history import companion

SCHEMA = "benchtrack.site/1"
_SLUG = re.compile(r"[^a-z0-9._-]+")


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
                **({"tip": True} if c.get("tip") else {}),  # detect/tip.py: to confirm
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
                per_runner.append(f"{key_json}:{series_json(pos, values, np.abs(spread))}")
                if bucket:
                    per_runner_o.append(
                        f"{key_json}:{series_json(*bucket_means(pos, values, spread, bucket, n))}"
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
    change_events = change_events_of(history, position, changes)
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
        "events": change_events,  # the change points grouped, with their confirmation
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
