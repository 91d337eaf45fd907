"""Shards replayed on recorded rounds (`benchtrack evaluate --shards N`): each shard's
benchmarks (gate/shards.py's plan over the recording's seconds) evaluated on their own, at
alpha / N, each shard's rounds taking its share of the recorded round seconds; every shard
builds, and a PR's wall time is its slowest shard's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import partial

import numpy as np

from benchtrack.errors import BadInput
from benchtrack.gate.config import split_key
from benchtrack.gate.shards import plan
from benchtrack.lab.aa import AAData, from_doc, subset
from benchtrack.lab.evaluate import evaluate, uneven_words
from benchtrack.lab.figures import interval95
from benchtrack.lab.replay import Costs
from benchtrack.lab.stages import recording_costs


def benchmark_seconds(parts: list[AAData]) -> dict[str, float]:
    """Each benchmark's seconds a round in a recording: its series' own (lockstep's
    `bench_seconds`), plus its suite's overhead spread over the suite's benchmarks."""
    out: dict[str, float] = {}
    for d in parts[:1]:  # the counts' parts are stepped in the first part's benchmarks
        costs = d.confirm_costs()
        by_suite: dict[int, int] = {}
        for s in costs.suite:
            by_suite[int(s)] = by_suite.get(int(s), 0) + 1
        for i, name in enumerate(d.names):
            share = costs.overhead[costs.suite[i]] / by_suite[int(costs.suite[i])]
            key = split_key(name)[0]
            out[key] = out.get(key, 0.0) + float(costs.series[i]) + float(share)
    for d in parts[1:]:
        for name in d.names:
            out.setdefault(split_key(name)[0], 0.0)
    return out


@dataclass
class Sharded:
    """The figures of a gate over `shards` shards: each shard's Evaluation, and the PR's."""

    shards: int
    plan: dict[str, int]
    evaluations: list = field(default_factory=list)  # figures.Evaluation per shard
    fractions: list[float] = field(default_factory=list)  # each shard's share of a round

    @property
    def false_fail(self) -> float:
        """Per PR over every job and shard: the shards' sum (each at alpha / N)."""
        return min(1.0, sum(e.gate.false_fail for e in self.evaluations))

    def detect(self, d: float) -> dict[str, float]:
        return {
            name: float(e.gate.detect[d][j])
            for e in self.evaluations
            for j, name in enumerate(e.benches.names)
        }

    def seconds(self) -> np.ndarray:
        """(P,) each no-change pseudo-PR's wall seconds: its slowest shard."""
        return np.max(np.stack([e.seconds for e in self.evaluations]), axis=0)

    def decided(self) -> float:
        n = [len(e.benches.names) for e in self.evaluations]
        return sum(e.decided * k for e, k in zip(self.evaluations, n, strict=True)) / sum(n)


def replay(parts: list[AAData], shards: int, thresholds_for, alpha: float, **kw) -> Sharded:
    """lab.evaluate.evaluate run once a shard on its benchmarks, at alpha / N,
    each shard's round seconds its share of the recorded ones; the same seed draws the same
    windows for every shard, so a pseudo-PR's shards are one PR."""
    seconds = benchmark_seconds(parts)
    split = plan(seconds, shards)
    whole = recording_costs(
        parts
    )  # a subset's own would count the other shards' seconds as overhead
    total = sum(seconds.values())
    out = Sharded(shards, split)
    for k in range(shards):
        mine = {n for n, j in split.items() if j == k}
        keep = [[split_key(n)[0] in mine for n in d.names] for d in parts]
        sub = [subset(d, k) for d, k in zip(parts, keep, strict=True) if any(k)]
        flat = np.concatenate([np.array(k, dtype=bool) for k in keep])
        costs = Costs(whole.series[flat], whole.suite[flat], whole.overhead)
        if not sub:
            continue
        # without recorded seconds, each benchmark an equal share of a round
        fraction = sum(seconds[n] for n in mine) / total if total > 0 else len(mine) / len(split)
        thresholds = np.array([thresholds_for(n) for d in sub for n in d.names])
        ev = evaluate(
            sub, thresholds=thresholds, alpha=alpha / shards, time_scale=fraction, costs=costs,
            **kw,
        )  # fmt: skip
        out.evaluations.append(ev)
        out.fractions.append(fraction)
    return out


def inflate(data: AAData, count: int, seed: int = 1) -> AAData:
    """A recording of `count` synthetic benchmarks made from `data`'s recorded noise: each,
    `synthetic/NNNN`, one of the benchmarks stepped in lockstep (taken in turn), its rounds (both
    sides' samples and its step seconds alike) in an order of its own, so that a suite of any
    size has the rounds' spreads, the sides' offsets and the step seconds this machine recorded.
    Each round takes what its benchmarks' steps take (the recorded round seconds scaled by their
    sum); the counts and whole-suite runs are left out."""
    doc = data.doc
    spent = doc.get("bench_seconds") or {}
    sources = [n for n in data.names if doc["benchmarks"].get(n, {}).get("paired") and spent.get(n)]
    if not sources:
        raise BadInput(data.source, "bench_seconds", "benchmarks stepped in lockstep", None)
    rng = np.random.default_rng(seed)
    benchmarks: dict[str, dict] = {}
    seconds: dict[str, list] = {}
    for i in range(count):
        src = sources[i % len(sources)]
        order = rng.permutation(data.rounds)
        b = doc["benchmarks"][src]
        name = f"synthetic/{i:04d}"
        benchmarks[name] = {
            **{k: v for k, v in b.items() if k not in ("base", "head")},
            **{side: [b[side][j] for j in order] for side in ("base", "head")},
        }
        seconds[name] = [spent[src][j] if j < len(spent[src]) else None for j in order]
    median = lambda xs: float(np.median([x for x in xs if x is not None] or [0.0]))  # noqa: E731
    was = sum(median(v) for n, v in spent.items() if n in doc["benchmarks"]) or 1.0
    scale = sum(median(v) for v in seconds.values()) / was
    rounds = doc.get("round_seconds") or []
    synthetic = {
        **doc,
        "benchmarks": benchmarks,
        "bench_seconds": seconds,
        "run_seconds": {},  # each round: its benchmarks' steps (replay.Costs' overhead 0)
        "round_seconds": [x * scale for x in rounds],
        "counts_wait_from": None,
        "suites": sorted({str(b.get("suite")) for b in benchmarks.values()}),
    }
    return from_doc(data.source, synthetic)


