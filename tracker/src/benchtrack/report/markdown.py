"""Markdown report for GitHub (job summary, PR comment): one table per suite, regressions first."""

from __future__ import annotations

from benchtrack.compare import VERDICTS, SuiteComparison
from benchtrack.mdtext import code
from benchtrack.report import fmt_change, fmt_spread, fmt_value, overall, summary

ICONS = {
    "regressed": "🔴",
    "failed": "❌",
    "inconclusive": "🟡",
    "improved": "🟢",
    "unchanged": "⚪",
    "new": "🆕",
    "removed": "➖",
}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render(comparisons: list[SuiteComparison]) -> str:
    lines = [f"### benchtrack: {overall(comparisons)}", ""]
    for comparison in comparisons:
        lines += [f"#### {code(comparison.suite)} · {code(comparison.runner_key)}", ""]
        lines += [
            "| benchmark | throughput | ± | change [95% CI] | verdict |",
            "|---|--:|--:|--:|---|",
        ]
        rows = sorted(comparison.rows, key=lambda r: (VERDICTS.index(r.verdict), r.name))
        for row in rows:
            bench = row.current
            value = fmt_value(bench.value, bench.unit) if bench else ""
            if bench is not None and not bench.bigger_is_better:
                value += " (smaller is better)"
            change = row.error if row.error is not None else fmt_change(row)
            cells = [value, fmt_spread(row), change, f"{ICONS.get(row.verdict, '')} {row.verdict}"]
            # the name as inert code (benchtrack/mdtext.py: already safe in a table cell)
            lines.append("| " + " | ".join([code(row.name), *map(_cell, cells)]) + " |")
        lines += ["", summary(comparison, code), ""]
    return "\n".join(lines)
