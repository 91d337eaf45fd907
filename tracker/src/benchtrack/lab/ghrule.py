"""The comparison rules of the usual tools, replayed on the same rounds as the gate.

github-action-benchmark (src/write.ts): one new value against the previous stored value; for a
bigger-is-better tool the ratio is previous / current (current / previous when smaller is
better) and an alert fires when ratio > alert-threshold (e.g. "200%" = 2.0); with
fail-on-alert the job fails if any benchmark alerts.

pytest-benchmark `--benchmark-compare-fail=mean:5%`: fails when the head's mean time per call
exceeds the base's by more than 5% (a mean over that run's rounds, times being 1/throughput).
"""

from __future__ import annotations

import numpy as np


def action_alerts(
    base_value: np.ndarray, head_value: np.ndarray, bigger: np.ndarray, threshold: float
) -> np.ndarray:
    """github-action-benchmark's alert on single values (..., m); `threshold` 2.0 = 200%."""
    ratio = np.where(bigger, base_value / head_value, head_value / base_value)
    return ratio > threshold


def pytest_mean_fails(
    base_mean_cost: np.ndarray, head_mean_cost: np.ndarray, fraction: float
) -> np.ndarray:
    """pytest-benchmark's `mean:<fraction>` rule on mean costs (time per call, or KB)."""
    return (head_mean_cost - base_mean_cost) / base_mean_cost > fraction


def mean_cost(samples: list[float], bigger: bool) -> float:
    """What pytest-benchmark compares: the mean time per call (1/throughput), or the value."""
    x = np.asarray(samples, dtype=float)
    return float(np.mean(1.0 / x) if bigger else np.mean(x))
