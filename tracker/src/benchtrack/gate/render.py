"""The gate's outcome as a terminal table, Markdown (job summary, PR comment) and JSON."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import orjson
from rich.console import Console
from rich.table import Table
from rich.text import Text

from benchtrack.fsutil import atomic_write
from benchtrack.gate import skip
from benchtrack.gate import verdict as v
from benchtrack.gate.config import split_key
from benchtrack.gate.outcome import Outcome, Row
from benchtrack.machine import vcpus
from benchtrack.mdtext import block, code, pct
from benchtrack.stats import IMPROVED, INCONCLUSIVE, REGRESSED, UNCHANGED

MARK = {
    REGRESSED: "❌ regressed",
    IMPROVED: "✅ improved",
    UNCHANGED: "unchanged",
    INCONCLUSIVE: "❔ inconclusive",
}
STYLE = {REGRESSED: "bold red", IMPROVED: "green", UNCHANGED: "", INCONCLUSIVE: "yellow"}
COMMENT_MARKER = "<!-- benchtrack-gate -->"  # lets the workflow find and update its one comment


def number(x: float) -> str:
    """3 significant digits with an SI prefix: 494995203 -> 495M."""
    if not math.isfinite(x):
        return "—"
    for scale, prefix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= scale:
            return f"{x / scale:.3g}{prefix}"
    return f"{x:.3g}"


def interval(r: Row) -> str:
    return f"[{pct(r.lo)}, {pct(r.hi)}]"


def _benchmarks(rows: list[Row]) -> set[str]:
    return {split_key(r.name)[0] for r in rows}


def untold(o: Outcome) -> list[Row]:
    """Benchmarks whose wall time (or only series) could not be told apart from base."""
    return [r for r in o.rows if r.primary and r.verdict == INCONCLUSIVE]


def headline(o: Outcome, show: Callable[[object], str] = code) -> str:
    """The verdict in one line, the refs `show`n (Markdown code; str in a terminal)."""
    m = o.meta
    n_reg = len(_benchmarks(o.regressions))
    n_imp = len(o.improvements)
    n_untold, n_all = len(untold(o)), sum(r.primary for r in o.rows)
    if o.skipped:
        state = f"⏭️ {skip.line(o.skipped)}"
    elif o.exit_code == 3:
        state = "⚠️ a benchmark failed to run"
    elif n_reg:
        state = f"❌ {n_reg} regression{'s' * (n_reg != 1)}"
    elif n_untold:  # a gate that could not see must say so, never a bare ✅
        state = f"⚠️ no regression found, but {n_untold} of {n_all} could not be told apart"
    else:
        state = "✅ no regression"
    if n_imp:
        state += f", {n_imp} improvement{'s' * (n_imp != 1)}"
    return (
        f"{state} · base {show(m.get('base', {}).get('ref'))} "
        f"({m.get('base', {}).get('sha', '')[:10]}) → head {show(m.get('head', {}).get('ref'))} "
        f"({m.get('head', {}).get('sha', '')[:10]})"
    )


def method_line(o: Outcome) -> str:
    m = o.meta
    rounds = m.get("rounds", 0)
    jobs = m.get("jobs", 1)
    second = m.get("confirm") or {}
    stages = (
        f"; {len(second.get('candidates', []))} candidate(s) confirmed in "
        f"{second.get('rounds', 0)} rounds of their own"
        + (
            f" (up to {second.get('most_rounds')}: the screening read the vCPUs uneven)"
            if second.get("vcpus_uneven")
            else ""
        )
        + ", at half of it over the candidates, "
        f"{len(second.get('open', []))} open benchmark(s) measured in them until decided"
        if second
        else ""
    )
    return (
        f"{rounds} interleaved rounds ({m.get('seconds', 0):.0f} s) · default threshold "
        f"{m.get('threshold', 0) * 100:g}% · false-fail probability ≤ {o.alpha * 100:g}% per PR "
        f"over its {jobs} runner-size job{'s' * (jobs != 1)} (intervals simultaneous over "
        f"{len(o.rows)} series of {sum(r.primary for r in o.rows)} benchmarks and "
        f"{m.get('n_looks', 1)} looks{stages}). Every benchmark is judged by its wall-time "
        "throughput; its instructions or CPU time, where measured, can also fail the PR, and "
        f"never make it an improvement; unchanged: its interval inside ±{v.MARGIN * 100:g}% of "
        f"the threshold, a loss of the threshold called so with probability ≤ {v.BETA * 100:g}% "
        "a benchmark"
        + (f" · {m['idle']}" if m.get("idle") else "")
        + took(m)
        + (f" · {vcpus.describe(m['vcpus'])}" if m.get("vcpus") else "")
    )


def took(m: dict) -> str:
    """What the PR waited for this job, worktrees to verdict: " · this job's gate took 7.4 min
    (builds 2.1 min, diagnosis 40 s)"; "" in a gate.json from before it was kept."""
    if not isinstance(m.get("gate_seconds"), (int, float)):
        return ""
    parts = [f"{label} {_span(m[key])}" for key, label in (
        ("build_seconds", "builds"), ("diagnosis_seconds", "diagnosis"))
        if isinstance(m.get(key), (int, float)) and m[key] > 0]  # fmt: skip
    who = "its slowest shard" if m.get("shards") else "this job's gate"  # merged: the PR's wait
    return f" · {who} took {_span(m['gate_seconds'])}" + (f" ({', '.join(parts)})" if parts else "")


