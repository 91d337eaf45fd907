"""Statistics shared by ingest, compare and the PR gate: medians, their intervals, and verdicts.

Why a bootstrap interval of the ratio of medians (and not Mann-Whitney, or a t-test on means):

- The question a reviewer asks is "did throughput change by more than X %?", so the quantity to
  put an interval on is the relative change itself. A percentile bootstrap of
  median(head) / median(base) gives exactly that interval, which the threshold is compared with.
- Benchmark samples are skewed with a long tail (scheduler hiccups, GC, frequency changes); medians
  ignore the tail where means chase it, and the bootstrap assumes no distribution shape.
- Mann-Whitney answers "is one distribution shifted at all?": with many samples it flags shifts far
  below any threshold and gives no size of the change, so an effect size would still be needed.
- With few samples (5 per side is allowed) the bootstrap interval is wide and the verdict is
  `inconclusive` rather than a confident guess. That is the honest answer; rerun with more rounds.

Resampling uses a fixed seed, so the same inputs always give the same verdict (a PR check that
flips on rerun with identical data would be worse than useless).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

CONFIDENCE = 0.95
RESAMPLES = 10_000
SEED = 0x5EED
DEFAULT_THRESHOLD = 0.05

IMPROVED, REGRESSED, UNCHANGED, INCONCLUSIVE = "improved", "regressed", "unchanged", "inconclusive"


def _rng() -> np.random.Generator:
    return np.random.default_rng(SEED)


def _bootstrap_medians(x: np.ndarray, rng: np.random.Generator, resamples: int) -> np.ndarray:
    """The plain definition (and the fallback for non-finite samples): median of each resample."""
    idx = rng.integers(0, len(x), size=(resamples, len(x)))
    return np.median(x[idx], axis=1)


COUNTED_UP_TO = 256  # samples per side: larger sizes resample the plain way (same numbers)
# From this many samples on, the plain way's (resamples, n) matrices would take hundreds of MB
# (pytest-benchmark records ~100k rounds of a fast function: 10,000 x 100,000 int64 is 8 GB),
# so each resample's median is drawn without building the resample (`_split_medians`).
SPLIT_FROM = 512


@functools.lru_cache(maxsize=16)
def _draw_counts(sizes: tuple[int, ...], resamples: int) -> tuple[np.ndarray, ...]:
    """For each sample size drawn in turn from a fresh `_rng()` (as `_bootstrap_medians` draws
    them): how often each resample picks each sample, an (n, resamples) matrix of small ints.

    Every call starts from the same seed, so the draws depend only on the sizes: drawn once and
    reused for every benchmark of those sizes.
    """
    rng = _rng()
    out = []
    for n in sizes:
        idx = rng.integers(0, n, size=(resamples, n))
        flat = (np.arange(resamples)[:, None] * n + idx).ravel()
        counts = np.bincount(flat, minlength=resamples * n).reshape(resamples, n)
        counts = np.ascontiguousarray(counts.T, dtype=_count_dtype(n))
        counts.flags.writeable = False
        out.append(counts)
    return tuple(out)


def _count_dtype(n: int) -> type:
    return np.int8 if n < 2**7 else np.int16 if n < 2**15 else np.int32


def _split_medians(x: np.ndarray, rng: np.random.Generator, resamples: int) -> np.ndarray:
    """Bootstrap medians of `x` (finite) with the plain way's distribution, in O(resamples ·
    log n) time and O(resamples + n) memory, whatever n is.

    A resample is n draws with replacement; its median is the mean of its order statistics
    (n - 1) // 2 and n // 2 (one for odd n). How many of its draws fall in a range of the sorted
    sample is binomial, and given that count the draws inside the range are again n-choose
    draws from it, independent of those outside. So each order statistic's position is found
    by halving the range log2(n) times, drawing the left half's count at each step; the two
    statistics share their draws while they are in the same range, as one resample's must.
    """
    s = np.sort(x)
    n = len(s)
    ranks = ((n - 1) // 2, n // 2)
    start = [np.zeros(resamples, dtype=np.int64) for _ in ranks]
    size = [np.full(resamples, n, dtype=np.int64) for _ in ranks]
    draws = [np.full(resamples, n, dtype=np.int64) for _ in ranks]
    rank = [np.full(resamples, r, dtype=np.int64) for r in ranks]
    while (size[0] > 1).any() or (size[1] > 1).any():
        same = (start[0] == start[1]) & (size[0] == size[1])
        left = []
        for i in range(2):
            half = size[i] // 2
            drawn = rng.binomial(draws[i], half / size[i])
            left.append(np.where(same, left[0], drawn) if i else drawn)
        for i in range(2):
            half = size[i] // 2
            go_left = rank[i] < left[i]
            start[i] = np.where(go_left, start[i], start[i] + half)
            draws[i] = np.where(go_left, left[i], draws[i] - left[i])
            rank[i] = np.where(go_left, rank[i], rank[i] - left[i])
            size[i] = np.where(go_left, half, size[i] - half)
    return (s[start[0]] + s[start[1]]) / 2


def _resampled_medians(samples: tuple[np.ndarray, ...], resamples: int) -> list[np.ndarray]:
    """`_bootstrap_medians` of each of `samples` drawn in turn from one fresh `_rng()`: the same
    numbers, without building and partitioning a (resamples, n) matrix of values per benchmark
    (from SPLIT_FROM samples on, the same distribution by `_split_medians`).
    """
    if not all(_countable(x) for x in samples):
        rng = _rng()  # NaN follows median's own rules; big sizes would cache big matrices
        return [
            _split_medians(x, rng, resamples)
            if len(x) >= SPLIT_FROM and np.isfinite(x).all()
            else _bootstrap_medians(x, rng, resamples)
            for x in samples
        ]
    counts = _draw_counts(tuple(map(len, samples)), resamples)
    return [_medians_of(x[None, :], c)[0] for x, c in zip(samples, counts, strict=True)]


def _countable(x: np.ndarray) -> bool:
    return 0 < len(x) <= COUNTED_UP_TO and bool(np.isfinite(x).all())


def _medians_of(xs: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Bootstrap medians (k, resamples) of the rows of `xs` (k, n), all resampled by the same
    draws `counts` (n, resamples), as `_bootstrap_medians` would draw them for one row.

    With `s` a row sorted, a resample's k-th smallest value is `s[j]` for the number j of
    sorted positions whose running count of draws is still <= k; np.median averages the two
    middle order statistics (one for odd n), and so does this, bit for bit.
    """
    k, n = xs.shape
    order = np.argsort(xs, axis=1, kind="stable")
    shape = (k, counts.shape[1])
    running = np.zeros(shape, dtype=counts.dtype)
    lo = np.zeros(shape, dtype=counts.dtype)  # order statistic (n - 1) // 2 is s[lo]
    hi = np.zeros(shape, dtype=counts.dtype)  # and n // 2 is s[hi]
    for j in range(n - 1):  # after the last position every count is n: it adds nothing
        running += counts[order[:, j]]
        lo += running <= (n - 1) // 2
        hi += running <= n // 2
    s = np.take_along_axis(xs, order, axis=1)
    low = np.take_along_axis(s, lo.astype(np.intp), axis=1)
    if n % 2:
        return low
    return (low + np.take_along_axis(s, hi.astype(np.intp), axis=1)) / 2


