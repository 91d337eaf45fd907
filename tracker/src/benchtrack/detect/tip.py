"""Candidates at the tip: a step in a series' newest points, before `find_steps` can judge it.

`method.find_steps` reports a step once `min_segment` points follow it (each level needs that
many for PELT and Welch's test), so a step in the newest merges waits up to four runs. At the tip
this module makes it a candidate at once, with a looser rule, and leaves the decision to the
lockstep confirmation (`benchtrack confirm`: the gate's A/B of the commit before against the
commit itself), which is the error control: a false candidate here costs one confirmation's
minutes, and is counted as a regression only if the gate's A/B finds the step too.

The rule: the newest points that all lie on one side of the level before them, each by at least
`Z` robust noise sigmas (method.noise_sigma, the whole series'), by `min_effect` relative, and by
`MARGIN` times the largest rise (fall) any earlier point of the series made from its own level
(`extremes`: a heavy-tailed series' blips are its own yardstick; without it, a simulated
history's last merge had 30 candidates instead of 18: tracker/LAB.md), fewer than
`min_segment` of them (a longer run is PELT's to judge): a step at the first of them.
The level before is the median of the points since the last step `find_steps` kept, at most
`WINDOW` of them, at least `min_segment`. The p-value is the normal one of the run's mean
deviation on that sigma (a robust z, not Welch's test: too few points after the step for one).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np

from benchtrack.detect.config import Config
from benchtrack.detect.method import Step, noise_sigma

Z = 4.0  # robust sigmas each newest point lies beyond the level before (tracker/DETECT.md)
WINDOW = 20  # most points the level before is the median of
MARGIN = 1.5  # times the series' largest past rise (fall) from its level a newest point must be


def extremes(logs: np.ndarray, steps: Sequence[Step], end: int) -> tuple[float, float]:
    """The largest rise and the largest fall (<= 0) of a point before `end` from its own level:
    the median of its segment between the steps kept. A heavy-tailed series' past blips."""
    bounds = [0, *(s.index for s in steps if s.index < end), end]
    rise, fall = 0.0, 0.0
    for a, b in itertools.pairwise(bounds):
        if b > a:
            gaps = logs[a:b] - np.median(logs[a:b])
            rise, fall = max(rise, float(gaps.max())), min(fall, float(gaps.min()))
    return rise, fall


def tip_step(
    values: np.ndarray | Sequence[float], steps: Sequence[Step], config: Config | None = None
) -> Step | None:
    """The step the newest points of `values` (positive, in history order) start, or None.
    `steps` are `find_steps`' for the same values (the level before starts after the last)."""
    config = config or Config()
    values = np.asarray(values, dtype=float)
    n = len(values)
    if n < config.min_points:
        return None
    logs = np.log(values)
    sigma = noise_sigma(logs)
    start = steps[-1].index if steps else 0
    floor = max(config.min_segment, 1)
    far = max(Z * sigma, math.log1p(config.min_effect))
    # the run of newest points beyond the level before them, in the newest point's direction
    run = 0
    for k in range(1, config.min_segment + 1):
        lo = max(start, n - k - WINDOW)
        if n - k - lo < floor:
            break
        level = float(np.median(logs[lo : n - k]))
        gaps = logs[n - k :] - level
        if not (np.all(gaps >= far) or np.all(gaps <= -far)):
            break
        run = k
    if run == 0 or run >= config.min_segment:
        return None
    at = n - run
    lo = max(start, at - WINDOW)
    gaps = logs[at:] - np.median(logs[lo:at])
    rise, fall = extremes(logs, steps, at)  # the points before the run: the series' own blips
    if not (np.all(gaps > MARGIN * rise) or np.all(gaps < MARGIN * fall)):
        return None
    before, after = float(np.median(values[lo:at])), float(np.median(values[at:]))
    gap = float(np.mean(gaps))
    z = abs(gap) / (sigma * math.sqrt(1 / run + 1 / (at - lo)))
    # two-sided normal tail, 2·P(Z > z), without importing scipy.stats (about a CPU-second)
    return Step(at, before, after, after / before - 1, math.erfc(z / math.sqrt(2)))
