"""The two-stage gate (screen, then confirm) replayed on every pseudo-PR of an evaluation."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

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
    unchanged_at: dict[float, np.ndarray] = field(default_factory=dict)

    def decide(
        self, g1, g2, thresholds, alpha, looks, exact, times: np.ndarray | None = None
    ) -> Decided:
        t = self.times if times is None else times
        return two_stages(
            g1, g2, thresholds, alpha, looks, self.plan, exact, t, self.build, self.budget,
            self.costs, self.primary,
        )  # fmt: skip

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
                out = self.decide(g1, g2, thresholds, alpha, looks, exact, t)
                flagged = out.regressed & benches.member[None, :, :]
                hits += np.sum(np.any(flagged, axis=-1), axis=0)
                # scenario j's benchmark j: its wall time called unchanged
                same += np.sum(out.unchanged[:, np.arange(nb), benches.primary], axis=0)
            detect[d] = hits / prs
            self.unchanged_at[d] = same / prs
        return ff, detect, aa
