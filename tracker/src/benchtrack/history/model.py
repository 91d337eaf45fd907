"""The history as readers want it: runner sizes -> benchmark series -> points.

Built from checked data.js files (format.DataJs) column by column: one numpy array per field
per series, never an object per point. Parsing the JSON is most of a cold read (2,000 commits x
150 benchmarks x 3 runner sizes: ~4 s of CPU on a loaded 2-core box, 1.5 s of it orjson alone);
history.cache keeps these columns per data.js digest, so re-reading unchanged files takes
~0.5 s (tracker/bench/bench_tracker.py measures both). Values are never mixed across runner sizes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import orjson

from benchtrack.history.extra import parse_many, parse_ranges
from benchtrack.history.format import SMALLER_SUFFIX, SMALLER_TOOL, DataJs

_KEY_CPUS = re.compile(r"^(.*)-(\d+)cpu$")


@dataclass(frozen=True, slots=True)
class CommitInfo:
    id: str
    message: str
    timestamp: str
    url: str
    author: str

    @property
    def short(self) -> str:
        return self.id[:8]


@dataclass(frozen=True, slots=True)
class Point:
    """One measurement of one benchmark at one commit on one runner size."""

    commit: CommitInfo
    date: int  # ms since the epoch, when it was recorded
    value: float
    spread: float  # half the ci width, else the `± x` of `range`; NaN if neither
    ci: tuple[float, float]  # from `extra`; NaNs if absent
    samples: int  # from `extra`; -1 if absent


@dataclass(slots=True)
class Series:
    """One benchmark on one runner size, in history order. Arrays are aligned by point."""

    name: str
    unit: str
    direction: str  # "bigger" or "smaller" (is better)
    suite: str
    commit_index: np.ndarray  # int32 indices into RunnerHistory.commits
    date: np.ndarray  # int64 ms
    value: np.ndarray  # float64
    spread: np.ndarray  # float64: half the ci width, else the `± x` of range, else NaN
    ci_lo: np.ndarray  # float64, NaN where unknown
    ci_hi: np.ndarray
    samples: np.ndarray  # int32, -1 where unknown
    commits: list[CommitInfo] = field(repr=False)

    def __len__(self) -> int:
        return len(self.value)

    def points(self) -> list[Point]:
        return [
            Point(
                self.commits[c],
                int(d),
                float(v),
                float(s),
                (float(lo), float(hi)),
                int(n),
            )
            for c, d, v, s, lo, hi, n in zip(
                self.commit_index,
                self.date,
                self.value,
                self.spread,
                self.ci_lo,
                self.ci_hi,
                self.samples,
                strict=True,
            )
        ]


@dataclass(slots=True)
class RunnerHistory:
    """One runner size (`bench/<key>/data.js`)."""

    key: str
    label: str
    cpus: int  # -1 when neither `extra` nor the key says
    commits: list[CommitInfo]  # every commit recorded, in order of first appearance
    series: dict[str, Series]  # by benchmark name
    entries: dict[str, int]  # entry name -> number of entries (runs) recorded

    @property
    def names(self) -> list[str]:
        return sorted(self.series)


@dataclass(slots=True)
class History:
    source: str
    runners: dict[str, RunnerHistory]  # by runner key, sorted

    def series(self, name: str) -> dict[str, Series]:
        """One benchmark on every runner size that has it (the scaling view)."""
        return {k: r.series[name] for k, r in self.runners.items() if name in r.series}

    @property
    def names(self) -> list[str]:
        return sorted({n for r in self.runners.values() for n in r.series})


def build_runner(key: str, parsed: DataJs) -> RunnerHistory:
    """Columns of a checked data.js, grouped per benchmark name."""
    entries = parsed.data["entries"]
    rows: list[list[str]] = []  # commits as (id, message, timestamp, url, author)
    commit_at: dict[str, int] = {}
    n = len(parsed.benches)
    point_commit = np.empty(n, dtype=np.int32)
    point_date = np.empty(n, dtype=np.int64)
    smaller_names: set[str] = set()
    for entry_name, runs in entries.items():
        spans = parsed.spans[entry_name]
        smaller = entry_name.endswith(SMALLER_SUFFIX)
        for entry, (lo, hi) in zip(runs, spans, strict=True):
            c = entry["commit"]
            index = commit_at.get(c["id"])
            if index is None:
                index = commit_at[c["id"]] = len(rows)
                author = c.get("author")
                rows.append(
                    [
                        c["id"],
                        c.get("message", ""),
                        c.get("timestamp", ""),
                        c.get("url") or "",
                        author.get("name", "") if isinstance(author, dict) else "",
                    ]
                )
            point_commit[lo:hi] = index
            point_date[lo:hi] = int(entry["date"])
            if smaller or entry.get("tool") == SMALLER_TOOL:
                smaller_names.update(b["name"] for b in parsed.benches[lo:hi])
    # The few strings kept (commits, names, units) are copied out of the parse tree: objects
    # left behind in it would pin its memory arenas, and the next file's tree would come on top.
    commits = [CommitInfo(*row) for row in _fresh(rows)]
    benches = parsed.benches
    names = parsed.names
    values = np.array(parsed.values, dtype=np.float64)
    extras = parse_many(parsed.extras)
    # The spread is half the ci's width (`range` is that, rounded for the tooltip): parse the
    # `range` strings only where a point has no ci, which saves a conversion per point.
    spread = (extras.ci_hi - extras.ci_lo) / 2
    missing = np.flatnonzero(np.isnan(spread))
    if len(missing):
        spread[missing] = parse_ranges([benches[i].get("range", "") for i in missing])
    # Group point indices by name, keeping history order inside each group (stable sort).
    order_names = _fresh(sorted(set(names)))
    code_of = {name: i for i, name in enumerate(order_names)}
    codes = np.array([code_of[x] for x in names], dtype=np.int32)
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(len(order_names) + 1))
    units = _fresh([benches[int(order[b])]["unit"] for b in bounds[:-1]])
    series: dict[str, Series] = {}
    for i, name in enumerate(order_names):
        idx = order[bounds[i] : bounds[i + 1]]
        series[name] = Series(
            name=name,
            unit=units[i],
            direction="smaller" if name in smaller_names else "bigger",
            suite=name.split("/", 1)[0],
            commit_index=point_commit[idx],
            date=point_date[idx],
            value=values[idx],
            spread=spread[idx],
            ci_lo=extras.ci_lo[idx],
            ci_hi=extras.ci_hi[idx],
            samples=extras.samples[idx],
            commits=commits,
        )
    label, cpus = _runner_size(key, [extras.label], extras.cpus[:1])
    return RunnerHistory(
        key=key,
        label=label,
        cpus=cpus,
        commits=commits,
        series=series,
        entries=_fresh({name: len(runs) for name, runs in entries.items()}),
    )


def _fresh(value: Any) -> Any:
    """A copy of strings, lists and dicts in new objects, allocated side by side."""
    return orjson.loads(orjson.dumps(value))


def _runner_size(key: str, labels: list[str], cpus: np.ndarray) -> tuple[str, int]:
    """The runner's label and vCPUs: from `extra`, else from the key `<label>-<n>cpu`."""
    match = _KEY_CPUS.match(key)
    label = labels[0] if labels and labels[0] else (match.group(1) if match else key)
    if len(cpus) and cpus[0] > 0:
        return label, int(cpus[0])
    return label, int(match.group(2)) if match else -1
