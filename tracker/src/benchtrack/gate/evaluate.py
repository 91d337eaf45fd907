"""Error rates of the gate, and of the usual rules, on recorded A/A rounds.

Pseudo-PRs: a window of n consecutive recorded rounds (n = the gate's round limit) at a random
start, each round's two runs labelled base/head by a coin flip (under A/A the labels are
exchangeable, so this is a sign-flip resampling that keeps the machine's drift inside the window).

- false-fail: the share of pseudo-PRs where any benchmark is `regressed` (the PR would fail);
- power at loss d: one benchmark's head values scaled by (1 - d) (throughput) or 1 / (1 - d)
  (smaller-is-better), the others untouched; detected when that benchmark is flagged. Each
  benchmark is scaled in turn on every pseudo-PR, and the rates are averaged over benchmarks;
- the same windows feed github-action-benchmark's rule (first round's base value vs head value)
  and pytest-benchmark's mean:5% (first round's samples on each side).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import special

from benchtrack.errors import BadInput
from benchtrack.gate import ghrule
from benchtrack.gate import verdict as v
from benchtrack.gate.aa import AAData
from benchtrack.gate.outcome import exact_series

LOSSES = (0.02, 0.05, 0.10, 0.20)
ACTION_THRESHOLDS = (1.1, 1.5, 2.0)
PYTEST_FRACTION = 0.05
CHUNK = 64  # pseudo-PRs per vectorised batch (the power arrays are P x m x m x n)


@dataclass
class Method:
    label: str
    false_fail: float
    detect: dict[float, np.ndarray]  # loss -> (m,) detection rate per benchmark
    note: str = ""

    def mean_detect(self, d: float) -> float:
        return float(np.mean(self.detect[d]))


@dataclass
class Evaluation:
    data: AAData
    prs: int
    rounds: int
    looks: list[int]
    thresholds: np.ndarray
    alpha: float
    spread: np.ndarray  # (m,) sd of a round's log-ratio
    mean_rounds: float
    methods: list[Method] = field(default_factory=list)
    rounds_per_part: list[int] = field(default_factory=list)
    matched: list[Method] = field(default_factory=list)  # the gate at the action rule's rates
    notes: list[str] = field(default_factory=list)  # per benchmark: `[gate.notes]`, or ""

    @property
    def gate(self) -> Method:
        return self.methods[0]

    def max_spread(self, d: float = 0.10, power: float = 0.95) -> np.ndarray:
        """The largest round-to-round spread at which a loss d is still detected with `power`
        by the last look (normal approximation of the mean; per-benchmark thresholds)."""
        m, n = len(self.data.names), self.rounds
        t = special.stdtrit(n - 1, 1 - v.per_look_alpha(self.alpha, m, len(self.looks)))
        gap = np.log1p(-self.thresholds) - math.log1p(-d)
        return np.maximum(gap, 0) * math.sqrt(n) / (t + special.ndtri(power))


def windows(rounds: int, n: int, prs: int, rng: np.random.Generator):
    starts = rng.integers(0, rounds - n + 1, size=prs)
    return starts[:, None] + np.arange(n)[None, :], rng.random((prs, n)) < 0.5


def evaluate(
    data: AAData | list[AAData],
    *,
    thresholds: np.ndarray,
    alpha: float,
    looks: list[int],
    prs: int = 400,
    seed: int = 7,
    losses: tuple[float, ...] = LOSSES,
) -> Evaluation:
    parts = data if isinstance(data, list) else [data]
    n = min(looks[-1], max(d.rounds for d in parts))
    looks = [k for k in looks if k < n] + [n]
    rng = np.random.default_rng(seed)
    # Recordings made separately (e.g. one per suite) are independent draws of the same machine:
    # each gives its own window per pseudo-PR, NaN-padded when it has fewer rounds than n.
    bases, heads, costs_b, costs_h = [], [], [], []
    for d in parts:
        k = min(n, d.rounds)
        if k < v.MIN_ROUNDS:
            raise BadInput(d.source, "rounds", f"at least {v.MIN_ROUNDS} recorded rounds", d.rounds)
        idx, flip = windows(d.rounds, k, prs, rng)
        fl, pad = flip[:, None, :], ((0, 0), (0, 0), (0, n - k))
        b_all = d.values["base"][:, idx].transpose(1, 0, 2)  # (P, m_d, k)
        h_all = d.values["head"][:, idx].transpose(1, 0, 2)
        bases.append(np.pad(np.where(fl, h_all, b_all), pad, constant_values=np.nan))
        heads.append(np.pad(np.where(fl, b_all, h_all), pad, constant_values=np.nan))
        # pytest-benchmark's view: the first round's mean cost on each side, (P, m_d)
        cost = {
            side: np.array(
                [
                    [ghrule.mean_cost(s, bool(d.bigger[i])) for s in d.samples[side][i]]
                    for i in range(len(d.names))
                ]
            )[:, idx[:, 0]].T
            for side in ("base", "head")
        }
        f0 = flip[:, :1]
        costs_b.append(np.where(f0, cost["head"], cost["base"]))
        costs_h.append(np.where(f0, cost["base"], cost["head"]))
    merged = _merged(parts)
    bigger = merged.bigger
    base, head = np.concatenate(bases, axis=1), np.concatenate(heads, axis=1)  # (P, m, n)
    lr = np.log(head) - np.log(base)
    g = np.where(bigger[None, :, None], lr, -lr)

    exact = exact_series(merged.names)
    gate_ff, gate_detect, stop = _gate(g, thresholds, alpha, looks, losses, exact)
    spread = np.concatenate(
        [np.std(np.log(p.values["head"]) - np.log(p.values["base"]), axis=1, ddof=1) for p in parts]
    )
    ev = Evaluation(merged, prs, n, looks, thresholds, alpha, spread, float(np.mean(stop)))
    ev.rounds_per_part = [min(n, p.rounds) for p in parts]
    label = (
        f"benchtrack gate (δ {_pct_list(thresholds)}, α {alpha * 100:g}%, ≤{n} rounds, "
        f"looks {'/'.join(map(str, looks))})"
    )
    ev.methods.append(Method(label, gate_ff, gate_detect, f"mean {ev.mean_rounds:.1f} rounds"))

    # One round per side, as github-action-benchmark and pytest-benchmark see it.
    first_b, first_h = base[:, :, 0], head[:, :, 0]
    for thr in ACTION_THRESHOLDS:
        ff = float(np.mean(np.any(ghrule.action_alerts(first_b, first_h, bigger, thr), axis=-1)))
        det = {
            d: np.mean(
                ghrule.action_alerts(first_b, _lose(first_h, bigger, d), bigger, thr), axis=0
            )
            for d in losses
        }
        ev.methods.append(Method(f"github-action-benchmark alert {thr * 100:.0f}%", ff, det))
        # The gate calibrated to this rule's false-fail rate: detection at equal false-fail
        if 0.01 < ff < 1:
            a_eq = _calibrate(g, thresholds, ff, looks, exact)
            g_ff, g_det, g_stop = _gate(g, thresholds, a_eq, looks, losses, exact)
            note = f"mean {float(np.mean(g_stop)):.1f} rounds"
            label = f"benchtrack gate calibrated to alert {thr * 100:.0f}%'s false-fail"
            ev.matched.append(Method(label, g_ff, g_det, f"{note}, α' {a_eq:.3g}"))
    cb, ch = np.concatenate(costs_b, axis=1), np.concatenate(costs_h, axis=1)
    ff = float(np.mean(np.any(ghrule.pytest_mean_fails(cb, ch, PYTEST_FRACTION), axis=-1)))
    det = {
        d: np.mean(ghrule.pytest_mean_fails(cb, ch / (1 - d), PYTEST_FRACTION), axis=0)
        for d in losses
    }
    ev.methods.append(Method(f"pytest-benchmark mean:{PYTEST_FRACTION * 100:g}%", ff, det))
    return ev


def _gate(
    g: np.ndarray,
    thresholds: np.ndarray,
    alpha: float,
    looks: list[int],
    losses: tuple[float, ...],
    exact: np.ndarray,
) -> tuple[float, dict[float, np.ndarray], np.ndarray]:
    """(false-fail rate, detection per loss per benchmark, rounds used) of the gate on `g`."""
    codes, stop, _ = v.sequential(g, thresholds, alpha, looks, exact)
    ff = float(np.mean(np.any(codes == v.REGRESSED_C, axis=-1)))
    m, prs = g.shape[1], g.shape[0]
    eye = np.eye(m)[None, :, :, None]
    detect = {}
    for d in losses:
        hits = np.zeros(m)
        for lo in range(0, prs, CHUNK):
            gg = g[lo : lo + CHUNK, None, :, :] + math.log1p(-d) * eye  # scenario j: bench j lost d
            c, _, _ = v.sequential(gg, thresholds, alpha, looks, exact)
            hits += np.sum(np.diagonal(c, axis1=1, axis2=2) == v.REGRESSED_C, axis=0)
        detect[d] = hits / prs
    return ff, detect, stop


def _calibrate(
    g: np.ndarray, thresholds: np.ndarray, target: float, looks: list[int], exact: np.ndarray
) -> float:
    """The α' at which the gate's false-fail rate on `g` reaches `target` (bisection in log α').

    Bonferroni makes α an upper bound, so the gate at α = the rule's rate fails fewer PRs than
    the rule does; this finds the operating point with the same false-fail rate.
    """
    m, k = g.shape[1], len(looks)
    lo, hi = math.log(1e-6), math.log(0.5 * m * k)  # each one-sided level at most 0.5

    def ff(log_a: float) -> float:
        codes, _, _ = v.sequential(g, thresholds, math.exp(log_a), looks, exact)
        return float(np.mean(np.any(codes == v.REGRESSED_C, axis=-1)))

    if ff(hi) <= target:
        return math.exp(hi)
    for _ in range(25):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if ff(mid) <= target else (lo, mid)
    return math.exp(lo)


def _merged(parts: list[AAData]) -> AAData:
    """One AAData naming every benchmark of `parts` (for labels; values are the first part's)."""
    if len(parts) == 1:
        return parts[0]
    doc = dict(parts[0].doc)
    doc["suites"] = [s for p in parts for s in p.doc.get("suites", [])]
    doc["run_seconds"] = {k: x for p in parts for k, x in p.doc.get("run_seconds", {}).items()}
    doc["commit"] = " + ".join(str(p.doc.get("commit", ""))[:10] for p in parts)
    doc["recorded"] = " + ".join(str(p.doc.get("recorded", "?")) for p in parts)
    return AAData(
        " + ".join(p.source for p in parts),
        [x for p in parts for x in p.names],
        [x for p in parts for x in p.suites],
        [x for p in parts for x in p.units],
        np.concatenate([p.bigger for p in parts]),
        parts[0].values,
        parts[0].samples,
        [x for p in parts for x in p.dropped],
        doc,
    )


def _lose(head: np.ndarray, bigger: np.ndarray, d: float) -> np.ndarray:
    """Head values after a loss d: throughput × (1 - d), smaller-is-better ÷ (1 - d)."""
    return np.where(bigger, head * (1 - d), head / (1 - d))


def _pct_list(thresholds: np.ndarray) -> str:
    values = sorted({round(float(t) * 100, 2) for t in thresholds})
    return "/".join(f"{x:g}" for x in values) + "%"


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
        f"{', '.join(doc.get('suites', []))}; {len(d.names)} benchmarks"
        + (f" ({len(d.dropped)} dropped: a round missing)" if d.dropped else "")
        + f". {ev.prs} pseudo-PRs per cell (windows of {ev.rounds} rounds, labels flipped at "
        "random).",
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
    ok = ev.gate.detect.get(0.10)
    allowed = ev.max_spread()
    main, counts = d.round_seconds()
    lines += [
        "",
        "Detection: the share of (pseudo-PR, benchmark) pairs where the one benchmark whose head "
        "lost d is flagged, averaged over benchmarks. False-fail: the share of pseudo-PRs (all "
        "benchmarks together) that would fail.",
        "",
        f"Estimated gate time for these suites: {main:.0f} s per round × {ev.mean_rounds:.1f} "
        f"rounds, {_counts_schedule(d, counts)} ≈ "
        f"{d.gate_seconds(ev.mean_rounds) / 60:.1f} min (builds not included).",
        "",
        "### Per benchmark",
        "",
        "| benchmark | round spread (sd of log-ratio) | spread allowing 95% at −10% | gate −10% | "
        "gate −20% | action 110% −10% |",
        "|---|--:|--:|--:|--:|--:|",
    ]
    action110 = ev.methods[1]
    for i, name in enumerate(d.names):
        mark = "" if ok is None or ok[i] >= 0.95 else " ⚠️"
        lines.append(
            f"| `{name}`{mark} | {ev.spread[i] * 100:.2f}% | {allowed[i] * 100:.2f}% | "
            f"{ev.gate.detect[0.10][i] * 100:.0f}% | {ev.gate.detect[0.20][i] * 100:.0f}% | "
            f"{action110.detect[0.10][i] * 100:.0f}% |"
        )
    if ok is not None and (ok < 0.95).any():
        lines += ["", "### Below 95% at −10%: why, and what they measure", ""]
        for i, name in enumerate(d.names):
            if ok[i] < 0.95:
                why = ev.notes[i] if ev.notes and ev.notes[i] else "no note in [gate.notes]"
                lines.append(f"- `{name}` ({ok[i] * 100:.0f}%): {why}")
    return "\n".join(lines) + "\n"


def to_dict(ev: Evaluation, losses: tuple[float, ...] = LOSSES) -> dict:
    return {
        "schema": "benchtrack.evaluation/1",
        "data": ev.data.source,
        "rounds": ev.rounds,
        "looks": ev.looks,
        "alpha": ev.alpha,
        "prs": ev.prs,
        "mean_rounds": ev.mean_rounds,
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
                "spread": float(ev.spread[i]),
                "max_spread_for_10pct": float(ev.max_spread()[i]),
                "threshold": float(ev.thresholds[i]),
                "gate_detect": {f"{x:g}": float(ev.gate.detect[x][i]) for x in losses},
                **({"note": ev.notes[i]} if ev.notes and ev.notes[i] else {}),
            }
            for i, name in enumerate(ev.data.names)
        ],
    }


def _counts_schedule(d: AAData, counts: float) -> str:
    """Where the recording's count rounds ran, for the time estimate."""
    whole, beside = d.count_rounds(), d.counts_beside()
    if beside == whole:
        return f"the counts' {counts:.0f} s per round × {whole} beside them"
    return (
        f"the counts' {counts:.0f} s per round × {beside} beside them, then "
        f"{counts / 2:.0f} s (both sides at once) × {whole - beside} inside them"
    )
