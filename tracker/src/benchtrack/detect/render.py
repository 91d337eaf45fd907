"""Change points for people: Markdown (job summary, bench-local) and a terminal table."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.table import Table

from benchtrack.detect.publish import Change
from benchtrack.mdtext import code


def _pct(change: float) -> str:
    return f"{change * 100:+.1f}%"


def _num(value: float) -> str:
    return f"{value:.4g}"


def _what(c: Change) -> str:
    return "regression" if c.regression else "improvement"


def _md_commit(c: Change) -> str:
    short = c.commit[:7]
    return f"[`{short}`]({c.url})" if c.url else f"`{short}`"


def markdown(
    all_changes: Sequence[Change],
    new_changes: Sequence[Change],
    *,
    skipped: int = 0,
    title: str = "Change points",
    tip: int = 0,
) -> str:
    regressions = sum(c.regression for c in all_changes)
    lines = [
        f"### {title}",
        "",
        f"{len(new_changes)} new since the previous run · {len(all_changes)} in the history "
        f"({regressions} regressions)"
        + (f" · {skipped} series too short to judge" if skipped else "")
        + (f" · {tip} candidates at the tip (to confirm in lockstep)" if tip else ""),
        "",
    ]
    if new_changes:
        lines += [
            "| | Series | Runner | Commit | Change | Before → After | p |",
            "|---|---|---|---|---:|---|---:|",
        ]
        for c in new_changes:
            mark = "🔴" if c.regression else "🟢"
            lines.append(
                # series, runner and commit message as inert code (benchtrack/mdtext.py): a
                # name or a message may hold backticks, pipes, links or @mentions
                f"| {mark} {_what(c)} | {code(c.series)} | {code(c.runner)} | {_md_commit(c)} "
                f"{code(c.message.splitlines()[0], 60) if c.message else ''} | "
                f"{_pct(c.change)} | {_num(c.before)} → {_num(c.after)} {c.unit} | "
                f"{c.significance:.1e} |"
            )
        lines.append("")
    return "\n".join(lines)


def table(
    all_changes: Sequence[Change], new_changes: Sequence[Change], console: Console | None = None
) -> None:
    console = console or Console()
    new_keys = {c.key for c in new_changes}
    t = Table(title=f"Change points ({len(new_changes)} new, {len(all_changes)} in all)")
    for col, justify in [
        ("", "left"),
        ("series", "left"),
        ("runner", "left"),
        ("commit", "left"),
        ("change", "right"),
        ("before → after", "right"),
        ("p", "right"),
    ]:
        t.add_column(col, justify=justify)  # type: ignore[arg-type]
    for c in all_changes:
        style = "red" if c.regression else "green"
        t.add_row(
            "new" if c.key in new_keys else "",
            c.series,
            c.runner,
            c.commit[:7],
            f"[{style}]{_pct(c.change)}[/{style}]",
            f"{_num(c.before)} → {_num(c.after)} {c.unit}",
            f"{c.significance:.1e}",
        )
    console.print(t)
