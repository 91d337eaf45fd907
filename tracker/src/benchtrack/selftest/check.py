"""Judge the gate's verdicts on the self-test branch against the slowdowns it was given.

Each slowed benchmark must have a series "regressed" if its designed loss is at least REQUIRED
(below that its verdict is shown, not judged), and must never be shown improved while its wall
time lost that much; every other benchmark must have no series "regressed". And a counted
benchmark that regressed must have the function doing the extra work (its patch's `where`) among
the top functions the gate names for it (benchtrack.gate.function_diff): the first place the PR
comment says to look.
"""

from __future__ import annotations

import fnmatch
import math
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from benchtrack.errors import EXIT_BENCHMARK_FAILED, EXIT_OK, EXIT_REGRESSION, BadInput
from benchtrack.gate import comment
from benchtrack.gate.config import split_key
from benchtrack.gate.outcome import Outcome, Row
from benchtrack.selftest.patches import Slow
from benchtrack.stats import REGRESSED

SCHEMA = "benchtrack.gate-selftest/1"
REQUIRED = 0.10  # the loss the gate must catch (the bar); smaller ones are reported


@dataclass(frozen=True)
class Line:
    benchmark: str  # the gate's series key, or the glob that matched nothing
    loss: float | None  # designed throughput loss; None: not slowed
    change: float  # measured throughput change (head/base - 1 in throughput terms); nan: none
    lo: float
    hi: float
    verdict: str | None  # None: not measured
    ok: bool
    note: str = ""
    kind: str = ""  # the other kind's change (a blocking call, ...); "" for more work
    primary: bool = True  # the benchmark's wall-time series (or its only one)
    caught: bool = False  # any series of the benchmark regressed
    disagrees: bool = False  # this series says better where another says worse
    top: str = ""  # the gate's top functions for it (a counted benchmark that regressed)
    # its diagnosis (gate/diagnose/): the kind named first ("" none, or "failed", "not run"),
    # and the kind its patch declares (shown, not judged: the verdicts decide the pass)
    diagnosed: str = ""
    declared: str = ""

    @property
    def required(self) -> bool:
        return self.primary and self.loss is not None and self.loss >= REQUIRED - 1e-9


@dataclass
class Report:
    base: str
    head: str
    lines: list[Line]  # the slowed benchmarks, then any unslowed one that failed
    unslowed: int  # gating series not slowed (each must not be regressed)
    gate_exit: int
    broken: list[str] = field(default_factory=list)  # suites or benchmarks that failed to run

    @property
    def passed(self) -> bool:
        return all(line.ok for line in self.lines) and any(
            line.loss is not None and line.verdict is not None for line in self.lines
        )

    @property
    def exit_code(self) -> int:
        if self.broken:
            return EXIT_BENCHMARK_FAILED
        return EXIT_OK if self.passed else EXIT_REGRESSION

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "base": self.base,
            "head": self.head,
            "required_loss": REQUIRED,
            "gate_exit": self.gate_exit,
            "exit_code": self.exit_code,
            "passed": self.passed,
            "unslowed": self.unslowed,
            "broken": self.broken,
            "lines": [
                {k: (None if isinstance(x, float) and math.isnan(x) else x) for k, x in d.items()}
                | {"required": line.required}
                for line, d in ((line, asdict(line)) for line in self.lines)
            ],
        }


def throughput(change: float, direction: str) -> float:
    """A row's change as a throughput change: instructions per element are smaller-is-better,
    so +11.1% of them is -10% of throughput."""
    if direction != "smaller" or math.isnan(change):
        return change
    return 1 / (1 + change) - 1 if change > -1 else math.inf


def load(path: Path, base: str, head: str) -> Outcome:
    """The gate's gate.json, read by the same checks as a PR's artifact, and of this run."""
    if not path.is_file():
        raise BadInput(path, None, "the gate's gate.json (the gate wrote none)")
    outcome = comment.load(path)
    for side, sha in (("base", base), ("head", head)):
        got = outcome.meta[side]["sha"]
        if got != sha:
            raise BadInput(path, f"{side}.sha", f"{sha} (this self-test's {side})", got)
    return outcome


