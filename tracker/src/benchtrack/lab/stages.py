"""The two-stage gate (screen, then confirm) replayed on every pseudo-PR of an evaluation."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields

import numpy as np

from benchtrack.gate.config import Confirm
from benchtrack.lab.aa import AAData
from benchtrack.lab.figures import CHUNK, Benchmarks
from benchtrack.lab.replay import Costs, Decided, two_stages


def recording_costs(parts: list[AAData]) -> Costs:
    """A confirmation round's costs for every series of `parts` (only the first part's can be
    candidates: the others are counts)."""
    first = parts[0].confirm_costs()
    rest = sum(len(p.names) for p in parts[1:])
    return Costs(
        np.concatenate([first.series, np.zeros(rest)]),
        np.concatenate([first.suite, np.zeros(rest, dtype=int)]),
        first.overhead,
    )


@dataclass(frozen=True)
class Stages:
    """The two-stage gate (screen, then confirm) on every pseudo-PR: `g2` (P, m, n2) holds
    the confirmation's rounds, `times` (P, n1) the screening's round seconds."""

    g2: np.ndarray
    plan: Confirm
    times: np.ndarray
    build: float
    budget: float | None
    costs: Costs
    primary: np.ndarray | None = None  # (m,) the benchmarks' wall-time series
    # (P,) the PRs whose screening read the vCPUs uneven: their confirmation is the plan's
    # uneven state's (Confirm.for_state), as the gate's (gate/stages.py)
    uneven: np.ndarray | None = None
    unchanged_at: dict[float, np.ndarray] = field(default_factory=dict)

    def decide(
        self,
        g1,
        g2,
        thresholds,
        alpha,
        looks,
        exact,
        times: np.ndarray | None = None,
        prs: slice = slice(None),
    ) -> Decided:
        """The PRs `prs` of this evaluation (their `g1`, `g2` and `times` on the leading axis)."""
        t = self.times if times is None else times

        def run(plan: Confirm, at) -> Decided:
            return two_stages(
                g1[at], g2[at], thresholds, alpha, looks, plan, exact, t[at], self.build,
                self.budget, self.costs, self.primary,
            )  # fmt: skip

        state = None if self.uneven is None else self.uneven[prs]
        if state is None or not np.any(state):
            return run(self.plan, slice(None))
        if np.all(state):
            return run(self.plan.for_state(True), slice(None))
        return _stitch(state, run(self.plan, ~state), run(self.plan.for_state(True), state))

    def gate(self, g, thresholds, alpha, looks, losses, exact, benches: Benchmarks):
        """(false-fail rate of one job, detection per loss per benchmark, the A/A decisions);
        `self.unchanged_at`: per loss, how often the slowed benchmark was called unchanged."""
        aa = self.decide(g, self.g2, thresholds, alpha, looks, exact)
        ff = float(np.mean(np.any(aa.regressed, axis=-1)))
        prs, m = g.shape[0], g.shape[1]
        nb = len(benches.names)
        slowed = np.zeros((nb, m))
        slowed[np.arange(nb), benches.primary] = 1.0
        detect = {}
        for d in losses:
            hits, same = np.zeros(nb), np.zeros(nb)
            for lo in range(0, prs, CHUNK):
                cut = slice(lo, lo + CHUNK)
                shift = math.log1p(-d) * slowed[None, :, :, None]
                g1 = g[cut, None, :, :] + shift
                g2 = self.g2[cut, None, :, :] + shift
                t = np.broadcast_to(self.times[cut, None, :], (*g1.shape[:2], self.times.shape[1]))
                out = self.decide(g1, g2, thresholds, alpha, looks, exact, t, cut)
                flagged = out.regressed & benches.member[None, :, :]
                hits += np.sum(np.any(flagged, axis=-1), axis=0)
                # scenario j's benchmark j: its wall time called unchanged
                same += np.sum(out.unchanged[:, np.arange(nb), benches.primary], axis=0)
            detect[d] = hits / prs
            self.unchanged_at[d] = same / prs
        return ff, detect, aa


def _stitch(state: np.ndarray, even: Decided, uneven: Decided) -> Decided:
    """One Decided of all PRs from those of the PRs `~state` and `state` (leading axis)."""

    def both(a: np.ndarray | None, b: np.ndarray | None) -> np.ndarray | None:
        if a is None or b is None:
            return None
        out = np.empty((len(state), *a.shape[1:]), dtype=np.result_type(a, b))
        out[~state], out[state] = a, b
        return out

    return Decided(*(both(getattr(even, f.name), getattr(uneven, f.name)) for f in fields(Decided)))
