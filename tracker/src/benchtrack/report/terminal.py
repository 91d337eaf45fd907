"""Terminal report: one rich table per suite, a one-line summary under each; NO_COLOR honoured.

On a terminal the table fits its width (long names fold). Anywhere else (a CI log, a pipe into
`less` or `grep`) each row is one line at its full width, and colours are off unless FORCE_COLOR
asks for them.
"""

from __future__ import annotations

import os
import sys

from rich.console import Console
from rich.table import Table

from benchtrack.compare import FAILED, NEW, REMOVED, SuiteComparison
from benchtrack.report import fmt_change, fmt_spread, fmt_value, overall, summary

STYLES = {
    "regressed": "bold red",
    FAILED: "bold red",
    "inconclusive": "yellow",
    "improved": "green",
    "unchanged": "dim",
    NEW: "cyan",
    REMOVED: "magenta",
}


# Wide enough for any row: a table takes only the width its content needs, never this.
UNBOUNDED = 1 << 15


def _is_tty(file: object) -> bool:
    isatty = getattr(file, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # closed
        return False


def console(stderr: bool = False) -> Console:
    file = sys.stderr if stderr else sys.stdout
    # rich would size a pipe by the terminal on stdin/stderr (or 80 columns in CI) and fold rows;
    # a log or a pipe has no width, so give it the whole row, unwrapped.
    wide = {} if _is_tty(file) else {"width": UNBOUNDED, "soft_wrap": True}
    # rich reads NO_COLOR itself; passing it keeps the rule visible here.
    return Console(
        file=file,
        no_color=bool(os.environ.get("NO_COLOR")),
        highlight=False,
        **wide,
    )


def table(comparison: SuiteComparison) -> Table:
    title = f"{comparison.suite} · {comparison.runner_key}"
    t = Table(title=title, title_justify="left", header_style="bold")
    t.add_column("benchmark", overflow="fold")
    t.add_column("throughput", justify="right", no_wrap=True)
    t.add_column("±", justify="right", no_wrap=True)
    t.add_column("change [95% CI]", justify="right", no_wrap=True)
    t.add_column("verdict", no_wrap=True)
    for row in comparison.rows:
        bench = row.current
        value = fmt_value(bench.value, bench.unit) if bench else ""
        if bench is not None and not bench.bigger_is_better:
            value += " ↓"  # smaller is better
        change = row.error if row.error is not None else fmt_change(row)
        style = STYLES.get(row.verdict, "")
        t.add_row(row.name, value, fmt_spread(row), change, f"[{style}]{row.verdict}[/]")
    return t


def render(comparisons: list[SuiteComparison], out: Console | None = None) -> None:
    out = out or console()
    for comparison in comparisons:
        out.print(table(comparison))
        out.print(summary(comparison), markup=False)
        out.print()
    if len(comparisons) > 1:
        out.print(overall(comparisons), markup=False)