def _span(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.1f} min"


def mark(r: Row) -> str:
    """A row's verdict mark: never ✅ for a series that another series of its benchmark
    contradicts (its wall time confidently worse); a confirmed one says over how many rounds."""
    text = f"⚠️ {r.verdict}, disagrees with another series" if r.disagrees else MARK[r.verdict]
    return f"{text} {how(r)}" if how(r) else text


def how(r: Row) -> str:
    """Which test decided a row beyond the screening's: "(equivalence, 13 rounds)": the
    equivalence test over both stages' rounds (gate/decide.py); "(confirmation, 8 rounds)";
    or over what a row left open after the second stage is shown: "(both stages, 21 rounds,
    interval at the equivalence level)"."""
    if r.equivalence:
        return f"(equivalence, {r.rounds} rounds)"
    if r.pooled:
        return f"(both stages, {r.rounds} rounds, interval at the equivalence level)"
    return f"(confirmation, {r.rounds} rounds)" if r.stage == 2 else ""


def verdict_text(r: Row) -> str:
    text = f"{r.verdict} {how(r)}" if how(r) else r.verdict
    if r.disagrees:
        text += ", disagrees with another series"
    return f"{text}, smaller loss" if r.smaller_loss else text


def counts(o: Outcome) -> str:
    rows = [r for r in o.rows if r.primary]
    n = {k: sum(r.verdict == k for r in rows) for k in (REGRESSED, IMPROVED, UNCHANGED)}
    n[REGRESSED] = len(_benchmarks(o.regressions))
    inc = sum(r.verdict == INCONCLUSIVE for r in rows)
    text = " · ".join(f"{v} {k}" for k, v in n.items())
    if inc:
        text += f" · {inc} inconclusive (interval still reaches past ±threshold: too noisy to tell)"
    if o.smaller_losses:
        text += f" · {len(o.smaller_losses)} smaller losses reported (not failing)"
    return text


def failures(o: Outcome) -> list[str]:
    """Markdown of what failed: each suite's log tail in a fenced block, each benchmark's first
    line of its error; every string inert (the job summary and the PR comment alike)."""
    out = []
    for f in o.suite_failures:
        out += [f"**{f.suite}** failed to {f.what} on the {f.side} side; last lines:", "", "```",
                block(f.tail), "```", ""]  # fmt: skip
    for side in ("base", "head"):
        for name, msg in sorted(o.failed.get(side, {}).items()):
            first = msg.splitlines()[0] if msg else ""
            out.append(f"- ⚠️ {code(name)} failed on the {side} side: {code(first, 200)}")
    return out


