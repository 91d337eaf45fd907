"""The per-group payloads' text: each series as compact JSON (commit-index deltas, values at 6
significant digits, range half-widths at 3), and the overview's bucket means of a long history."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

# The overview's small multiples need no more points than pixels: past 2 x OVERVIEW_BUCKETS
# commits each group also gets an overview file of bucket means (same layout, fewer points).
OVERVIEW_BUCKETS = 200


def quantise(value: float, digits: int = 6) -> float | int | None:
    """Keep `digits` significant digits; integral values serialise without `.0`; NaN -> None."""
    if not math.isfinite(value):
        return None
    q = float(f"{value:.{digits}g}")
    return int(q) if q.is_integer() and abs(q) < 1e15 else q


def json_numbers(values: Any, digits: int) -> str:
    """A JSON array of `values` at `digits` significant digits (`1.23457e+06` is valid JSON)."""
    fmt = f"{{:.{digits}g}}".format
    return "[" + ",".join("null" if v != v else fmt(v) for v in values.tolist()) + "]"


def series_json(pos: np.ndarray, values: np.ndarray, spread: np.ndarray) -> str:
    """`[[commit index deltas], [values, 6 digits], [range half-widths, 3 digits]]`."""
    deltas = np.diff(pos, prepend=0)
    return (
        f"[[{','.join(map(str, deltas.tolist()))}],"
        f"{json_numbers(values, 6)},{json_numbers(spread, 3)}]"
    )


def bucket_means(
    pos: np.ndarray, values: np.ndarray, spread: np.ndarray, size: int, n: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Means per bucket of `size` commits (of all runners' commits, so buckets align across
    runner sizes); each bucket sits at its last commit."""
    buckets = pos // size
    nb = (n + size - 1) // size
    count = np.bincount(buckets, minlength=nb)
    total = np.bincount(buckets, weights=values, minlength=nb)
    has_spread = ~np.isnan(spread)
    s_count = np.bincount(buckets, weights=has_spread, minlength=nb)
    s_total = np.bincount(buckets, weights=np.where(has_spread, np.abs(spread), 0), minlength=nb)
    keep = count > 0
    at = np.minimum((np.arange(nb) + 1) * size - 1, n - 1)[keep]
    with np.errstate(invalid="ignore", divide="ignore"):
        means = total[keep] / count[keep]
        spreads = np.where(s_count[keep] > 0, s_total[keep] / s_count[keep], np.nan)
    return at, means, spreads
