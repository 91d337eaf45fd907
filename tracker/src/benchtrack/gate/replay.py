"""The gate's decisions replayed on recorded rounds, vectorised over thousands of pseudo-PRs:
its time budget (gate/rounds.py) and its two stages, screen then confirm (gate/confirm.py).

`evaluate` builds the pseudo-PRs (gate/evaluate.py); this module only decides what the gate
would have done with each: the same rules, on arrays whose leading axes are PRs (and, for
detection, scenarios), the series on the axis before the rounds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from benchtrack.gate import verdict as v
from benchtrack.gate.config import Confirm
from benchtrack.gate.confirm import SHARE


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
) -> Decided:
    """Screen on `g1` (..., m, n1) at alpha/2, confirm the candidates on `g2` (..., m, n2) at
    alpha/2 over the candidates and the confirmation's looks (gate/confirm.py), within what is
    left of the budget after the builds and the screening's rounds (`times` (..., n1): their
    seconds). `alpha` is one job's."""
    share = alpha * SHARE
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
    per_round = costs.round_seconds(picked)
    last = len(looks2) - 1
    cap2 = np.full(k.shape, looks2[-1])
    if left is not None:  # budget_rounds, every confirmation round at the candidates' pace
        paced = np.repeat(per_round.reshape(-1, 1), looks2[-1], axis=1)
        cap2 = budget_rounds(paced, looks2, left.reshape(-1), 0.0).reshape(k.shape)
    level = share / np.maximum(k, 1) / len(looks2)
    worse, better = v.band(thresholds)
    g2 = np.where(picked[..., None], g2, np.nan)
    codes2 = np.full(picked.shape, v.INCONCLUSIVE_C, dtype=np.int8)
    rounds2 = np.zeros(k.shape, dtype=int)
    done = k == 0
    for i, r in enumerate(looks2):
        taken = np.minimum(cap2, r)
        iv = v.interval(v.first_rounds(g2, taken, r), level[..., None])
        c = v.decide(iv, worse, better)
        take = ~done
        codes2 = np.where(take[..., None], c, codes2)
        rounds2 = np.where(take, taken, rounds2)
        open_ = _open(iv, c, worse, level, looks2[-1]) & picked
        done = done | ~np.any(open_, axis=-1) | (cap2 <= r) | (i == last)
        if np.all(done):
            break
    confirmed = picked & (codes2 == v.REGRESSED_C)
    return Decided(screened | confirmed, stop1, k, rounds2, rounds2 * per_round)


def _open(
    iv: v.Interval, code: np.ndarray, worse: np.ndarray, level: np.ndarray, last: int
) -> np.ndarray:
    """The confirmation's series still worth more rounds (verdict.can_stop's rule, per series,
    at a level per PR)."""
    projected = v.could_become_regressed(iv, worse, level[..., None], last)
    return (code == v.INCONCLUSIVE_C) & (projected | (iv.n < v.MIN_ROUNDS))
