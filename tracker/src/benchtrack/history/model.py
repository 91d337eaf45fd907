"""The history as readers want it: runner sizes -> benchmark series -> points.

Built from checked entry batches (history.scan) column by column: one numpy array per field per
series, never an object per point. A batch is reduced to Columns before the next is decoded;
Columns of consecutive parts of a file merge in order (history.reader decodes parts in worker
processes), and `finish` groups the points per benchmark. history.cache keeps the result per
data.js digest. Values are never mixed across runner sizes."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import orjson

from benchtrack.history import scan
from benchtrack.history.extra import parse_many, parse_ranges
from benchtrack.history.format import SMALLER_SUFFIX, SMALLER_TOOL

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


@dataclass(slots=True)
class Columns:
    """Consecutive entry batches of one runner's data.js reduced to arrays, one item per
    point; `code` and `commit` index this object's own `names` and `rows`. What a worker
    process returns for its part of a file (history.reader); `merge` joins them in order."""

    rows: list[list[str]]  # commits (id, message, timestamp, url, author), first seen first
    names: list[str]  # benchmark names by code, first seen first
    units: list[str]  # by code
    smaller: np.ndarray  # codes recorded as smaller-is-better
    entries: dict[str, int]  # entry name -> entries
    label: str  # runner label and vCPUs from the first point's `extra`
    cpus: np.ndarray
    parts: dict[str, np.ndarray]  # _PARTS -> one array each


_PARTS = {
    "code": np.int32,
    "commit": np.int32,
    "date": np.int64,
    "value": np.float64,
    "spread": np.float64,  # half the ci width, else the `± x` of `range`, else NaN
    "ci_lo": np.float64,
    "ci_hi": np.float64,
    "samples": np.int32,
}


def reduce_batches(batches: Iterable[scan.Batch]) -> Columns:
    """Each batch reduced to arrays before the next one is decoded: columns, not structs."""
    out = Columns([], [], [], np.empty(0, np.int32), {}, "", np.empty(0, np.int32), {})
    commit_at: dict[str, int] = {}
    code_of: dict[str, int] = {}
    smaller: list[np.ndarray] = []
    chunks: dict[str, list[np.ndarray]] = {part: [] for part in _PARTS}
    for batch in batches:
        out.entries[batch.name] = out.entries.get(batch.name, 0) + len(batch.runs)
        benches, names = batch.benches, batch.names
        if not benches:
            continue
        at_entry, counts, dates, smaller_spans = [], [], [], []
        smaller_list = batch.name.endswith(SMALLER_SUFFIX)
        point = 0
        for entry in batch.runs:
            c = entry.commit
            author = c.author.get("name", "") if isinstance(c.author, dict) else ""
            row = [c.id, c.message, c.timestamp, c.url or "", author]
            index = _index(commit_at, c.id, out.rows, row)
            count = len(entry.benches)
            if smaller_list or entry.tool == SMALLER_TOOL:
                smaller_spans.append((point, point + count))
            at_entry.append(index)
            counts.append(count)
            dates.append(int(entry.date))
            point += count
        known = len(code_of)
        try:
            codes = np.fromiter(map(code_of.__getitem__, names), np.int32, len(names))
        except KeyError:  # names not seen before (the first batch, mostly): code them in order
            for name in dict.fromkeys(names):
                code_of.setdefault(name, len(code_of))
            codes = np.fromiter(map(code_of.__getitem__, names), np.int32, len(names))
        new_codes, first = np.unique(codes, return_index=True)
        units = [benches[i].unit for code, i in zip(new_codes, first, strict=True) if code >= known]
        out.units += units
        smaller += [codes[lo:hi] for lo, hi in smaller_spans]
        extras = parse_many([b.extra for b in benches])
        if not chunks["code"]:
            out.label, out.cpus = extras.label, extras.cpus[:1]
        # The spread is half the ci's width (`range` is that, rounded for the tooltip): parse
        # the `range` strings only where a point has no ci, which saves a conversion per point.
        spread = (extras.ci_hi - extras.ci_lo) / 2
        missing = np.flatnonzero(np.isnan(spread))
        if len(missing):
            spread[missing] = parse_ranges([benches[i].range for i in missing])
        for part, column in (
            ("code", codes),
            ("commit", np.repeat(np.array(at_entry, dtype=np.int32), counts)),
            ("date", np.repeat(np.array(dates, dtype=np.int64), counts)),
            ("value", batch.values),
            ("spread", spread),
            ("ci_lo", extras.ci_lo),
            ("ci_hi", extras.ci_hi),
            ("samples", extras.samples),
        ):
            chunks[part].append(column)
    out.names = list(code_of)
    out.smaller = np.unique(np.concatenate(smaller)) if smaller else out.smaller
    out.parts = {part: _joined(chunks[part], dtype) for part, dtype in _PARTS.items()}
    return out


def merge(pieces: list[Columns]) -> Columns:
    """The columns of consecutive parts of one file, in file order, as one."""
    out = pieces[0]
    if len(pieces) == 1:
        return out
    commit_at = {row[0]: i for i, row in enumerate(out.rows)}
    code_of = {name: i for i, name in enumerate(out.names)}
    chunks = {part: [column] for part, column in out.parts.items()}
    smaller = [out.smaller]
    has_points = len(out.parts["code"]) > 0
    for piece in pieces[1:]:
        for name, count in piece.entries.items():
            out.entries[name] = out.entries.get(name, 0) + count
        if not len(piece.parts["code"]):
            continue
        if not has_points:  # the runner's label and vCPUs come from the file's first point
            out.label, out.cpus, has_points = piece.label, piece.cpus, True
        commits = np.array([_index(commit_at, row[0], out.rows, row) for row in piece.rows])
        codes = np.array([_index(code_of, n, out.names, n) for n in piece.names], np.int32)
        out.units += [u for c, u in zip(codes, piece.units, strict=True) if c >= len(out.units)]
        smaller.append(codes[piece.smaller])
        for part, column in piece.parts.items():
            remap = {"code": codes, "commit": commits}.get(part)
            chunks[part].append(column if remap is None else remap[column].astype(np.int32))
    out.parts = {part: _joined(chunks[part], dtype) for part, dtype in _PARTS.items()}
    out.smaller = np.unique(np.concatenate(smaller))
    return out


def _index(index: dict[str, int], key: str, items: list[Any], item: Any) -> int:
    """The index of `key` in `items`, appending `item` for a key not seen before."""
    at = index.get(key)
    if at is None:
        at = index[key] = len(items)
        items.append(item)
    return at


def _joined(chunks: list[np.ndarray], dtype: Any) -> np.ndarray:
    return np.concatenate(chunks).astype(dtype, copy=False) if chunks else np.empty(0, dtype)


def finish(key: str, columns: Columns) -> RunnerHistory:
    """A runner's history from its file's columns: points grouped per benchmark name (sorted),
    history order kept inside each."""
    # The few strings kept (commits, names, units) are copied out of the decoded structs:
    # objects left behind in them would pin their memory arenas.
    commits = [CommitInfo(*row) for row in _fresh(columns.rows)]
    names, units = _fresh(columns.names), _fresh(columns.units)
    part = columns.parts
    by_name = sorted(range(len(names)), key=names.__getitem__)
    rank = np.empty(len(names), dtype=np.int32)
    rank[by_name] = np.arange(len(names), dtype=np.int32)
    ranked = rank[part["code"]]
    order = np.argsort(ranked, kind="stable")
    bounds = np.searchsorted(ranked[order], np.arange(len(names) + 1))
    smaller = set(columns.smaller.tolist())
    series: dict[str, Series] = {}
    for i, code in enumerate(by_name):
        idx = order[bounds[i] : bounds[i + 1]]
        name = names[code]
        series[name] = Series(
            name=name,
            unit=units[code],
            direction="smaller" if code in smaller else "bigger",
            suite=name.split("/", 1)[0],
            commit_index=part["commit"][idx],
            date=part["date"][idx],
            value=part["value"][idx],
            spread=part["spread"][idx],
            ci_lo=part["ci_lo"][idx],
            ci_hi=part["ci_hi"][idx],
            samples=part["samples"][idx],
            commits=commits,
        )
    label, cpus = _runner_size(key, [columns.label], columns.cpus)
    return RunnerHistory(
        key=key,
        label=label,
        cpus=cpus,
        commits=commits,
        series=series,
        entries=_fresh(columns.entries),
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


_COLUMNS = ("date", "value", "spread", "ci_lo", "ci_hi", "samples")


def combine(archive: RunnerHistory, data: RunnerHistory) -> RunnerHistory:
    """A runner's archive.js and data.js read as one history: each series' points in recording
    order (merged by date, archived first on a tie). A commit in both files (a prune cut short
    between its two writes) is taken from data.js."""
    commits = list(archive.commits)
    at = {c.id: i for i, c in enumerate(commits)}
    remap = np.array([_index(at, c.id, commits, c) for c in data.commits], dtype=np.int32)
    series: dict[str, Series] = {}
    for name in sorted(set(archive.series) | set(data.series)):
        old, new = archive.series.get(name), data.series.get(name)
        parts = [s for s in (old, new) if s is not None]
        indices = [s.commit_index for s in parts]
        if new is not None:
            indices[-1] = remap[new.commit_index]
        keep = [np.ones(len(s), dtype=bool) for s in parts]
        if old is not None and new is not None:
            keep[0] = ~np.isin(old.commit_index, indices[1])
        columns = {
            "commit_index": np.concatenate([i[k] for i, k in zip(indices, keep, strict=True)]),
            **{
                c: np.concatenate([getattr(s, c)[k] for s, k in zip(parts, keep, strict=True)])
                for c in _COLUMNS
            },
        }
        order = np.argsort(columns["date"], kind="stable")
        last = parts[-1]
        series[name] = Series(
            name,
            last.unit,
            last.direction,
            last.suite,
            **{c: column[order] for c, column in columns.items()},
            commits=commits,
        )
    entries = dict(archive.entries)
    for name, count in data.entries.items():
        entries[name] = entries.get(name, 0) + count
    cpus = data.cpus if data.cpus > 0 else archive.cpus
    return RunnerHistory(data.key, data.label, cpus, commits, series, entries)
