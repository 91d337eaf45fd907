"""`benchtrack evaluate`'s output: Markdown tables of one evaluation and of several
recordings combined, and the JSON document (`benchtrack.evaluation/2`)."""

from __future__ import annotations

import math

import numpy as np

from benchtrack.lab.figures import GOAL_DETECT, GOAL_LOSS, LOSSES, Combined, Evaluation, interval95


def markdown(ev: Evaluation, losses: tuple[float, ...] = LOSSES) -> str:
    d = ev.data
    doc = d.doc
    head = (
        "| method | false-fail per PR | "
        + " | ".join(f"detect −{x * 100:g}%" for x in losses)
        + " |"
    )
    lines = [
        "## Gate evaluation on recorded A/A data",
        "",
        f"Data: `{d.source}`: {'/'.join(str(p) for p in ev.rounds_per_part)} rounds of commit "
        f"`{doc.get('commit', '')}` "
        f"recorded {doc.get('recorded', '?')} on {doc.get('machine', '?')}; suites "
        f"{', '.join(doc.get('suites', []))}; {len(ev.benches.names)} benchmarks, "
        f"{len(d.names)} series"
        + (f" ({len(d.dropped)} dropped: a round missing)" if d.dropped else "")
        + f". {ev.prs} pseudo-PRs per cell (windows of {ev.rounds} rounds, one coin a "
        f"{'PR' if ev.coin == 'pr' else 'round'} for which side is base). A loss is one "
        "benchmark's wall-time throughput; false-fail per PR "
        f"sums the {ev.jobs} runner-size job{'s' * (ev.jobs != 1)} CI runs.",
        "",
        head,
        "|---|--:|" + "--:|" * len(losses),
    ]
    for mth in ev.methods:
        cells = " | ".join(f"{mth.mean_detect(x) * 100:.1f}%" for x in losses)
        note = f" ({mth.note})" if mth.note else ""
        lines.append(f"| {mth.label}{note} | {mth.false_fail * 100:.2f}% | {cells} |")
    for mth in ev.matched:
        cells = " | ".join(f"{mth.mean_detect(x) * 100:.1f}%" for x in losses)
        lines.append(f"| {mth.label} ({mth.note}) | {mth.false_fail * 100:.2f}% | {cells} |")
    ok = ev.gate.detect.get(GOAL_LOSS)
    allowed = ev.max_spread()
    budget = (
        f"the {ev.budget / 60:g}-minute budget stopped {ev.stopped_by_budget * 100:.0f}% of "
        "them before the last look"
        if ev.budget
        else "no time budget applied"
    )
    lines += [
        "",
        "Detection: the share of (pseudo-PR, benchmark) pairs where the one benchmark whose "
        "wall-time throughput lost d is flagged (any of its series), averaged over benchmarks. "
        "False-fail: the share of pseudo-PRs (all series of all benchmarks, one job) that would "
        "fail, times the jobs.",
        "",
        f"Gate time of a no-change PR, replayed on the recorded round seconds: mean "
        f"{float(np.mean(ev.seconds)) / 60:.1f} min, longest {float(np.max(ev.seconds)) / 60:.1f}"
        f" min, builds ({ev.build_seconds:.0f} s, "
        f"{'from --build-seconds' if ev.builds_given else 'as recorded'}) included; {budget}.",
        *([f"Two stages: {ev.stages}.", ""] if ev.stages else []),
        *([decided_line(ev), ""] if not math.isnan(ev.decided) else []),
        f"Benchmarks at ≥ 95% detection of −10%: **{ev.meeting(0.10, 0.95)} of "
        f"{len(ev.benches.names)}**; at ≥ 99% of −20%: **{ev.meeting(0.20, 0.99)}**"
        + (f"; at ≥ 90% of −5%: **{ev.meeting(0.05, 0.90)}**." if 0.05 in ev.gate.detect else "."),
        "",
        "### Per benchmark",
        "",
        "| benchmark | round spread (sd of log-ratio) | spread allowing 95% at −10% | gate −10% | "
        "gate −20% | action 110% −10% |",
        "|---|--:|--:|--:|--:|--:|",
    ]
    action110 = ev.methods[1]
    for i, name in enumerate(ev.benches.names):
        mark = "" if ok is None or ok[i] >= GOAL_DETECT else " ⚠️"
        lines.append(
            f"| `{name}`{mark} | {ev.spread[i] * 100:.2f}% | {allowed[i] * 100:.2f}% | "
            f"{ev.gate.detect[0.10][i] * 100:.0f}% | {ev.gate.detect[0.20][i] * 100:.0f}% | "
            f"{action110.detect[0.10][i] * 100:.0f}% |"
        )
    failing = [(float(x), k) for x, k in zip(ev.false_by_series, d.names, strict=True) if x > 0]
    if failing:
        lines += [
            "",
            "### Where the A/A false fails come from",
            "",
            "| series | share of A/A PRs it fails (× jobs) |",
            "|---|--:|",
            *(f"| `{k}` | {x * 100:.2f}% |" for x, k in sorted(failing, reverse=True)[:15]),
        ]
    if ok is not None and (ok < GOAL_DETECT).any():
        lines += ["", "### Below 95% at −10%: why, and what they measure", ""]
        for i, name in enumerate(ev.benches.names):
            if ok[i] < GOAL_DETECT:
                why = ev.notes[i] if ev.notes and ev.notes[i] else "no note in [gate.notes]"
                lines.append(f"- `{name}` ({ok[i] * 100:.0f}%): {why}")
    return "\n".join(lines) + "\n"