def median_ci(
    samples: Sequence[float], confidence: float = CONFIDENCE, resamples: int = RESAMPLES
) -> tuple[float, tuple[float, float]]:
    """The median of `samples` and a percentile-bootstrap interval of it (which contains it)."""
    x = np.asarray(samples, dtype=float)
    med = float(np.median(x))
    (boot,) = _resampled_medians((x,), resamples)
    alpha = (1 - confidence) / 2
    lo, hi = np.quantile(boot, [alpha, 1 - alpha])
    return med, (min(float(lo), med), max(float(hi), med))


@dataclass(frozen=True)
class Change:
    """head relative to base. `ratio` = median(head) / median(base) in the metric's own terms;
    `better` = the relative change signed so that > 0 is always an improvement (ratio - 1 for
    throughputs, 1 - ratio for smaller-is-better metrics), with its interval `better_ci`."""

    ratio: float
    ratio_ci: tuple[float, float]
    better: float
    better_ci: tuple[float, float]
    significant: bool  # the interval of the ratio excludes 1: a change beyond noise
    verdict: str

    @property
    def percent(self) -> float:
        return (self.ratio - 1) * 100


def compare_samples(
    base: Sequence[float],
    head: Sequence[float],
    *,
    bigger_is_better: bool = True,
    threshold: float = DEFAULT_THRESHOLD,
    confidence: float = CONFIDENCE,
    resamples: int = RESAMPLES,
) -> Change:
    """Bootstrap the ratio of medians head/base and decide a verdict.

    - improved / regressed: the interval excludes no change (beyond noise) and the point change
      is at least `threshold` (a fraction: 0.05 = 5 %) in the better / worse direction;
    - unchanged: the change is within the threshold, either because it is real but small or
      because the whole interval lies inside +-threshold;
    - inconclusive: not beyond noise, but the interval reaches past the threshold (too noisy).
    """
    return compare_many(
        [(base, head, bigger_is_better)],
        threshold=threshold,
        confidence=confidence,
        resamples=resamples,
    )[0]


