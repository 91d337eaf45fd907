"""Screen, then confirm: the gate's second stage, for the benchmarks its first rounds single out.

A t interval from a handful of rounds, taken at alpha split over ~90 series, 3 runner-size jobs
and every look, is many standard deviations wide: one round's noise is then enough to hide a 10%
loss (tracker/GATE.md). So the gate runs in two stages, each spending half of the PR's alpha:

1. **Screening** (gate/rounds.py, `[gate].rounds`): every benchmark, every series. Its intervals
   (at alpha/2 over all series) give every verdict, a regression included;
2. **Confirmation**: a series whose estimated loss is at least half its threshold, whose interval
   still reaches beyond the threshold and that the screening did not already call regressed is
   a *candidate*, at most `most` of them (the largest estimated losses relative to the
   threshold). The candidates alone are measured again, in rounds of their own (fresh
   processes, the same lockstep), up to `rounds` with adaptive looks; each is judged on those
   rounds only, at alpha/2 split over the candidates and the looks. A few candidates leave a
   narrow interval after a dozen short rounds, where the screening's could not tell.

Sound whatever the screening picks: the confirmation's rounds are new, so given any choice of k
candidates, the chance that one of them is falsely confirmed is at most k x alpha/(2k); with the
screening's own alpha/2, a PR that changed nothing fails with probability at most alpha.
Instruction counts (their rounds' range, gate/verdict.py) are judged in the screening only: they
repeat, so more rounds would tell nothing new.
"""

from __future__ import annotations

import math
import re
from dataclasses import replace

from benchtrack.gate.config import Confirm, Suite, split_key
from benchtrack.gate.outcome import Outcome, Row, sort_rows
from benchtrack.stats import REGRESSED

SHARE = 0.5  # of the PR's alpha, for each stage


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