def decided_line(ev: Evaluation) -> str:
    """How many benchmarks a no-change PR decides, and how often the equivalence test called
    a loss of each size unchanged."""
    at = ", ".join(
        f"−{d * 100:g}% {float(np.mean(x)) * 100:.1f}% (most {float(np.max(x)) * 100:.1f}%)"
        for d, x in sorted(ev.unchanged_at.items())
    )
    worst = int(np.argmin(ev.decided_by_bench))
    return (
        f"Decided in a no-change PR: **{ev.decided * 100:.1f}%** of benchmarks "
        f"({ev.decided_unchanged * 100:.1f}% unchanged; fewest "
        f"{float(ev.decided_by_bench[worst]) * 100:.0f}% for `{ev.benches.names[worst]}`). "
        "A slowed benchmark "
        f"called unchanged, mean over benchmarks: {at}."
    )


def combined_markdown(c: Combined) -> str:
    """The figures across independent recordings, each with its 95% interval."""
    figs = c.figures()
    n = len(c.evaluations)
    total = len(c.names)
    pooled = c.detect(0.10)
    pooled_10 = int(np.sum(pooled >= GOAL_DETECT))
    pooled_20 = int(np.sum(c.detect(0.20) >= 0.99))
    rows = [
        ("false-fail per PR", "false_fail", lambda x: f"{x * 100:.2f}%"),
        ("mean detection of −10%", "detect_10", lambda x: f"{x * 100:.1f}%"),
        ("a −5% loss failed (mean over benchmarks)", "detect_5", lambda x: f"{x * 100:.1f}%"),
        ("a −2% loss failed (mean over benchmarks)", "detect_2", lambda x: f"{x * 100:.1f}%"),
        (f"benchmarks ≥ 95% at −10% (of {total})", "meeting_95_at_10", lambda x: f"{x:.1f}"),
        (f"benchmarks ≥ 99% at −20% (of {total})", "meeting_99_at_20", lambda x: f"{x:.1f}"),
        (f"benchmarks ≥ 90% at −5% (of {total})", "meeting_90_at_5", lambda x: f"{x:.1f}"),
        ("no-change PR, minutes (mean)", "nochange_minutes", lambda x: f"{x:.1f}"),
        ("no-change PR, minutes (longest)", "nochange_longest", lambda x: f"{x:.1f}"),
        ("no-change PR: benchmarks decided", "decided", lambda x: f"{x * 100:.1f}%"),
    ]
    rows = [r for r in rows if not any(math.isnan(x) for x in figs[r[1]])]
    lines = [
        f"## Across {n} independent recording{'s' * (n != 1)}",
        "",
        "| figure | " + " | ".join(f"`{e.data.source}`" for e in c.evaluations) + " | mean "
        "[95% interval] |",
        "|---|" + "--:|" * (n + 1),
    ]
    pooled_5 = int(np.sum(c.detect(0.05) >= 0.90)) if 0.05 in c.evaluations[0].gate.detect else 0
    for label, key, fmt in rows:
        mean, lo, hi = interval95(figs[key])
        lo = max(lo, 0.0)  # every figure here is a rate or a count: none is below 0
        cells = " | ".join(fmt(x) for x in figs[key])
        span = f"{fmt(mean)} [{fmt(lo)}, {fmt(hi)}]" if n > 1 else fmt(mean)
        lines.append(f"| {label} | {cells} | {span} |")
    lines += [
        "",
        f"Pooled (each benchmark's detection averaged over the {n} recordings): "
        f"**{pooled_10} of {total}** at ≥ 95% of −10%, **{pooled_20} of {total}** at ≥ 99% of "
        f"−20%, {pooled_5} of {total} at ≥ 90% of −5%.",
    ]
    short = sorted((float(x), i) for i, x in enumerate(pooled) if x < GOAL_DETECT)
    if n > 1 and short:
        each = c.by_recording(0.10)
        lines += ["", "Pooled below 95% at −10% (each recording's in parentheses):", ""]
        lines += [
            f"- `{c.names[i]}` {x * 100:.1f}% ("
            + ", ".join(f"{r * 100:.0f}%" for r in each[:, i])
            + ")"
            for x, i in short
        ]
    return "\n".join(lines) + "\n"


def to_dict(ev: Evaluation, losses: tuple[float, ...] = LOSSES) -> dict:
    allowed = ev.max_spread()
    return {
        "schema": "benchtrack.evaluation/2",
        "data": ev.data.source,
        "rounds": ev.rounds,
        "looks": ev.looks,
        "alpha": ev.alpha,
        "jobs": ev.jobs,
        "prs": ev.prs,
        "mean_rounds": ev.mean_rounds,
        "budget_seconds": ev.budget,
        "build_seconds": ev.build_seconds,
        "nochange_seconds": {"mean": float(np.mean(ev.seconds)), "max": float(np.max(ev.seconds))},
        "stopped_by_budget": ev.stopped_by_budget,
        "false_fail_by_series": {
            k: float(x) for k, x in zip(ev.data.names, ev.false_by_series, strict=True) if x > 0
        },
        "methods": [
            {
                "label": mth.label,
                "false_fail": mth.false_fail,
                "detect": {f"{x:g}": mth.mean_detect(x) for x in losses},
            }
            for mth in ev.methods
        ],
        "benchmarks": [
            {
                "name": name,
                "series": [
                    k for k, m in zip(ev.data.names, ev.benches.member[i], strict=True) if m
                ],
                "spread": float(ev.spread[i]),
                "max_spread_for_10pct": float(allowed[i]),
                "threshold": float(ev.thresholds[ev.benches.primary[i]]),
                "gate_detect": {f"{x:g}": float(ev.gate.detect[x][i]) for x in losses},
                **({"note": ev.notes[i]} if ev.notes and ev.notes[i] else {}),
            }
            for i, name in enumerate(ev.benches.names)
        ],
    }
