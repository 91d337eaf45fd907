"""Screen, then confirm: the gate's second stage, for the benchmarks its first rounds single out.

A t interval from a handful of rounds, taken at alpha split over ~90 series, 3 runner-size jobs
and every look, is many standard deviations wide: one round's noise is then enough to hide a 10%
loss (tracker/GATE.md). So the gate runs in two stages, which split the PR's alpha:

1. **Screening** (gate/rounds.py, `[gate].rounds`), at `SCREEN` of alpha over all series: every
   benchmark, every series. Its intervals give every verdict, a regression included; with 5
   rounds (4 degrees of freedom) at a Bonferroni level that small, only a loss many times its
   rounds' spread is called there, and such a loss is as sure at a fraction of the level;
2. **Confirmation**, at the rest (`CONFIRM`): a series whose estimated loss is at least half its
   threshold, whose interval still reaches beyond the threshold and that the screening did not
   already call regressed is a *candidate*, at most `most` of them (the largest estimated
   losses relative to the threshold). The candidates alone are measured again, in rounds of
   their own (fresh processes, the same lockstep), up to `rounds` with adaptive looks; each is
   judged on those rounds only, at its share (`shares`) of the stage's alpha over the looks, in
   a weighted Holm step-down (verdict.step_down): a candidate whose loss is shown passes its
   share to those left, so a PR that slows many benchmarks confirms its weaker losses too.
   A few candidates leave a narrow interval after a dozen short rounds, where the screening's
   could not tell.

Sound whatever the screening picks and however it weighs them: the confirmation's rounds are
new, so given the screening's rounds, the chance that some candidate without a loss is
confirmed is at most CONFIRM x alpha, whatever the others' losses (Holm's weighted test, with
weights from an independent first sample); with the screening's own SCREEN x alpha, a PR fails
on a benchmark it did not slow with probability at most alpha. Instruction counts (their
rounds' range, gate/verdict.py) are judged in the screening only: they repeat, so more rounds
would tell nothing new.

Why a fifth, and why weights (tracker/LAB.md, "Alpha where it decides"): over 16 shards of
1,000 benchmarks a shard's candidates shared alpha/16 equally, and a real loss among noise
candidates got too little of it for the rounds' spread (co-tenant: 939 of 1,000 benchmarks at
>= 95% of a -10% loss); a candidate's share now follows its screening t (estimated loss over
its standard error), which a real loss has large and a noise candidate small.
"""

from __future__ import annotations

import math
import re
from dataclasses import replace

import numpy as np

from benchtrack.gate import verdict as v
from benchtrack.gate.config import Confirm, Suite, split_key
from benchtrack.gate.model import Rounds
from benchtrack.gate.outcome import Outcome, Row, sort_rows
from benchtrack.stats import REGRESSED

SCREEN = 0.2  # of the PR's alpha, for the screening
CONFIRM = 1 - SCREEN  # for the confirmation, split over its candidates by `weights`


def loss(row: Row) -> float:
    """A row's estimated loss in throughput terms (> 0: worse), whatever its direction."""
    if row.direction == "smaller":
        return 1 - 1 / (1 + row.change) if row.change > -1 else -math.inf
    return -row.change


def could_regress(row: Row) -> bool:
    """Whether the row's interval still reaches a loss beyond its threshold."""
    if row.direction == "smaller":
        return row.hi > 1 / (1 - row.threshold) - 1
    return row.lo < -row.threshold


def candidates(outcome: Outcome, plan: Confirm) -> list[Row]:
    """The series the screening singles out: an estimated loss of at least half the threshold
    whose interval still reaches beyond the threshold, not judged by range (counts), not
    regressed already; the largest losses first, at most `plan.most`."""
    picked = [
        r
        for r in outcome.rows
        if split_key(r.name)[1] != "instructions"
        and r.verdict != REGRESSED
        and loss(r) >= r.threshold / 2
        and could_regress(r)
    ]
    picked.sort(key=lambda r: -loss(r) / r.threshold)
    return picked[: plan.most]


def weights(g: np.ndarray, picked: np.ndarray) -> np.ndarray:
    """Each candidate's share of the confirmation's alpha, (..., m) from the screening's rounds
    `g` (..., m, n) in goodness terms (< 0 worse, NaN: not measured) and `picked` (..., m): its
    screening t, the estimated loss over its standard error (at least a millionth of the
    largest), over the sum of the candidates' (0 for the others). Fixed before the
    confirmation measures, so the shares may follow the screening's data."""
    mean, se = v.mean_se(g, np.sum(~np.isnan(g), axis=-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        t = -mean / se
    # identical rounds (sd 0) give an infinite t: the largest share, not all of it
    t = np.nan_to_num(np.maximum(t, 0.0), nan=0.0, posinf=1e6)
    t = np.where(picked, t, 0.0)
    top = np.max(t, axis=-1, keepdims=True, initial=0.0)
    t = np.where(picked, np.maximum(t, np.where(top > 0, top * 1e-6, 1.0)), 0.0)
    return t / np.maximum(np.sum(t, axis=-1, keepdims=True), np.finfo(float).tiny)


def shares(rows: list[Row], screened: Rounds) -> dict[str, float]:
    """`weights` of the candidates `rows`, by name, from the screening's rounds."""
    names = [r.name for r in rows]
    if not names:
        return {}
    b = np.array([screened.padded("base", n) for n in names])
    h = np.array([screened.padded("head", n) for n in names])
    g = v.goodness(b, h, np.array([r.direction != "smaller" for r in rows]))
    w = weights(g, np.ones(len(names), dtype=bool))
    return dict(zip(names, (float(x) for x in w), strict=True))


def name_filter(rows: list[Row]) -> str:
    """A regular expression for BENCH_FILTER that selects exactly the candidates' benchmarks,
    whichever way a harness matches: the full name, or (criterion, whose ids lack the suite's
    `rust/` prefix) the name without its first segment."""
    return names_filter({split_key(r.name)[0] for r in rows})


def names_filter(names) -> str:
    """`name_filter` of benchmark names (benchtrack confirm's one benchmark)."""
    forms = sorted({form for n in names for form in (n, n.split("/", 1)[-1])})
    return "^(?:" + "|".join(re.escape(f) for f in forms) + ")$"


def name_filters(rows: list[Row]) -> dict[str, str]:
    """Per suite, the filter of its own candidates only: suites of one harness split its
    benchmarks between them (a threaded walk at full size, the rest on one CPU), so one filter
    for all would measure a candidate in each of them and pool their values."""
    by_suite: dict[str, list[Row]] = {}
    for r in rows:
        by_suite.setdefault(r.suite, []).append(r)
    return {suite: name_filter(picked) for suite, picked in by_suite.items()}


def suites_for(rows: list[Row], suites: list[Suite]) -> list[Suite]:
    """The suites that measured the candidates, in their order."""
    wanted = {r.suite for r in rows}
    return [s for s in suites if s.name in wanted]


def merge(screened: Outcome, confirmed: Outcome, picked: list[Row]) -> Outcome:
    """The screening's outcome with each candidate's row replaced by its confirmation's (a
    candidate the confirmation could not measure keeps its screening row), and the failures of
    both stages."""
    by_name = {r.name: replace(r, stage=2) for r in confirmed.rows}
    chosen = {r.name for r in picked}
    rows = sort_rows([by_name.get(r.name, r) if r.name in chosen else r for r in screened.rows])
    failed = {
        side: {**screened.failed.get(side, {}), **confirmed.failed.get(side, {})}
        for side in ("base", "head")
    }
    return replace(screened, rows=rows, failed=failed)
