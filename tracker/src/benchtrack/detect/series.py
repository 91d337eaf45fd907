"""Per-series points out of a history (contract 2): one series per benchmark × runner size.

A series is the benchmark's values in the order the history appended them, which is main's merge
order. Commit dates are not used for ordering: author/committer timestamps of merged commits are
not monotonic (rebases, cherry-picks), while the publish job appends in the order it ran.

What a long-lived history contains and how we treat it:
- a benchmark added or removed mid-history: its series holds only the entries that carry it;
- the same commit appended twice (a re-run of the publish job): the later entry wins;
- a non-finite or non-positive value: dropped, counted in `Series.dropped`;
- non-monotonic dates: kept in append order, counted in `Series.date_inversions`.
"""

from __future__ import annotations

import itertools
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from benchtrack.errors import BadInput

SMALLER_SUFFIX = " (smaller is better)"
SMALLER_TOOLS = frozenset({"customSmallerIsBetter"})


@dataclass(frozen=True)
class Point:
    commit: str
    date: str  # ISO 8601, the commit's timestamp (the entry's date when it has none)
    message: str
    url: str | None
    value: float


@dataclass
class Series:
    name: str
    runner: str  # the runner key, `bench/<runner-key>/`
    unit: str
    direction: str  # "bigger" or "smaller" (is better)
    points: list[Point] = field(default_factory=list)
    duplicates: int = 0
    dropped: int = 0
    date_inversions: int = 0

    @property
    def key(self) -> tuple[str, str]:
        return (self.name, self.runner)


# --- reading a history -------------------------------------------------------------------------
# `_load_entries` is the one place that touches the storage. It is a minimal reader of
# github-action-benchmark's data.js until the history package's reader lands; then it becomes a
# call to that reader and nothing else here changes.


def _parse_data_js(path: str, text: str) -> dict[str, Any]:
    body = text.strip()
    prefix = "window.BENCHMARK_DATA"
    if body.startswith(prefix):
        body = body[len(prefix) :].lstrip()
        if not body.startswith("="):
            raise BadInput(path, None, "`window.BENCHMARK_DATA = {...}`", body[:40])
        body = body[1:].strip()
    body = body.removesuffix(";").strip()
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError as error:
        raise BadInput(
            path, None, "a JSON object after `window.BENCHMARK_DATA =`", str(error)
        ) from None
    if not isinstance(data, dict) or not isinstance(data.get("entries"), dict):
        raise BadInput(path, "entries", "an object of entry name -> list of runs")
    return data


def _git(args: list[str], cwd: str | None = None) -> str:
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise BadInput(" ".join(["git", *args]), None, "a readable git ref", proc.stderr.strip())
    return proc.stdout


def _load_entries(spec: str | Path) -> dict[str, dict[str, Any]]:
    """runner key -> parsed data.js, from a directory, a local branch or `git:<url>#<branch>`."""
    spec = str(spec)
    root = Path(spec)
    if root.is_dir():
        bench = root / "bench" if (root / "bench").is_dir() else root
        out = {}
        for path in sorted(bench.glob("*/data.js")):
            out[path.parent.name] = _parse_data_js(str(path), path.read_text(encoding="utf-8"))
        if not out:
            raise BadInput(spec, None, "a history directory with bench/<runner-key>/data.js")
        return out
    if spec.startswith("git:"):
        url, _, branch = spec[4:].partition("#")
        ref, cwd = "FETCH_HEAD", None
        _git(["fetch", "--depth=1", url, branch or "gh-pages"], cwd=cwd)
    else:
        ref, cwd = spec, None
    names = _git(["ls-tree", "-r", "--name-only", ref, "--", "bench"], cwd=cwd).split()
    out = {}
    for name in sorted(n for n in names if n.endswith("/data.js") and n.count("/") == 2):
        text = _git(["show", f"{ref}:{name}"], cwd=cwd)
        out[name.split("/")[1]] = _parse_data_js(f"{spec}:{name}", text)
    if not out:
        raise BadInput(spec, None, "a directory or git ref holding bench/<runner-key>/data.js")
    return out


# --- building the series -----------------------------------------------------------------------


def _iso(commit: Mapping[str, Any], run: Mapping[str, Any]) -> str:
    stamp = commit.get("timestamp")
    if isinstance(stamp, str) and stamp:
        return stamp
    millis = run.get("date")
    if isinstance(millis, int | float):
        return datetime.fromtimestamp(millis / 1000, tz=UTC).isoformat().replace("+00:00", "Z")
    return ""


def _when(date: str) -> datetime | None:
    try:
        parsed = datetime.fromisoformat(date.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def series_from_entries(runner: str, source: str, data: Mapping[str, Any]) -> list[Series]:
    """Every series of one runner's data.js (both its bigger- and smaller-is-better entries)."""
    found: dict[tuple[str, str], Series] = {}
    for entry_name, runs in data["entries"].items():
        if not isinstance(runs, list):
            raise BadInput(source, f"entries[{entry_name!r}]", "a list of runs")
        for i, run in enumerate(runs):
            where = f"entries[{entry_name!r}][{i}]"
            commit = run.get("commit") if isinstance(run, dict) else None
            if not isinstance(commit, dict) or not isinstance(commit.get("id"), str):
                raise BadInput(source, f"{where}.commit.id", "a commit id")
            benches = run.get("benches")
            if not isinstance(benches, list):
                raise BadInput(source, f"{where}.benches", "a list of benches")
            smaller = run.get("tool") in SMALLER_TOOLS or entry_name.endswith(SMALLER_SUFFIX)
            point_meta = (commit["id"], _iso(commit, run), str(commit.get("message", "")))
            for bench in benches:
                if not isinstance(bench, dict) or not isinstance(bench.get("name"), str):
                    raise BadInput(source, f"{where}.benches[].name", "a benchmark name")
                direction = "smaller" if smaller else "bigger"
                s = found.setdefault(
                    (bench["name"], direction),
                    Series(bench["name"], runner, str(bench.get("unit", "")), direction),
                )
                value = bench.get("value")
                ok = isinstance(value, int | float) and 0 < value < float("inf")
                if not ok:
                    s.dropped += 1
                    continue
                s.points.append(Point(*point_meta, commit.get("url"), float(value)))
    for s in found.values():
        _dedupe(s)
    return sorted(found.values(), key=lambda s: (s.name, s.direction))


def _dedupe(s: Series) -> None:
    """A commit appended twice keeps its later value, at the later position."""
    last = {p.commit: i for i, p in enumerate(s.points)}
    kept = [p for i, p in enumerate(s.points) if last[p.commit] == i]
    s.duplicates = len(s.points) - len(kept)
    s.points = kept
    dates = [_when(p.date) for p in kept]
    s.date_inversions = sum(1 for a, b in itertools.pairwise(dates) if a and b and b < a)


def load_series(spec: str | Path) -> list[Series]:
    """All series of a history, runner by runner, in a stable order."""
    out: list[Series] = []
    for runner, data in sorted(_load_entries(spec).items()):
        out.extend(series_from_entries(runner, f"{spec}: bench/{runner}/data.js", data))
    return out


def runners(series: Iterable[Series]) -> list[str]:
    return sorted({s.runner for s in series})