def judge(
    outcome: Outcome, slows: list[Slow], *, restricted: bool, gate_exit: int, base: str, head: str
) -> Report:
    """Check every row against the slowdowns. A slowed benchmark is caught when any of its
    series is regressed (its wall time, or the instructions or CPU time beside it); its other
    series are listed for their measured change. `restricted` (--suite/--filter): a slowed
    benchmark the gate did not measure is noted, not failed."""
    lines: list[Line] = []
    unslowed = 0
    matched: set[str] = set()
    regressed = {split_key(r.name)[0] for r in outcome.regressions}
    improved = {split_key(r.name)[0] for r in outcome.improvements}
    functions = outcome.meta.get("functions", {})
    diagnoses = outcome.meta.get("diagnosis", {})
    for row in outcome.rows:
        name = split_key(row.name)[0]
        slow = next((s for s in slows if fnmatch.fnmatchcase(name, s.glob)), None)
        if slow is None:
            unslowed += row.primary
            if row.verdict == REGRESSED:
                lines.append(_line(row, None, ok=False, note="not slowed, yet regressed"))
            continue
        matched.add(slow.glob)
        caught = name in regressed
        if not row.primary:
            line = _line(row, slow, ok=True, caught=caught, note="second series")
            lines.append(_named(line, row, slow, functions))
            continue
        line = _line(row, slow, ok=True, caught=caught)
        if line.required and not caught:
            line = _line(row, slow, ok=False, note=f"a loss ≥ {REQUIRED:.0%} not flagged")
        elif name in improved and line.change <= -REQUIRED:
            line = _line(row, slow, ok=False, caught=caught, note="shown improved, yet lost")
        lines.append(_diagnosed(_named(line, row, slow, functions), row, slow, diagnoses))
    for s in slows:
        if s.glob not in matched:
            note = "not measured" + (" (--suite/--filter)" if restricted else ": renamed?")
            nan = math.nan
            lines.append(
                Line(s.glob, s.loss, nan, nan, nan, None, ok=restricted, note=note, kind=s.wait)
            )
    broken = [f"{f.suite} failed to {f.what} on the {f.side} side" for f in outcome.suite_failures]
    broken += [f"{n} failed on {side}" for side, errs in outcome.failed.items() for n in errs]
    if gate_exit == EXIT_BENCHMARK_FAILED and not broken:
        broken.append("the gate exited 3")
    lines.sort(key=lambda line: (line.loss is None, -(line.loss or 0), line.benchmark))
    return Report(base, head, lines, unslowed, gate_exit, broken)


def _diagnosed(line: Line, row: Row, slow: Slow, diagnoses: dict[str, Any]) -> Line:
    """The kind the gate's diagnosis named first for a slowed benchmark's wall time."""
    entry = diagnoses.get(row.name) if row.primary else None
    if entry is None:
        return replace(line, declared=slow.diagnosis)
    kinds = entry.get("kinds") or [{}]
    named = kinds[0].get("kind", "") if entry.get("status") == "ok" else entry.get("status", "")
    return replace(line, diagnosed=named, declared=slow.diagnosis)


def _named(line: Line, row: Row, slow: Slow, functions: dict[str, Any]) -> Line:
    """A counted benchmark that regressed: are the functions doing the extra work among the top
    ones the gate names for it?"""
    if row.verdict != REGRESSED or not row.unit.startswith("instructions/") or not slow.where:
        return line
    top = [f["function"] for f in functions.get(row.name, {}).get("functions", [])]
    named = any(w in f for f in top for w in slow.where)
    note = "" if named else f"its top functions name none of {', '.join(slow.where)}"
    return replace(line, top=" · ".join(top), ok=line.ok and named, note=line.note or note)


def _line(row: Row, slow: Slow | None, *, ok: bool, caught: bool = False, note: str = "") -> Line:
    ends = sorted((throughput(row.lo, row.direction), throughput(row.hi, row.direction)))
    change = throughput(row.change, row.direction)
    loss, kind = (slow.loss, slow.wait) if slow else (None, "")
    return Line(
        row.name,
        loss,
        change,
        ends[0],
        ends[1],
        row.verdict,
        ok,
        note,
        kind,
        row.primary,
        caught,
        row.disagrees,
    )
