"""Is a run's value a change, or the history's own noise? The dashboard's rule, judged per series.

A run is compared with the range its series' recent history expects, not with the run's own
interval: two runs of unchanged code on a shared runner differ by tens of percent inside their
own intervals, and a tight interval says nothing about the next run. The expected range of the
point at index j comes from the (at most WINDOW) points before it in its current segment, i.e.
since the latest change point before j (`benchtrack detect`'s, so a confirmed step does not
widen it): their median, +- the widest of SPREAD robust standard deviations of their log values
(1.4826 x MAD), REACH times their farthest point from the median (run-to-run noise on shared
runners is heavy-tailed: a tokio count that is bimodal, a wall time with a slow run in ten; a
MAD alone calls those outliers changes) and FLOOR (a series that repeats exactly, an instruction
count, still needs a resolution). Fewer than MIN_RUNS points there: no range, not judged.

A benchmark with several series (wall time, its instruction count) is judged on each against
its own range: a noisy wall time needs a large move to count, while its quiet count repeats to
the percent; a step that only wall time shows (a longer sleep) is seen there.

The same rule runs in the browser (js/changes.js, `expectedRange`): the index carries this
module's range for each series' latest point, and gh-pages/tests/test_verdicts.py checks that
the two agree. tracker/DETECT.md has its error rates on the simulated histories.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

WINDOW = 30  # the points before a run that set its expected range
MIN_RUNS = 4  # fewer points in the current segment: not judged
SPREAD = 4.0  # robust standard deviations of the log values on either side, at least
REACH = 1.5  # times the window's farthest point from its median, at least (heavy tails)
FLOOR = 0.02  # the range is at least +-2%: smaller changes are never coloured
_MAD_SD = 1.4826  # MAD -> standard deviation of a normal sample

WORSE, BETTER, INSIDE = "worse", "better", ""


@dataclass(frozen=True)
class Range:
    center: float  # the median of the window
    lo: float
    hi: float
    runs: int  # points in the window
    sd: float  # robust standard deviation of the window's log values (relative noise)

    def judge(self, value: float, direction: str) -> str:
        """WORSE, BETTER or INSIDE for `value` of a series whose `direction` is better."""
        if self.lo <= value <= self.hi:
            return INSIDE
        up = value > self.hi
        return BETTER if up == (direction != "smaller") else WORSE

    def change(self, value: float) -> float:
        return value / self.center - 1


def segment_start(changes: list[int] | tuple[int, ...], j: int) -> int:
    """The first point of the segment the point before j is in: the latest change point < j."""
    return max((c for c in changes if c < j), default=0)


def expected(values: np.ndarray, j: int, changes: list[int] | tuple[int, ...] = ()) -> Range | None:
    """The range point j of `values` (a series in history order) is expected in, or None."""
    start = max(segment_start(changes, j), j - WINDOW, 0)
    window = np.asarray(values[start:j], dtype=float)
    window = window[np.isfinite(window) & (window > 0)]
    if len(window) < MIN_RUNS:
        return None
    logs = np.log(window)
    center = float(np.median(logs))
    devs = np.abs(logs - center)
    sd = _MAD_SD * float(np.median(devs))
    half = max(SPREAD * sd, REACH * float(devs.max()), math.log1p(FLOOR))
    lo, hi = math.exp(center - half), math.exp(center + half)
    return Range(math.exp(center), lo, hi, len(window), sd)
