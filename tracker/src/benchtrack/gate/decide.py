"""Decide every benchmark: what the screening left open is measured until it is told.

The screening (gate/rounds.py) and the confirmation of its candidates (gate/confirm.py) decide
regressions at the PR's alpha. "Unchanged" is a second question with its own error: a benchmark
is called unchanged when the two one-sided tests of equivalence (Schuirmann 1987, TOST) put its
change inside ±MARGIN·δ at level β per benchmark (verdict.equivalent). β is split, Bonferroni,
over every test one series can meet (verdict.beta_levels): the screening's looks, each with or
without the second stage's looks (the screening's own tests a fifth of β), so the bound holds
whichever the data pick and whenever a decided series stops being measured; a true loss of δ
or more is called unchanged with probability at most β.

The second stage therefore measures, besides the candidates, every benchmark whose wall time
the screening left open (not regressed, improved or unchanged), in segments between its looks;
after each, a series leaves the rounds once decided or once no verdict is within reach by the
last look, and the stage ends when none is left, at its last look, or at the budget.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from benchtrack.gate import verdict as v
from benchtrack.gate.config import GateConfig
from benchtrack.gate.model import Rounds
from benchtrack.gate.outcome import Outcome, Row
from benchtrack.stats import INCONCLUSIVE, UNCHANGED


def levels(cfg: GateConfig, screen_looks: list[int]) -> tuple[float, float]:
    """The one-sided level of each equivalence test: the screening's, the pooled one's
    (verdict.beta_levels)."""
    second = len(cfg.confirm.look_schedule()) if cfg.confirm else 0
    return v.beta_levels(len(screen_looks), second)


def _intervals(data: Rounds, rows: list[Row], at: float) -> v.Interval:
    b = np.array([data.padded("base", r.name) for r in rows])
    h = np.array([data.padded("head", r.name) for r in rows])
    g = v.goodness(b, h, np.array([r.direction != "smaller" for r in rows]))
    return v.mean_interval(g, at)


def _margins(rows: list[Row]) -> tuple[np.ndarray, np.ndarray]:
    return v.band(np.array([r.threshold for r in rows]) * v.MARGIN)


def settle(rows: list[Row], data: Rounds, at: float, stage: int = 1) -> tuple[list[Row], set[str]]:
    """`rows` with each open primary one that passes the equivalence test on `data` made an
    unchanged row (its interval the test's); and the names so settled."""
    todo = [r for r in rows if r.primary and r.verdict == INCONCLUSIVE]
    if not todo:
        return rows, set()
    iv = _intervals(data, todo, at)
    same = v.equivalent(iv, *_margins(todo))
    settled = {
        r.name: _over(r, iv, i, verdict=UNCHANGED, stage=stage, equivalence=True)
        for i, r in enumerate(todo)
        if same[i]
    }
    return [settled.get(r.name, r) for r in rows], set(settled)


def over_all_rounds(rows: list[Row], pooled: Rounds, at: float) -> list[Row]:
    """The open `rows` (not settled) that the second stage measured, each with its change,
    interval and round count over both stages' rounds (`pooled`), the interval at the
    equivalence test's level `at` (as an unchanged row's), marked `pooled`: the screening's
    interval of its first rounds would hide the rounds that followed. A row the second stage
    did not measure keeps its screening row."""
    if not rows:
        return []
    iv = _intervals(pooled, rows, at)
    return [_over(r, iv, i, pooled=True) for i, r in enumerate(rows) if iv.n[i] > r.rounds]


def _over(r: Row, iv: v.Interval, i: int, **fields: Any) -> Row:
    """`r` with its change, interval and rounds those of `iv`'s i-th series."""
    big = r.direction != "smaller"
    ends = sorted((v.to_change(float(iv.lo[i]), big), v.to_change(float(iv.hi[i]), big)))
    change = v.to_change(float(iv.mean[i]), big)
    return replace(r, change=change, lo=ends[0], hi=ends[1], rounds=int(iv.n[i]), **fields)


def open_rows(outcome: Outcome, picked: list[Row]) -> list[Row]:
    """The primary series the screening left open that are not candidates already."""
    chosen = {r.name for r in picked}
    return [
        r
        for r in outcome.rows
        if r.primary and r.verdict == INCONCLUSIVE and r.name not in chosen and r.gates
    ]


def within_reach(rows: list[Row], pooled: Rounds, at: float, last: int) -> set[str]:
    """The rows whose equivalence test could still pass by `last` pooled rounds if their mean
    and spread held (verdict.could_become_unchanged)."""
    if not rows:
        return set()
    iv = _intervals(pooled, rows, at)
    reach = v.could_become_unchanged(iv, *_margins(rows), at, last) | (iv.n < v.MIN_ROUNDS)
    return {r.name for r, ok in zip(rows, reach, strict=True) if ok}
