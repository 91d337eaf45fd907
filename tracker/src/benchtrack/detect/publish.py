"""`bench/changes.json` (schema `benchtrack.changes/1`): the change points the dashboard marks.

The file is rewritten on every publish from the whole history, but each change keeps the
`first_seen` time of the publish that first reported it, so a later run can tell what is new.
A change is "the same" as a previous one when series, runner and commit match, or — because a
step's position can move by a commit or two as points arrive after it — when series, runner and
direction match and the previous commit lies within `SAME_STEP_DISTANCE` points of the new one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from benchtrack.errors import BadInput
from benchtrack.fsutil import atomic_write

SCHEMA = "benchtrack.changes/1"
FILENAME = "changes.json"  # beside the runner directories: <history>/bench/changes.json
SAME_STEP_DISTANCE = 2


@dataclass(frozen=True)
class Change:
    series: str
    runner: str
    commit: str
    date: str
    message: str
    url: str | None
    index: int  # position of the commit in the series (0 = oldest point)
    before: float
    after: float
    change: float  # after / before - 1, signed
    direction: str  # "bigger" or "smaller" is better, the metric's
    regression: bool
    significance: float  # Welch t-test p-value (log values), the two levels
    unit: str = ""
    first_seen: str = ""
    base: str = ""  # the commit before `commit` in this series: the last at the old level

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.series, self.runner, self.commit)


def now_iso() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def newest_first(changes: Iterable[Change]) -> list[Change]:
    # Dates of merged commits are not monotonic, but they are what a reader orders by; the tie
    # breakers make the order total, so the file is byte-stable for the same history.
    ordered = sorted(changes, key=lambda c: (c.series, c.runner, c.index))
    return sorted(ordered, key=lambda c: c.date, reverse=True)


def read_previous(path: Path, field: str = "changes") -> list[dict[str, Any]]:
    """The changes of the previous publish (`field` "tip": its candidates at the tip, none in a
    file written before them); none if there was none. A damaged file stops us: rewriting it
    would reset every first_seen and report every change as new."""
    if not path.exists():
        return []
    try:
        doc = orjson.loads(path.read_bytes())
    except orjson.JSONDecodeError as error:
        raise BadInput(
            path, None, f"{SCHEMA} JSON (delete the file to start over)", str(error)
        ) from None
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise BadInput(
            path, "schema", repr(SCHEMA), doc.get("schema") if isinstance(doc, dict) else doc
        )
    changes = doc.get(field, [] if field != "changes" else None)
    if not isinstance(changes, list) or not all(isinstance(c, dict) for c in changes):
        raise BadInput(path, field, "a list of change objects")
    return changes


def merge_first_seen(
    current: Sequence[Change], previous: Sequence[dict[str, Any]], now: str
) -> tuple[list[Change], list[Change]]:
    """(all changes with first_seen set, the ones not reported before)."""
    exact = {(p.get("series"), p.get("runner"), p.get("commit")): p for p in previous}
    by_series: dict[tuple[Any, Any, Any], list[dict[str, Any]]] = {}
    for p in previous:
        by_series.setdefault((p.get("series"), p.get("runner"), p.get("direction")), []).append(p)
    merged, new = [], []
    for c in current:
        seen = exact.get(c.key)
        if seen is None:
            near = [
                p
                for p in by_series.get((c.series, c.runner, c.direction), [])
                if isinstance(p.get("index"), int)
                and abs(p["index"] - c.index) <= SAME_STEP_DISTANCE
                and (p.get("change", 0) > 0) == (c.change > 0)
            ]
            seen = min(near, key=lambda p: abs(p["index"] - c.index), default=None)
        first = seen.get("first_seen") if seen else None
        record = Change(**{**asdict(c), "first_seen": first if isinstance(first, str) else now})
        merged.append(record)
        if seen is None:
            new.append(record)
    return newest_first(merged), newest_first(new)


def document(
    changes: Sequence[Change],
    skipped: Sequence[dict[str, Any]],
    config: Any,
    now: str,
    events: Sequence[dict[str, Any]] = (),
    tip: Sequence[Change] = (),
) -> dict:
    return {
        "schema": SCHEMA,
        "generated": now,
        "method": "pelt-l2-log+welch",
        "config": asdict(config),
        "changes": [asdict(c) for c in changes],
        "events": list(events),  # detect/events.py: the changes grouped, one per change
        "tip": [asdict(c) for c in tip],  # detect/tip.py: candidates in the newest points
        "skipped": list(skipped),
    }


def write(path: Path, doc: dict) -> None:
    """Write `doc`, unless only its `generated` time differs from the file's: then `generated`
    still dates the last real change (the dashboard's "new" badges key on it) and a publish job
    with nothing new has nothing to commit."""
    if path.is_file():
        try:
            old = orjson.loads(path.read_bytes())
        except orjson.JSONDecodeError:
            old = None
        if isinstance(old, dict) and {**old, "generated": None} == {**doc, "generated": None}:
            return
    atomic_write(path, orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n")
