"""The trimmed mean of a series' rounds and its standard error, vectorised as gate/verdict.py is.

A round of a co-tenant's machine now and then runs 20-30% apart on one side (the Python pools and
sequential loops of the shipped co-tenant recordings: rounds' sd 5-11% where the median absolute
deviation says 1.5-4%): one such round widens a mean's t interval for the whole PR. The mean of
the rounds left after cutting the lowest and highest `floor(TRIM·n)` is not moved by it, and its
standard error, from the winsorized variance (the cut rounds set to the nearest kept one), not
widened: Yuen's trimmed-mean t, each sample's term as R's WRS2 `yuen` computes it (se² =
(n − 1)·s²_w / (h(h − 1)), h = n − 2·cut the rounds kept, h − 1 degrees of freedom; its
one-sample `trimci` writes s²_w / ((1 − 2·TRIM)²·n), the same but for n − 1 against h − 1). TRIM
is both functions' default.
"""

from __future__ import annotations

import numpy as np

TRIM = 0.2
# The rounds from which the change interval takes the trimmed mean's beside the mean's (2 cut
# each end). Below, in the screening's 5-9 rounds, the trimmed mean's t has at most 6 degrees of
# freedom and so large a quantile at the gate's levels that the pair is the mean's interval at
# half the level: wider for nothing, and a wider interval cannot show a small loss smaller than
# the threshold (from 5 rounds, a −2% loss failed 47% of `rust/tasks/joinset`'s replayed PRs at 8
# rounds in tracker/tests/fixtures/aa/rust.json; test_gate_evaluate).
FROM = 10


def cut(n: np.ndarray | int) -> np.ndarray:
    """Rounds cut from each end of n: floor(TRIM·n) (0 below 5 rounds)."""
    return np.floor(TRIM * np.asarray(n) + 1e-9).astype(int)


def dof(n: np.ndarray | int) -> np.ndarray:
    """Degrees of freedom of the trimmed mean's t of n rounds: h − 1 (at least 1)."""
    return np.maximum(np.asarray(n) - 2 * cut(n) - 1, 1)


def mean_se(g: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(trimmed mean, its standard error) of each series along the last axis of `g`, whose
    NaN rounds are left out (`n` each series' count of the others; at least one round axis)."""
    xs = np.sort(g, axis=-1)  # NaN last
    width = g.shape[-1]
    k = cut(n)
    h = n - 2 * k
    idx = np.arange(width)
    valid = idx < n[..., None]
    keep = (idx >= k[..., None]) & (idx < (n - k)[..., None])
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.sum(np.where(keep, xs, 0.0), axis=-1) / h
        low = np.take_along_axis(xs, np.clip(k, 0, width - 1)[..., None], -1)
        high = np.take_along_axis(xs, np.clip(n - k - 1, 0, width - 1)[..., None], -1)
        w = np.where(valid, np.clip(xs, low, high), 0.0)
        wmean = np.sum(w, axis=-1) / n
        wss = np.sum(np.where(valid, (w - wmean[..., None]) ** 2, 0.0), axis=-1)
        se = np.sqrt(wss / (h * (h - 1)))
    return mean, se