def markdown(o: Outcome) -> str:
    if o.skipped:  # one line: nothing was measured, so there is nothing else to show
        return f"{COMMENT_MARKER}\n### benchtrack gate: {headline(o)}\n"
    lines = [COMMENT_MARKER, f"### benchtrack gate: {headline(o)}", "", method_line(o), ""]
    lines += [f"Verdicts: {counts(o)}.", ""]
    lines += failures(o)
    groups = [
        ("Regressions", o.regressions),
        ("Smaller losses (below the threshold, resolved: reported, not failing)", o.smaller_losses),
        ("Series that disagree (one confidently worse, another better)", _disagree(o)),
        ("Could not be told apart (too noisy in the rounds this gate ran)", untold(o)),
        ("Improvements", o.improvements),
    ]
    for title, rows in groups:
        if rows:
            lines += [f"#### {title}", "", *_table(rows), ""]
    if o.only_base or o.only_head:
        lines.append(
            "Not compared (present on one side only): "
            + ", ".join(
                [f"{code(n)} (base only)" for n in o.only_base]
                + [f"{code(n)} (head only)" for n in o.only_head]
            )
        )
        lines.append("")
    lines += [
        f"<details><summary>All {len(o.rows)} benchmarks</summary>",
        "",
        *_table(o.rows),
        "",
        "</details>",
        "",
    ]
    return "\n".join(lines)


def _disagree(o: Outcome) -> list[Row]:
    return [r for r in o.rows if r.disagrees]


def _table(rows: list[Row]) -> list[str]:
    out = [
        "| benchmark | base | head | change | interval | threshold | verdict |",
        "|---|--:|--:|--:|:-:|--:|---|",
    ]
    for r in rows:
        unit = f" {r.unit}" + (" ↓" if r.direction == "smaller" else "")
        out.append(
            f"| {code(r.name)} | {number(r.base)}{unit} | {number(r.head)}{unit} | "
            f"{pct(r.change)} | {interval(r)} | {r.threshold * 100:g}% | {mark(r)}"
            f"{' · ⚠️ smaller loss' if r.smaller_loss else ''} |"
        )
    return out


def terminal(o: Outcome, console: Console) -> None:
    if o.skipped:
        console.print(f"benchtrack gate: {headline(o, str)}", markup=False, highlight=False)
        return
    # names and messages are text, never rich markup: `test_x[/tmp]` would raise, `[bold]` vanish
    table = Table(title=Text(f"benchtrack gate: {headline(o, str)}"), title_justify="left")
    for col, just in (
        ("benchmark", "left"),
        ("base", "right"),
        ("head", "right"),
        ("change", "right"),
        ("interval", "center"),
        ("verdict", "left"),
    ):
        table.add_column(col, justify=just)
    for r in o.rows:
        unit = f" {r.unit}" + (" (smaller is better)" if r.direction == "smaller" else "")
        table.add_row(
            Text(r.name),
            number(r.base) + unit,
            number(r.head),
            pct(r.change),
            interval(r),
            verdict_text(r),
            style=(STYLE[r.verdict] if r.primary else "dim") or None,
        )
    console.print(table)
    console.print(method_line(o), highlight=False)
    console.print(f"verdicts: {counts(o)}", highlight=False)
    for n in o.only_base:
        console.print(f"only in base (not compared): {n}", markup=False, highlight=False)
    for n in o.only_head:
        console.print(f"only in head (not compared): {n}", markup=False, highlight=False)
    for side in ("base", "head"):
        for name, msg in sorted(o.failed.get(side, {}).items()):
            said = Text(f"failed on {side}:", style="red") + f" {name}: {msg}"
            console.print(said, highlight=False)
    for f in o.suite_failures:
        said = Text(f"{f.suite} failed to {f.what} on the {f.side} side", style="red")
        console.print(said + f" (log {f.log}); last lines:", highlight=False)
        console.print(f.tail, markup=False, highlight=False)


def write(out_dir: Path, outcome: Outcome, doc: dict, tail: str = "") -> str:
    """gate.json (`doc`) and gate.md (the outcome's Markdown, then `tail`) in `out_dir`: their one
    writer, for the gate and for gate-merge alike. Returns the Markdown (for a job summary)."""
    atomic_write(out_dir / "gate.json", orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n")
    # a blank line first: the table's </details> block would otherwise hold the tail's heading
    md = markdown(outcome) + (f"\n{tail}" if tail else "")
    atomic_write(out_dir / "gate.md", md)
    return md
