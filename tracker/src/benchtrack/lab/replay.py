"""The gate's decisions replayed on recorded rounds, vectorised over thousands of pseudo-PRs:
its time budget (gate/rounds.py) and its two stages, screen then confirm (gate/confirm.py).

`evaluate` builds the pseudo-PRs (lab/evaluate.py); this module only decides what the gate
would have done with each: the same rules, on arrays whose leading axes are PRs (and, for
detection, scenarios), the series on the axis before the rounds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from benchtrack.gate import verdict as v
from benchtrack.gate.config import Confirm
from benchtrack.gate.confirm import CONFIRM, SCREEN, weights


def budget_rounds(
    times: np.ndarray, looks: list[int], budget: float | np.ndarray | None, build: float
) -> np.ndarray:
    """Per pseudo-PR, the most rounds the time budget lets the gate reach (its last look).

    `times` (P, n): each window's round seconds; `budget`: one for all, or (P,) one each. As
    the gate does (gate/rounds.py), at each look but the last, when the next look, at the pace
    of the rounds so far, would end after the budget (builds included), the last look moves to
    the rounds the budget still holds."""
    cap = np.full(times.shape[0], looks[-1])
    if budget is None:
        return cap
    cum = np.cumsum(times, axis=1)
    open_ = np.ones(times.shape[0], dtype=bool)  # no look moved yet
    for i, k in enumerate(looks[:-1]):
        spent = cum[:, k - 1]
        pace = spent / k
        over = open_ & (build + spent + pace * (looks[i + 1] - k) > budget)
        cap = np.where(over, v.budget_look(k, looks[i + 1], budget - build - spent, pace), cap)
        open_ &= ~over
    return cap


@dataclass(frozen=True)
class Costs:
    """What one confirmation round of some series takes, from a recording: each series'
    benchmark's own seconds a round, and each suite's beyond its benchmarks' (its workers'
    start), paid once when any of its series is a candidate."""

    series: np.ndarray  # (m,) seconds
    suite: np.ndarray  # (m,) index into `overhead`
    overhead: np.ndarray  # (s,) seconds

    def round_seconds(self, picked: np.ndarray) -> np.ndarray:
        """(...,) seconds of a confirmation round of the `picked` (..., m) series."""
        own = np.sum(np.where(picked, self.series, 0.0), axis=-1)
        suites = np.zeros((*picked.shape[:-1], len(self.overhead)), dtype=bool)
        for s in range(len(self.overhead)):
            suites[..., s] = np.any(picked & (self.suite == s), axis=-1)
        return own + np.sum(np.where(suites, self.overhead, 0.0), axis=-1)


@dataclass
class Decided:
    regressed: np.ndarray  # (..., m) the series the gate calls regressed
    screen_rounds: np.ndarray  # (...,)
    candidates: np.ndarray  # (...,) how many series went to the confirmation
    confirm_rounds: np.ndarray  # (...,) its rounds (0: none)
    confirm_seconds: np.ndarray  # (...,)
    # (..., m) the series called unchanged (the equivalence test, verdict.equivalent) or
    # improved: with `regressed`, the decided ones
    unchanged: np.ndarray | None = None
    improved: np.ndarray | None = None

    def decided(self) -> np.ndarray:
        return self.regressed | self.unchanged | self.improved


def two_stages(
    g1: np.ndarray,
    g2: np.ndarray,
    thresholds: np.ndarray,
    alpha: float,
    looks: list[int],
    plan: Confirm,
    exact: np.ndarray,
    times: np.ndarray,
    build: float,
    budget: float | None,
    costs: Costs,
    primary: np.ndarray | None = None,
    beta: float = v.BETA,
) -> Decided:
    """Screen on `g1` (..., m, n1) at SCREEN of alpha; then the second stage on `g2`
    (..., m, n2), within what is left of the budget after the builds and the screening's rounds
    (`times` (..., n1): their seconds). `alpha` is one job's.

    The second stage measures the screening's candidates (gate/confirm.py: judged on its rounds
    alone, at CONFIRM of alpha over its looks, split over the candidates by their screening t
    in a weighted Holm procedure, verdict.step_down) and every `primary` series the screening
    left open (neither regressed, improved nor unchanged), which can only be called unchanged:
    by the equivalence test at `beta` split over its looks (verdict.beta_levels), on its
    screening and second-stage rounds together. A series leaves the rounds once decided or once
    no outcome is within reach by the last look; the stage ends when none is left, at its last
    look, or when the budget is spent (each round costs what its open series cost)."""
    share = alpha * SCREEN
    flat = times.reshape(-1, times.shape[-1])
    cap = budget_rounds(flat, looks, budget, build).reshape(times.shape[:-1])
    codes1, stop1, iv1 = v.sequential(g1, thresholds, share, looks, exact, cap)
    spent = build + np.take_along_axis(np.cumsum(times, axis=-1), stop1[..., None] - 1, -1)[..., 0]
    left = None if budget is None else budget - spent
    screened = codes1 == v.REGRESSED_C
    # Candidates: an estimated loss of at least half the threshold, counts and the already
    # regressed excepted; the largest losses (relative to the threshold) first.
    thr = np.broadcast_to(thresholds, iv1.mean.shape)
    relative = np.expm1(iv1.mean) / thr  # < 0: a loss
    worse1 = np.log1p(-thr)
    picked = ~np.asarray(exact) & ~screened & (iv1.mean <= np.log1p(-thr / 2)) & (iv1.lo < worse1)
    key = np.where(picked, relative, np.inf)
    rank = np.argsort(np.argsort(key, axis=-1, kind="stable"), axis=-1)
    picked &= rank < plan.most
    k = np.sum(picked, axis=-1)
    looks2 = plan.look_schedule()
    looks2 = [r for r in looks2 if r <= g2.shape[-1]] or [g2.shape[-1]]
    worse, better = v.band(thresholds)
    eq_worse, eq_better = v.band(np.asarray(thresholds) * v.MARGIN)
    # The equivalence test on the screening's rounds, at its stopping look.
    s_level, b_level = v.beta_levels(len(looks), len(looks2), beta)
    g1_used = v.first_rounds(g1, stop1, g1.shape[-1])
    same = v.equivalent(v.mean_interval(g1_used, s_level), eq_worse, eq_better) & ~np.asarray(exact)
    improved = codes1 == v.IMPROVED_C
    same |= codes1 == v.UNCHANGED_C
    wanted = np.ones(codes1.shape[-1], dtype=bool) if primary is None else np.asarray(primary)
    open_ = wanted & ~np.asarray(exact) & ~picked & ~screened & ~improved & ~same
    active = picked | open_
    # each candidate's share, fixed by the screening's rounds (gate/confirm.py: weights), in a
    # weighted Holm procedure over them at each look (verdict.step_down)
    shares = weights(g1_used, picked)
    codes2 = np.full(picked.shape, v.INCONCLUSIVE_C, dtype=np.int8)
    had = np.zeros(picked.shape, dtype=int)  # second-stage rounds each series was measured in
    rounds2 = np.zeros(k.shape, dtype=int)
    seconds2 = np.zeros(k.shape)
    done = ~np.any(active, axis=-1)
    prev = 0
    for i, r in enumerate(looks2):
        per_round = costs.round_seconds(active)
        step = np.full(k.shape, r - prev)
        if left is not None:  # the rounds the budget holds, at this segment's pace
            # the gate measures the first segment's pace on its first round (gate/stages.py)
            low = 0 if i > 0 else (left - seconds2 > 0).astype(int)
            step = v.segment_rounds(left - seconds2, per_round, r - prev, low)
        step = np.where(done, 0, step)
        had += np.where(active, step[..., None], 0)
        rounds2 += step
        seconds2 += step * per_round
        measured = np.arange(g2.shape[-1]) < had[..., None]
        g2_had = np.where(measured, g2, np.nan)
        g2_picked = np.where(picked[..., None], g2_had, np.nan)
        shown = codes2 == v.REGRESSED_C  # at an earlier look: the rejection stands
        iv, level = v.step_down(g2_picked, shares, alpha * CONFIRM / len(looks2), shown)
        level = np.where(picked, level, 0.5)  # the others are not judged here
        c = v.decide(iv, worse, better)
        codes2 = np.where(active & ~done[..., None], c, codes2)
        pooled = v.mean_interval(np.concatenate([g1_used, g2_had], axis=-1), b_level)
        same |= active & v.equivalent(pooled, eq_worse, eq_better)
        left_open = picked & (codes2 == v.INCONCLUSIVE_C)
        reach = left_open & v.could_become_regressed(iv.t, worse, level, looks2[-1])
        n_last = int(np.max(stop1, initial=0)) + looks2[-1]
        reach |= v.could_become_unchanged(pooled, eq_worse, eq_better, b_level, n_last)
        active &= ~same & ~(codes2 == v.REGRESSED_C) & (reach | (pooled.n < v.MIN_ROUNDS))
        done = done | ~np.any(active, axis=-1) | (step < r - prev) | (i == len(looks2) - 1)
        prev = r
        if np.all(done):
            break
    confirmed = picked & (codes2 == v.REGRESSED_C)
    regressed = screened | confirmed
    return Decided(regressed, stop1, k, rounds2, seconds2, same & ~regressed, improved & ~regressed)
