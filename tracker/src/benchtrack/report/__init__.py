"""Reports of comparisons: terminal (rich), Markdown (GitHub job summaries, PR comments), JSON.

All three render the same `compare.SuiteComparison` values through the helpers here, so a number
reads the same everywhere.
"""

from __future__ import annotations

from collections.abc import Callable

from benchtrack.compare import VERDICTS, Row, SuiteComparison

_SI = ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))


def fmt_value(value: float, unit: str) -> str:
    """494995203.0 items/s -> '495 M items/s'; sizes (KB) are shown as measured."""
    if unit.endswith("/s"):
        for scale, prefix in _SI:
            if value >= scale:
                return f"{value / scale:.4g} {prefix} {unit}"
        return f"{value:.4g} {unit}"
    return f"{value:,.0f} {unit}" if value >= 100 else f"{value:.4g} {unit}"


def fmt_spread(row: Row) -> str:
    """The CI of the current value as +-% of it (the wider side)."""
    bench = row.current
    if bench is None:
        return ""
    lo, hi = bench.ci
    return f"±{max(bench.value - lo, hi - bench.value) / bench.value * 100:.1f}%"


def fmt_change(row: Row) -> str:
    if row.change is None:
        return row.note or ""
    lo, hi = row.change.ratio_ci
    return f"{row.change.percent:+.1f}% [{(lo - 1) * 100:+.1f}, {(hi - 1) * 100:+.1f}]"


def summary(comparison: SuiteComparison, name: Callable[[str], str] = str) -> str:
    """One line of counts; `name` shows the suite and the runner key (Markdown: as code)."""
    counts = comparison.counts()
    parts = [f"{counts[v]} {v}" for v in VERDICTS if counts[v]]
    head = comparison.head_commit or comparison.base_commit
    commits = (
        f"{comparison.base_commit.id[:7]}..{head.id[:7]}"
        if comparison.base_commit and head
        else (f"{head.id[:7]} (no previous run)" if head else "")
    )
    return (
        f"{name(comparison.suite)} on {name(comparison.runner_key)}, {commits}: "
        f"{len(comparison.rows)} "
        f"benchmarks: {', '.join(parts) or 'none'} (threshold {comparison.threshold * 100:g}%)"
    )


def overall(comparisons: list[SuiteComparison]) -> str:
    regressed = sum(c.counts()["regressed"] for c in comparisons)
    failed = sum(c.counts()["failed"] for c in comparisons)
    total = sum(len(c.rows) for c in comparisons)
    if failed:
        verdict = f"{failed} failed to run"
    elif regressed:
        verdict = f"{regressed} regressed beyond the threshold"
    else:
        verdict = "no regression"
    return f"{total} benchmarks in {len(comparisons)} suite(s): {verdict}"
