"""From a history to its change points: every series judged, merged with the previous publish."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from benchtrack.detect import events
from benchtrack.detect.config import Config
from benchtrack.detect.method import Step, find_steps
from benchtrack.detect.publish import FILENAME, Change, document, merge_first_seen, read_previous
from benchtrack.detect.publish import now_iso as _now
from benchtrack.detect.publish import write as _write
from benchtrack.detect.series import Series, load_series
from benchtrack.detect.tip import tip_step


@dataclass
class Report:
    changes: list[Change] = field(default_factory=list)  # newest first, first_seen filled in
    new: list[Change] = field(default_factory=list)
    # candidates at the tip (detect/tip.py): a step in a series' newest points, to confirm
    tip: list[Change] = field(default_factory=list)
    skipped: list[dict[str, Any]] = field(default_factory=list)  # series too short to judge
    series: int = 0
    notes: list[str] = field(default_factory=list)  # duplicates, dropped values, date inversions
    document: dict[str, Any] = field(default_factory=dict)


def is_regression(direction: str, change: float) -> bool:
    return change > 0 if direction == "smaller" else change < 0


def _change(s: Series, step: Step) -> Change:
    p = s.points[step.index]
    return Change(
        series=s.name,
        runner=s.runner,
        commit=p.commit,
        date=p.date,
        message=p.message,
        url=p.url,
        index=step.index,
        before=step.before,
        after=step.after,
        change=step.change,
        direction=s.direction,
        regression=is_regression(s.direction, step.change),
        significance=step.pvalue,
        unit=s.unit,
        base=s.points[step.index - 1].commit if step.index > 0 else "",
    )


def changes_of(s: Series, config: Config) -> tuple[list[Change], Change | None]:
    """(the series' change points, its candidate at the tip or None: detect/tip.py)."""
    values = [p.value for p in s.points]
    steps = find_steps(values, config)
    at_tip = tip_step(values, steps, config)
    return [_change(s, step) for step in steps], (_change(s, at_tip) if at_tip else None)


def _timestamp(iso: str) -> float:
    try:
        return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return 0.0


def changes_path(history: str | Path) -> Path | None:
    """Where a directory history keeps its changes.json (None for a git ref: pass `out`)."""
    root = Path(history)
    if not root.is_dir():
        return None
    return root / "bench" / FILENAME if (root / "bench").is_dir() else root / FILENAME


def analyse(
    history: str | Path,
    config: Config | None = None,
    *,
    out: str | Path | None = None,
    write: bool = False,
    now: str | None = None,
) -> Report:
    """Detect every series' change points; compare with the previous changes.json at `out`
    (default: beside the history) and, if `write`, replace it with the merged result."""
    config = config or Config()
    now = now or _now()
    report = Report()
    current: list[Change] = []
    tips: list[Change] = []
    # commit -> (its timestamp, first appearance): the commits' order for grouping, as the
    # dashboard orders them (derive.py: commit date, then when recorded)
    order: dict[str, tuple[float, int]] = {}
    for s in load_series(history):
        for p in s.points:
            order.setdefault(p.commit, (_timestamp(p.date), len(order)))
        report.series += 1
        if s.duplicates:
            report.notes.append(
                f"{s.runner} {s.name}: {s.duplicates} repeated commits (kept the last)"
            )
        if s.dropped:
            report.notes.append(f"{s.runner} {s.name}: {s.dropped} unusable values ignored")
        if s.date_inversions:
            report.notes.append(
                f"{s.runner} {s.name}: {s.date_inversions} dates out of order (history order used)"
            )
        if len(s.points) < config.min_points:
            report.skipped.append(
                {
                    "series": s.name,
                    "runner": s.runner,
                    "points": len(s.points),
                    "reason": f"too short to judge: {len(s.points)} points,"
                    f" need {config.min_points}",
                }
            )
            continue
        found, at_tip = changes_of(s, config)
        current.extend(found)
        tips.extend([at_tip] if at_tip else [])
    path = Path(out) if out is not None else changes_path(history)
    previous = read_previous(path) if path is not None else []
    report.changes, report.new = merge_first_seen(current, previous, now)
    before = read_previous(path, "tip") if path is not None else []
    report.tip = merge_first_seen(tips, before, now)[0]
    position = {c: i for i, c in enumerate(sorted(order, key=order.__getitem__))}
    grouped = events.group((asdict(c) for c in [*report.changes, *report.tip]), position)
    at_tip = {c.key for c in report.tip}
    for e in grouped:  # an event of tip candidates only: what detect alone cannot place yet
        e["tip"] = all((p["series"], p["runner"], p["commit"]) in at_tip for p in e["parts"])
    report.document = document(report.changes, report.skipped, config, now, grouped, report.tip)
    if write:
        if path is None:
            raise ValueError("write=True needs `out` for a history that is not a directory")
        _write(path, report.document)
    return report


def run(
    history: str | Path, *, write: bool = False, config: Config | None = None
) -> tuple[list[Change], list[Change]]:
    """(all change points, those new since the previous write) — the bench-local entry point."""
    report = analyse(history, config, write=write)
    return report.changes, report.new
