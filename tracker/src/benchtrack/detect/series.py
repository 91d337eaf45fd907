"""Per-series points out of a history (docs/architecture.md, History): one series per
benchmark × runner size.

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

import io
import itertools
import math
import tarfile
import tempfile
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from benchtrack import git
from benchtrack.errors import BadInput
from benchtrack.history import DirStore, History, open_store
from benchtrack.history import Series as HistorySeries


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


# --- reading a history through benchtrack.history ----------------------------------------------


def _open(spec: str | Path) -> History:
    """A directory, `git:<url>#<branch>`, or a branch (any ref) of the repository we are in."""
    text = str(spec)
    if text.startswith("git:") or Path(text).exists():
        return open_store(text).read()
    ok = git.run(".", "rev-parse", "--verify", "--quiet", f"{text}^{{commit}}", check=False)
    if ok.returncode != 0:
        expected = "a history directory, a branch of this repository or git:<url>#<branch>"
        raise BadInput(text, None, expected)
    # The ref's bench/ into a scratch directory, read there by the history package's reader.
    with tempfile.TemporaryDirectory(prefix="benchtrack-detect-") as tmp:
        archive = git.raw(".", "archive", "--format=tar", text, "bench")
        if archive.returncode != 0:
            raise BadInput(
                text,
                "bench/",
                "a ref holding bench/<runner>/data.js",
                archive.stderr.decode(errors="replace").strip(),
            )
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
            tar.extractall(tmp, filter="data")
        return DirStore(Path(tmp), text).read()


def _iso(commit_timestamp: str, millis: int) -> str:
    if commit_timestamp:
        return commit_timestamp
    return datetime.fromtimestamp(millis / 1000, tz=UTC).isoformat().replace("+00:00", "Z")


def _when(date: str) -> datetime | None:
    try:
        parsed = datetime.fromisoformat(date.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _series(runner: str, h: HistorySeries) -> Series:
    s = Series(h.name, runner, h.unit, h.direction)
    for ci, millis, value in zip(h.commit_index, h.date, h.value, strict=True):
        if not (math.isfinite(value) and value > 0):  # a log scale needs positive values
            s.dropped += 1
            continue
        c = h.commits[int(ci)]
        s.points.append(
            Point(c.id, _iso(c.timestamp, int(millis)), c.message, c.url or None, value)
        )
    _dedupe(s)
    return s


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
    history = _open(spec)
    return [
        _series(key, runner.series[name])
        for key, runner in sorted(history.runners.items())
        for name in sorted(runner.series)
    ]