def markdown(s: Sharded, losses: tuple[float, ...]) -> str:
    sec = s.seconds()
    lines = [
        f"## Over {s.shards} shards",
        "",
        "| shard | benchmarks | share of a round | false-fail | decided | minutes (longest) |",
        "|--:|--:|--:|--:|--:|--:|",
    ]
    for k, (e, f) in enumerate(zip(s.evaluations, s.fractions, strict=True)):
        lines.append(
            f"| {k + 1} | {len(e.benches.names)} | {f * 100:.0f}% | {e.gate.false_fail * 100:.2f}% "
            f"| {e.decided * 100:.1f}% | {np.mean(e.seconds) / 60:.1f} "
            f"({np.max(e.seconds) / 60:.1f}) |"
        )
    det = {d: s.detect(d) for d in losses}
    b = len(det[losses[0]])
    parts = [
        f"−{d * 100:g}%: mean {np.mean(list(x.values())) * 100:.1f}%, "
        f"{sum(v >= (0.9 if d < 0.1 else 0.95) for v in x.values())} of {b} at ≥ "
        f"{90 if d < 0.1 else 95}%"
        for d, x in det.items()
        if not math.isnan(np.mean(list(x.values())))
    ]
    lines += [
        "",
        f"The PR (every shard): false-fail {s.false_fail * 100:.2f}% (the shards' sum), "
        f"**{s.decided() * 100:.1f}%** of benchmarks decided in a no-change PR, wall "
        f"**{np.mean(sec) / 60:.1f} min** (longest {np.max(sec) / 60:.1f}), the slowest shard's; "
        f"detection {'; '.join(parts)}.",
    ]
    first = s.evaluations[0].uneven  # the shards of a PR read its screening alike
    if first is not None:
        lines += ["", f"The vCPUs: {uneven_words(first)}."]
    return "\n".join(lines) + "\n"


def _cell(x: float, places: int, pct: bool) -> str:
    return f"{x * 100:.{places}f}%" if pct else f"{x:.1f}"


def combined_markdown(runs: list[Sharded], sources: list[str]) -> str:
    """Several recordings of one condition over the same shards: each one's PR figures, their
    mean with a 95% t interval (lab/figures.interval95: the recordings are the independent
    unit), and detection pooled (each benchmark's averaged over the recordings)."""

    def count(s: Sharded, d: float, rate: float) -> float:
        return float(sum(x >= rate for x in s.detect(d).values()))

    rows = [
        ("false-fail per PR (every job and shard)", [s.false_fail for s in runs], "%2"),
        ("no-change PR: benchmarks decided", [s.decided() for s in runs], "%"),
        ("no-change PR, minutes (slowest shard)", [np.mean(s.seconds()) / 60 for s in runs], ""),
        ("the same, longest", [np.max(s.seconds()) / 60 for s in runs], ""),
        ("benchmarks ≥ 95% at −10%", [count(s, 0.10, 0.95) for s in runs], ""),
        ("benchmarks ≥ 90% at −5%", [count(s, 0.05, 0.90) for s in runs], ""),
        ("a −5% loss failed, mean", [np.mean(list(s.detect(0.05).values())) for s in runs], "%"),
    ]  # fmt: skip
    n = len(runs)
    lines = [
        f"## Over {runs[0].shards} shards, across {n} recordings",
        "",
        "| figure | " + " | ".join(f"`{x}`" for x in sources) + " | mean [95% interval] |",
        "|---|" + "--:|" * (n + 1),
    ]
    for label, xs, unit in rows:
        fmt = partial(_cell, places=2 if unit == "%2" else 1, pct=bool(unit))
        mean, lo, hi = interval95([float(x) for x in xs])
        cells = " | ".join(fmt(x) for x in xs)
        hi = min(hi, 1.0) if unit else hi  # a rate is at most 100%, a count at least 0
        lines.append(f"| {label} | {cells} | {fmt(mean)} [{fmt(max(lo, 0.0))}, {fmt(hi)}] |")
    names = sorted(set.intersection(*(set(s.detect(0.10)) for s in runs)))
    pooled = {d: [np.mean([s.detect(d)[b] for s in runs]) for b in names] for d in (0.10, 0.05)}
    lines += [
        "",
        f"Pooled (each benchmark's detection averaged over the {n} recordings): "
        f"**{sum(x >= 0.95 for x in pooled[0.10])} of {len(names)}** at ≥ 95% of −10%, "
        f"**{sum(x >= 0.90 for x in pooled[0.05])} of {len(names)}** at ≥ 90% of −5%.",
    ]
    return "\n".join(lines) + "\n"