def compare_many(
    pairs: Sequence[tuple[Sequence[float], Sequence[float], bool]],
    *,
    threshold: float = DEFAULT_THRESHOLD,
    confidence: float = CONFIDENCE,
    resamples: int = RESAMPLES,
) -> list[Change]:
    """`compare_samples` of many (base, head, bigger_is_better) at once, with the same numbers:
    pairs of the same sizes are resampled by the same draws (`_draw_counts`), so their bootstrap
    runs as one array operation instead of ~30 small ones per benchmark."""
    if threshold < 0:
        raise ValueError("threshold must be >= 0")
    alpha = (1 - confidence) / 2
    arrays = [(np.asarray(b, dtype=float), np.asarray(h, dtype=float)) for b, h, _ in pairs]
    groups: dict[tuple[int, int], list[int]] = {}
    out: list[Change | None] = [None] * len(pairs)
    for i, (b, h) in enumerate(arrays):
        if _countable(h) and _countable(b):
            groups.setdefault((len(h), len(b)), []).append(i)
        else:
            boot_h, boot_b = _resampled_medians((h, b), resamples)
            lo, hi = np.quantile(boot_h / boot_b, [alpha, 1 - alpha])
            ratio = float(np.median(h) / np.median(b))
            out[i] = _change(ratio, float(lo), float(hi), pairs[i][2], threshold)
    for sizes, members in groups.items():
        count_h, count_b = _draw_counts(sizes, resamples)
        h = np.array([arrays[i][1] for i in members])
        b = np.array([arrays[i][0] for i in members])
        bounds = np.quantile(
            _medians_of(h, count_h) / _medians_of(b, count_b), [alpha, 1 - alpha], axis=1
        )
        ratios = np.median(h, axis=1) / np.median(b, axis=1)
        for j, i in enumerate(members):
            out[i] = _change(
                float(ratios[j]), float(bounds[0, j]), float(bounds[1, j]), pairs[i][2], threshold
            )
    return [c for c in out if c is not None]


def _change(ratio: float, lo: float, hi: float, bigger_is_better: bool, threshold: float) -> Change:
    lo, hi = min(lo, ratio), max(hi, ratio)
    if bigger_is_better:
        better, better_ci = ratio - 1, (lo - 1, hi - 1)
    else:
        better, better_ci = 1 - ratio, (1 - hi, 1 - lo)
    significant = lo > 1 or hi < 1
    return Change(
        ratio, (lo, hi), better, better_ci, significant, verdict(better, better_ci, threshold)
    )


def verdict(better: float, better_ci: tuple[float, float], threshold: float) -> str:
    """The verdict for a signed relative change (> 0 is better) and its interval."""
    lo, hi = better_ci
    if lo > 0 and better >= threshold:
        return IMPROVED
    if hi < 0 and better <= -threshold:
        return REGRESSED
    if lo > 0 or hi < 0 or (lo >= -threshold and hi <= threshold):
        return UNCHANGED
    return INCONCLUSIVE
