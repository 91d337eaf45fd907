"""The self-test's table: terminal (rich) and Markdown (selftest.md, the job summary)."""

from __future__ import annotations

import math

from rich.console import Console
from rich.table import Table

from benchtrack.gate.render import MARK, pct
from benchtrack.selftest.check import REQUIRED, Line, Report
from benchtrack.selftest.patches import Patch, divisor

HEADERS = (
    "benchmark",
    "slowdown",
    "measured change",
    "interval",
    "verdict",
    "top functions",
    "ok?",
)


def cells(line: Line) -> tuple[str, ...]:
    loss = "—" if line.loss is None else f"−{line.loss:.0%}" + ("" if line.required else " (info)")
    if line.kind and line.loss is not None:
        loss = f"{line.kind} (≥ {line.loss:.0%})" if line.primary else "(its second series)"
    measured = math.isfinite(line.change)
    interval = f"[{pct(line.lo)}, {pct(line.hi)}]" if measured else "—"
    verdict = MARK.get(line.verdict or "", "not measured")
    if line.disagrees:  # never a ✅ beside a wall time that lost
        verdict = f"⚠️ {line.verdict}, disagrees with another series"
    ok = ("ok" if line.ok else "FAIL") + (f": {line.note}" if line.note else "")
    top = (line.top or "—").replace("|", "¦")
    if line.declared:  # the diagnosis's kind, and the one the patch declares
        top += f" · diagnosed {line.diagnosed or '—'} (declared {line.declared})"
    return (line.benchmark, loss, pct(line.change) if measured else "—", interval, verdict, top, ok)


def summary(report: Report) -> str:
    if report.broken:
        state = "⚠️ the gate failed to run: " + "; ".join(report.broken[:5])
    elif report.passed:
        state = "✅ passed"
    else:
        state = "❌ failed"
    slowed = [line for line in report.lines if line.loss is not None]
    caught = sum(line.required and line.caught for line in slowed)
    required = sum(line.required for line in slowed)
    false = sum(line.loss is None for line in report.lines)
    declared = [line for line in slowed if line.declared and line.primary]
    right = sum(line.diagnosed == line.declared for line in declared)
    diagnosed = f"; the diagnosis named {right} of {len(declared)} as declared" if declared else ""
    return (
        f"{state}: {caught} of {required} slowdowns of ≥ {REQUIRED:.0%} flagged; "
        f"{false} of {report.unslowed} unslowed benchmarks regressed{diagnosed} "
        f"(base {report.base[:10]}, slowed head {report.head[:10]}, gate exit {report.gate_exit})"
    )


def terminal(report: Report, console: Console) -> None:
    table = Table(title=f"gate-selftest: {summary(report)}", title_justify="left")
    for h in HEADERS:
        table.add_column(h, justify="right" if h in ("slowdown", "measured change") else "left")
    for line in report.lines:
        table.add_row(*cells(line), style=None if line.ok else "bold red")
    console.print(table)


def markdown(report: Report) -> str:
    out = ["## benchtrack gate-selftest", "", summary(report), ""]
    out += ["| " + " | ".join(HEADERS) + " |", "|---|--:|--:|:-:|---|---|---|"]
    out += ["| " + " | ".join(cells(line)).replace("`", "'") + " |" for line in report.lines]
    out += [
        "",
        f"Slowdowns below {REQUIRED:.0%} are shown, not judged. Measured change: throughput, "
        "head against base (instruction counts converted: +11.1% instructions = −10%).",
        "",
    ]
    return "\n".join(out)


def patch_table(patches: tuple[Patch, ...], console: Console) -> None:
    """What the branch changes: file, benchmarks, designed loss, what the change does."""
    table = Table(title="gate-selftest patches", title_justify="left")
    for h in ("file", "benchmarks", "slowdown", "the change"):
        table.add_column(h)
    for p in patches:
        for i, s in enumerate(p.slows):
            k = divisor(s.loss)
            what = s.wait or f"1/{k} (+{1 / k:.1%}) more work per element"
            table.add_row(p.path if i == 0 else "", s.glob, f"≥ {s.loss:.0%}", what)
    console.print(table)
