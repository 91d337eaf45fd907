"""What the lockstep checks say about each change-point event: confirmed, noise (checked) or
still a candidate; and which events a runner size has left to check."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from benchtrack.confirm import store
from benchtrack.detect.events import span
from benchtrack.gate.diagnose import check as diagnosis_check
from benchtrack.gate.diagnose import text

CONFIRMED, NOISE, CANDIDATE = "confirmed", "noise", "candidate"


def expected(event: Mapping[str, Any]) -> str:
    return "regression" if event["regression"] else "improvement"


def of(event: Mapping[str, Any], checks: Mapping[tuple[str, str, str, str], Mapping]) -> dict:
    """{status, checks, culprit} of `event` given the latest check of each key (store.latest):
    **confirmed** when a runner size's A/B found the event's direction; **noise** when every size
    that can be checked was, and none did; else a **candidate**."""
    spans = {r: span(event, r) for r in event["runners"]}
    found = {r: checks.get((event["benchmark"], r, *s)) for r, s in spans.items() if s is not None}
    done = [dict(c) for c in found.values() if c is not None]
    confirmed = [c for c in done if c["confirmed"]]
    if confirmed:
        state = CONFIRMED
    elif found and all(c is not None for c in found.values()):
        state = NOISE
    else:
        state = CANDIDATE
    culprit = next((c.get("culprit") for c in confirmed if c.get("culprit")), None)
    return {"status": state, "checks": done, "culprit": culprit}


def to_check(
    events: Iterable[Mapping[str, Any]], checks: Iterable[Mapping[str, Any]], runner: str
) -> list[tuple[Mapping[str, Any], tuple[str, str]]]:
    """(event, (base, head)) of every event with a part on `runner` whose A/B there has not been
    run, in the events' order (newest first)."""
    done = store.latest(checks)
    out = []
    for e in events:
        s = span(e, runner)
        if s is not None and (e["benchmark"], runner, *s) not in done:
            out.append((e, s))
    return out


def why(check: Mapping[str, Any], source: Path) -> str | None:
    """The gate's "Why it is slower" line of a check's first diagnosed row, as plain text (the
    dashboard sets it as text: names from the run stay inert), or None. The diagnosis is read as
    the PR comment reads a PR's: checked field by field, a bad one exit 2 naming it."""
    for i, row in enumerate(check.get("rows", [])):
        if row.get("diagnosis") is None:
            continue
        field = f"checks[event {check.get('event')!r}].rows[{i}].diagnosis"
        return text.line(diagnosis_check.entry(row["diagnosis"], source, field), plain=True)
    return None
