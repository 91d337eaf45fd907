"""How much of a runner's history stays in its data.js: `[history.retention]` of benchtrack.toml.

    [history.retention]
    keep_all_days = 90        # every entry of the newest 90 days stays in data.js
    keep_one_per = "week"     # older: per ISO week (UTC), the last entry of each benchmark

Without the table nothing is archived (every entry stays in data.js, as before there was an
archive). The days are counted back from the newest entry of the runner's data.js, not from the
clock: what is archived is a function of the file alone, so pruning is repeatable, and a runner
size that stopped publishing keeps its last `keep_all_days` in full.

Older entries are judged per benchmark, entries whole: an entry stays if it holds the last point
of its period (day, ISO week or calendar month) of any one of its benchmarks, so each benchmark
keeps a point per period even when some runs measured only some suites. The others are moved
to archive.js (history.archive), never dropped.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchtrack import config
from benchtrack.config import CONFIG_NAME
from benchtrack.errors import BadInput
from benchtrack.history.scan import Scanned

__all__ = ["CONFIG_NAME", "Retention", "load", "parse"]
DAY_MS = 86_400_000
PERIODS = ("day", "week", "month")


@dataclass(frozen=True)
class Retention:
    keep_all_days: int
    keep_one_per: str  # one of PERIODS

    def describe(self) -> str:
        days, period = self.keep_all_days, self.keep_one_per
        return f"every entry of the last {days} days, then one per {period}"


def load(path: Path, *, required: bool = False) -> Retention | None:
    """The retention `path` configures; None (keep everything) when it has no
    `[history.retention]`, or when the file is absent and not `required`."""
    missing = f"a config file ({CONFIG_NAME}, not found)" if required else None
    return parse(config.read(path, missing), str(path))


def parse(data: dict[str, Any], source: str) -> Retention | None:
    history = data.get("history")
    if history is None:
        return None
    _table(history, "history", source, {"retention"})
    table = history.get("retention")
    if table is None:
        return None
    _table(table, "history.retention", source, {"keep_all_days", "keep_one_per"})
    days = table.get("keep_all_days")
    if isinstance(days, bool) or not isinstance(days, int) or not 1 <= days <= 36_500:
        expected = "a whole number of days from 1 to 36500"
        raise BadInput(source, "history.retention.keep_all_days", expected, days)
    period = table.get("keep_one_per", "week")
    if period not in PERIODS:
        expected = f"one of {', '.join(repr(p) for p in PERIODS)}"
        raise BadInput(source, "history.retention.keep_one_per", expected, period)
    return Retention(days, period)


def _table(value: Any, where: str, source: str, keys: set[str]) -> None:
    if not isinstance(value, dict):
        raise BadInput(source, where, "a table", value)
    unknown = sorted(set(value) - keys)
    if unknown:
        raise BadInput(source, f"{where}.{unknown[0]}", f"one of the keys {sorted(keys)}")


def period_of(date_ms: float, period: str) -> tuple[int, int, int]:
    """The UTC day, ISO week or calendar month an entry's `date` falls in."""
    when = datetime.fromtimestamp(date_ms / 1000, tz=UTC)
    if period == "day":
        return (when.year, when.month, when.day)
    if period == "week":
        year, week, _ = when.isocalendar()
        return (year, week, 0)
    return (when.year, when.month, 0)


def to_archive(scanned: Scanned, retention: Retention) -> dict[str, list[int]]:
    """Entry name -> indices (ascending) of the entries of `scanned` that the retention moves
    to the archive; names with none are left out."""
    lists = scanned.doc.entries
    dates = [run.date for runs in lists.values() for run in runs]
    if not dates:
        return {}
    cutoff = max(dates) - retention.keep_all_days * DAY_MS
    out: dict[str, list[int]] = {}
    for name, runs in lists.items():
        old = [i for i, run in enumerate(runs) if run.date < cutoff]
        if not old:
            continue
        # For each period and benchmark, the last entry holding it (later ones overwrite); a
        # period the cutoff cuts through ends with a recent entry, so its old ones all move.
        last: dict[tuple[tuple[int, int, int], str], int] = {}
        for i, run in enumerate(runs):
            period = period_of(run.date, retention.keep_one_per)
            for bench in run.benches:
                last[(period, bench.name)] = i
        kept = set(last.values())
        moved = [i for i in old if i not in kept]
        if moved:
            out[name] = moved
    return out
