"""One event per change: the change points of one benchmark that are one change.

`detect` judges each series on its own: a benchmark's wall time and its instruction count
(`<name> (instructions)`, history/companion.py) are two series, and each runner size has its own.
One code change that slows a benchmark therefore shows up as several change points, a commit or
two apart where a series' resolution or its noise moved the estimate. An *event* groups them: the
change points of one benchmark (any of its series, any runner size) in the same direction (loss or
gain) whose commits lie within `WITHIN` commits of the next one, each part's figures kept.

`group` takes change points as `changes.json` entries (dicts) and the commits' order (commit ->
position, the history's order); it is used by `detect` (changes.json's `events`), the dashboard
(its Regressions list and banner) and `benchtrack confirm` (one A/B per event and runner size).
An event's id is `<benchmark>@<commit of its earliest part>:<regression|improvement>` (a loss
and a gain of one benchmark can start at one commit: on two runner sizes, or two series).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from statistics import median
from typing import Any

from benchtrack.history import companion

WITHIN = 3  # commits between neighbouring parts of one event ("a few": a step's position moves 1-2)

PART_FIELDS = ("series", "runner", "commit", "base", "change", "before", "after", "unit")


def benchmark_of(series: str) -> str:
    """`rust/walk/rayon (instructions)` -> `rust/walk/rayon`; a wall-time series is its own."""
    return companion.split(series)[0]


def _part(c: Mapping[str, Any]) -> dict[str, Any]:
    return {k: c.get(k) for k in PART_FIELDS}


def _event(benchmark: str, members: list[tuple[int, Mapping[str, Any]]]) -> dict[str, Any]:
    members.sort(key=lambda m: (m[0], m[1]["series"], m[1]["runner"]))
    first = members[0][1]
    bad = bool(first.get("regression"))
    parts = [_part(c) for _, c in members]
    # the headline change: the wall-time parts' median (what a user sees), else every part's
    own = [p["change"] for p in parts if p["series"] == benchmark and p["change"] is not None]
    every = [p["change"] for p in parts if p["change"] is not None]
    seen = [c.get("first_seen") for _, c in members if c.get("first_seen")]
    commits = list(dict.fromkeys(p["commit"] for p in parts))
    return {
        "id": f"{benchmark}@{first['commit']}:{'regression' if bad else 'improvement'}",
        "benchmark": benchmark,
        "regression": bad,
        "commit": first["commit"],
        "commits": commits,
        "runners": sorted({p["runner"] for p in parts}),
        "change": median(own or every) if (own or every) else None,
        "first_seen": min(seen) if seen else None,
        "parts": parts,
    }


def group(
    changes: Iterable[Mapping[str, Any]], position: Mapping[str, int], within: int = WITHIN
) -> list[dict[str, Any]]:
    """The events of `changes`, newest (latest earliest commit) first. A change whose commit has
    no position is left out (it is not in the history being shown)."""
    by_key: dict[tuple[str, bool], list[tuple[int, Mapping[str, Any]]]] = {}
    for c in changes:
        at = position.get(c.get("commit", ""))
        if at is None:
            continue
        key = (benchmark_of(c["series"]), bool(c.get("regression")))
        by_key.setdefault(key, []).append((at, c))
    events: list[tuple[int, dict[str, Any]]] = []
    for (benchmark, _), members in by_key.items():
        members.sort(key=lambda m: m[0])
        run = [members[0]]
        for m in members[1:]:
            if m[0] - run[-1][0] <= within:
                run.append(m)
            else:
                events.append((run[0][0], _event(benchmark, run)))
                run = [m]
        events.append((run[0][0], _event(benchmark, run)))
    events.sort(key=lambda e: (-e[0], e[1]["benchmark"], e[1]["regression"]))
    return [e for _, e in events]


def span(event: Mapping[str, Any], runner: str) -> tuple[str, str] | None:
    """(base, head) of the A/B that checks `event` on `runner`: the commit before its earliest
    part there and its latest part's commit there (parts are in history order); None when the
    event has no part on that runner or the part does not name its base."""
    parts = [p for p in event["parts"] if p["runner"] == runner]
    if not parts or not parts[0].get("base"):
        return None
    return parts[0]["base"], parts[-1]["commit"]
